#include "kube/apiserver/schema/unchanged_parts.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

namespace kueuepp::kube::schema {

UnchangedParts::UnchangedParts(const json::value& object, const json::value* reference,
                               std::span<const std::string_view> changeable)
    : changeable_(changeable) {
  if (reference == nullptr) return;
  parts_.reserve(32);  // a typical object's largest unchanged parts, in one allocation
  walk(object, *reference, /*root=*/true);
  std::sort(parts_.begin(), parts_.end(), std::less<>());
}

bool UnchangedParts::contains(const json::value& part) const {
  return !parts_.empty() && std::binary_search(parts_.begin(), parts_.end(), &part, std::less<>());
}

// Returns whether `v` is identical to `ref`. Every identical part found below is recorded;
// when the whole of `v` turns out identical, its parts give way to `v` itself.
bool UnchangedParts::walk(const json::value& v, const json::value& ref, bool root) {
  if (v.kind() != ref.kind()) return false;
  const std::size_t mark = parts_.size();
  bool same = false;
  switch (v.kind()) {
    case boost::json::kind::object: same = walk_object(v.get_object(), ref.get_object(), root); break;
    case boost::json::kind::array: same = walk_array(v.get_array(), ref.get_array()); break;
    case boost::json::kind::double_:  // 0.0 == -0.0, yet CEL's string() tells them apart
      same = v.get_double() == ref.get_double() && std::signbit(v.get_double()) == std::signbit(ref.get_double());
      break;
    case boost::json::kind::string: {
      // Most leaves are strings: their bytes compared here rather than through
      // Boost.JSON's out-of-line operator== (the same comparison).
      const json::string& a = v.get_string();
      const json::string& b = ref.get_string();
      same = a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size()) == 0;
      break;
    }
    default: same = v == ref; break;  // same kind: plain value equality
  }
  if (!same || root) return false;
  parts_.resize(mark);
  parts_.push_back(&v);
  return true;
}

bool UnchangedParts::walk_object(const json::object& v, const json::object& ref, bool root) {
  bool same = v.size() == ref.size();
  auto at = ref.begin();
  for (const auto& member : v) {
    const json::value* other = nullptr;
    if (same && at->key() == member.key()) {
      other = &at->value();
      ++at;
    } else {
      same = false;  // members differ, or in another order
      auto it = ref.find(member.key());
      if (it != ref.end()) other = &it->value();
    }
    if (root && member.key() == "metadata") {
      same = false;
      continue;
    }
    if (root && other != nullptr && known_identical(member.key())) {
      parts_.push_back(&member.value());  // what its walk would find
      continue;
    }
    if (other == nullptr || !walk(member.value(), *other, false)) same = false;
  }
  return same;
}

bool UnchangedParts::known_identical(std::string_view key) const {
  return !changeable_.empty() && std::find(changeable_.begin(), changeable_.end(), key) == changeable_.end();
}

bool UnchangedParts::walk_array(const json::array& v, const json::array& ref) {
  bool same = v.size() == ref.size();
  const std::size_t n = std::min(v.size(), ref.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (!walk(v[i], ref[i], false)) same = false;
  }
  return same;
}

}  // namespace kueuepp::kube::schema
