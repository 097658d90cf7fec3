#pragma once

// YAML (1.2 core schema, with the booleans sigs.k8s.io/yaml accepts) to JSON values,
// as kubectl and kube-apiserver read manifests.

#include <string_view>
#include <vector>

#include "core/expected.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::json {

/// One JSON value per YAML document, in order. Empty documents (only comments, or
/// `---` with nothing after it) are returned as null so callers can count documents.
/// The error names the line and column of the first syntax error.
Expected<std::vector<value>> parse_yaml_documents(std::string_view text);

/// Exactly one document; an error if the text holds more than one.
Expected<value> parse_yaml(std::string_view text);

}  // namespace kueuepp::json
