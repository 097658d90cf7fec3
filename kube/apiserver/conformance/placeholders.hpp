#pragma once

// `${name}` placeholders (README 1.4): captured values substituted into request paths
// (percent-encoded), JSON bodies (typed when a string is exactly `${name}`, spliced as
// text otherwise; keys untouched), text bodies (verbatim) and assert values.

#include <map>
#include <string>
#include <string_view>

#include "core/expected.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::conformance {

using Captures = std::map<std::string, json::value, std::less<>>;

/// A captured value as text: strings as they are, anything else as its JSON text.
std::string placeholder_text(const json::value& value);

/// Path substitution: every byte except A-Z a-z 0-9 - . _ ~ of the value is %XX-encoded.
Expected<std::string> substitute_in_path(std::string_view path, const Captures& captures);
/// Text substitution (string bodies).
Expected<std::string> substitute_in_text(std::string_view text, const Captures& captures);
/// JSON substitution (JSON bodies, assert values).
Expected<json::value> substitute_in_json(const json::value& value, const Captures& captures);

}  // namespace kueuepp::kube::conformance
