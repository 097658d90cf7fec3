#include "kube/json/json_equal.hpp"

#include <cstdint>

namespace kueuepp::json {

namespace {

double as_double(const value& v) {
  return v.is_double() ? v.get_double() : v.is_int64() ? static_cast<double>(v.get_int64()) : static_cast<double>(v.get_uint64());
}

template <class T>
int three_way(T x, T y) {
  return x < y ? -1 : (x > y ? 1 : 0);
}

bool equal_at(const value& a, const value& b, int depth) {
  if (depth > kMaxEqualDepth) return false;
  if (a.is_number() && b.is_number()) return numbers_equal(a, b);
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case boost::json::kind::null:
      return true;
    case boost::json::kind::bool_:
      return a.get_bool() == b.get_bool();
    case boost::json::kind::string:
      return a.get_string() == b.get_string();
    case boost::json::kind::array: {
      const array& x = a.get_array();
      const array& y = b.get_array();
      if (x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (!equal_at(x[i], y[i], depth + 1)) return false;
      }
      return true;
    }
    case boost::json::kind::object: {
      const object& x = a.get_object();
      const object& y = b.get_object();
      if (x.size() != y.size()) return false;
      for (const auto& member : x) {
        auto it = y.find(member.key());
        if (it == y.end() || !equal_at(member.value(), it->value(), depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;  // numbers were handled above
  }
}

}  // namespace

bool json_equal(const value& a, const value& b) { return equal_at(a, b, 0); }

bool numbers_equal(const value& a, const value& b) {
  if (a.is_double() || b.is_double()) return as_double(a) == as_double(b);
  if (a.is_int64() && b.is_int64()) return a.get_int64() == b.get_int64();
  if (a.is_uint64() && b.is_uint64()) return a.get_uint64() == b.get_uint64();
  // One int64, one uint64: equal only for the same non-negative value.
  const value& s = a.is_int64() ? a : b;
  const value& u = a.is_int64() ? b : a;
  return s.get_int64() >= 0 && static_cast<std::uint64_t>(s.get_int64()) == u.get_uint64();
}

int compare_numbers(const value& a, const value& b) {
  if (a.is_double() || b.is_double()) return three_way(as_double(a), as_double(b));
  if (a.is_int64() && b.is_int64()) return three_way(a.get_int64(), b.get_int64());
  if (a.is_uint64() && b.is_uint64()) return three_way(a.get_uint64(), b.get_uint64());
  // One int64, one uint64.
  if (a.is_int64()) {
    if (a.get_int64() < 0) return -1;
    return three_way(static_cast<std::uint64_t>(a.get_int64()), b.get_uint64());
  }
  return -compare_numbers(b, a);
}

}  // namespace kueuepp::json
