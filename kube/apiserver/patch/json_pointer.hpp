#pragma once

// RFC 6901 JSON pointers: parsing (with the ~0 / ~1 escapes) and array index rules.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"
#include "kube/apiserver/patch/patch.hpp"

namespace kueuepp::kube::patch::detail {

/// A parsed pointer: the unescaped reference tokens. "" is the whole document (no tokens).
struct JsonPointer {
  std::vector<std::string> tokens;
  std::string text;  ///< as written, for messages
};

/// Parses `text`. Errors (422 Invalid, as kube-apiserver answers for a bad path): a
/// non-empty pointer that does not start with '/', a '~' not followed by '0' or '1'.
Expected<JsonPointer, PatchError> parse_pointer(std::string_view text);

/// An array index token per RFC 6901: "0" or digits without a leading zero, and no sign.
/// Returns nullopt for anything else, including numbers too large for size_t.
std::optional<std::size_t> parse_array_index(std::string_view token);

/// True when `prefix` is a proper prefix of `path` (a strict ancestor location).
bool is_proper_prefix(const JsonPointer& prefix, const JsonPointer& path);

}  // namespace kueuepp::kube::patch::detail
