#include "kube/apiserver/patch/json_pointer.hpp"

#include <limits>

#include "kube/apiserver/patch/errors.hpp"

namespace kueuepp::kube::patch::detail {

Expected<JsonPointer, PatchError> parse_pointer(std::string_view text) {
  JsonPointer pointer;
  pointer.text = std::string(text);
  if (text.empty()) return pointer;
  if (text.front() != '/') {
    return invalid(pointer.text, "JSON pointer \"" + pointer.text + "\" must be empty or start with '/'",
                   PatchError::Cause::Malformed);
  }
  std::string token;
  for (std::size_t i = 1; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '/') {
      pointer.tokens.push_back(std::move(token));
      token.clear();
      continue;
    }
    if (text[i] != '~') {
      token.push_back(text[i]);
      continue;
    }
    // RFC 6901: "~1" is '/', "~0" is '~'; any other use of '~' is an error.
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    if (next != '0' && next != '1') {
      return invalid(pointer.text,
                     "JSON pointer \"" + pointer.text + "\" has an invalid escape at offset " +
                         std::to_string(i) + " ('~' must be followed by '0' or '1')",
                     PatchError::Cause::Malformed);
    }
    token.push_back(next == '0' ? '~' : '/');
    ++i;
  }
  return pointer;
}

std::optional<std::size_t> parse_array_index(std::string_view token) {
  if (token.empty()) return std::nullopt;
  if (token.size() > 1 && token.front() == '0') return std::nullopt;  // no leading zeros
  std::size_t value = 0;
  for (char c : token) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<std::size_t>(c - '0');
    if (value > (std::numeric_limits<std::size_t>::max() - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

bool is_proper_prefix(const JsonPointer& prefix, const JsonPointer& path) {
  if (prefix.tokens.size() >= path.tokens.size()) return false;
  for (std::size_t i = 0; i < prefix.tokens.size(); ++i) {
    if (prefix.tokens[i] != path.tokens[i]) return false;
  }
  return true;
}

}  // namespace kueuepp::kube::patch::detail
