#pragma once

// A serialization that keeps track of one member's text: where the value of
// root[outer][inner] lies in it, and optionally that text given instead of serialized.
// The API server stores each object version with its serialization; a write that leaves
// metadata.managedFields exactly as the previous version has them (the usual status
// update by the field's owner within the same second) reuses that part of the previous
// text instead of serializing the entries again.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "kube/json/json.hpp"

namespace kueuepp::json {

/// Where a value lies in a serialization: bytes [begin, end); both 0 when nowhere.
struct TextSpan {
  std::size_t begin = 0;
  std::size_t end = 0;
  bool empty() const { return begin == end; }
  std::string_view in(std::string_view text) const { return text.substr(begin, end - begin); }
};

/// dump(root), except that the value of root[outer][inner], when both are present and
/// `outer` is an object, is written as `text` when given. The caller guarantees that
/// `text` is what dump() writes for that value. `*at` receives where that value lies in
/// the result (empty when absent).
std::string dump_noting_member(const object& root, std::string_view outer, std::string_view inner,
                               std::optional<std::string_view> text, TextSpan* at);

}  // namespace kueuepp::json
