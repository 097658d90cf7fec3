#pragma once

// kube-apiserver's wording for a request body it cannot read a kind from: the Go
// encoding/json error of its version/kind probe and the short summary of the body it
// appends (the body's start as text when it looks like an object, else in hex).

#include <optional>
#include <string>
#include <string_view>

namespace kueuepp::kube::server {

/// Go's encoding/json text for a body that does not parse: "unexpected end of JSON
/// input" when it stops short; other syntax errors keep `fallback`, the parser's own text.
std::string go_syntax_error(std::string_view body, std::string_view fallback);

/// What Go's json.Unmarshal into the {apiVersion, kind} probe says about `body`, or
/// nullopt when it would accept it (an object, or null).
/// Syntax errors other than a truncated body keep `fallback`, the parser's own text.
std::optional<std::string> go_probe_error(std::string_view body, std::string_view fallback);

/// The body as kube-apiserver quotes it in that error: `<empty>`, the first 30 bytes
/// as text when it starts with `{`, else in hex; ` ...` when cut.
std::string summarize_body(std::string_view body);

}  // namespace kueuepp::kube::server
