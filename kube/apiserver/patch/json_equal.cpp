#include "kube/apiserver/patch/json_equal.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

#include "kube/apiserver/patch/patch.hpp"

namespace kueuepp::kube::patch::detail {
namespace {

bool is_number(const json::value& v) { return v.is_int64() || v.is_uint64() || v.is_double(); }

// Three-way numeric comparison without losing precision between int64 and uint64 (a
// double is only involved when one side is a double anyway).
int compare_numbers(const json::value& a, const json::value& b) {
  if (a.is_double() || b.is_double()) {
    const double x = a.is_double() ? a.get_double()
                     : a.is_int64() ? static_cast<double>(a.get_int64())
                                    : static_cast<double>(a.get_uint64());
    const double y = b.is_double() ? b.get_double()
                     : b.is_int64() ? static_cast<double>(b.get_int64())
                                    : static_cast<double>(b.get_uint64());
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  if (a.is_int64() && b.is_int64()) {
    const auto x = a.get_int64(), y = b.get_int64();
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  if (a.is_uint64() && b.is_uint64()) {
    const auto x = a.get_uint64(), y = b.get_uint64();
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  // One signed, one unsigned.
  if (a.is_int64()) {
    const std::int64_t x = a.get_int64();
    if (x < 0) return -1;
    const auto ux = static_cast<std::uint64_t>(x), y = b.get_uint64();
    return ux < y ? -1 : (ux > y ? 1 : 0);
  }
  return -compare_numbers(b, a);
}

// Rank of a kind in structured-merge-diff's order.
int rank(const json::value& v) {
  if (is_number(v)) return 0;
  if (v.is_string()) return 1;
  if (v.is_bool()) return 2;
  if (v.is_array()) return 3;
  if (v.is_object()) return 4;
  return 5;  // null
}

bool equal_at(const json::value& a, const json::value& b, int depth) {
  if (depth > kMaxDepth) return false;
  if (is_number(a) && is_number(b)) return compare_numbers(a, b) == 0;
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case boost::json::kind::string:
      return a.get_string() == b.get_string();
    case boost::json::kind::bool_:
      return a.get_bool() == b.get_bool();
    case boost::json::kind::null:
      return true;
    case boost::json::kind::array: {
      const json::array& x = a.get_array();
      const json::array& y = b.get_array();
      if (x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (!equal_at(x[i], y[i], depth + 1)) return false;
      }
      return true;
    }
    case boost::json::kind::object: {
      const json::object& x = a.get_object();
      const json::object& y = b.get_object();
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

int compare_at(const json::value& a, const json::value& b, int depth);

int compare_objects(const json::object& x, const json::object& y, int depth) {
  // Objects compare as their members sorted by key.
  auto sorted = [](const json::object& o) {
    std::vector<const boost::json::key_value_pair*> members;
    members.reserve(o.size());
    for (const auto& m : o) members.push_back(&m);
    std::sort(members.begin(), members.end(),
              [](const auto* l, const auto* r) { return l->key() < r->key(); });
    return members;
  };
  const auto xs = sorted(x);
  const auto ys = sorted(y);
  for (std::size_t i = 0;; ++i) {
    if (i == xs.size() || i == ys.size()) {
      return xs.size() == ys.size() ? 0 : (i == xs.size() ? -1 : 1);
    }
    if (const int c = xs[i]->key().compare(ys[i]->key()); c != 0) return c < 0 ? -1 : 1;
    if (const int c = compare_at(xs[i]->value(), ys[i]->value(), depth + 1); c != 0) return c;
  }
}

int compare_at(const json::value& a, const json::value& b, int depth) {
  if (depth > kMaxDepth) return 0;
  const int ra = rank(a), rb = rank(b);
  if (ra != rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0:
      return compare_numbers(a, b);
    case 1: {
      const int c = std::string_view(a.get_string()).compare(std::string_view(b.get_string()));
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case 2:
      return a.get_bool() == b.get_bool() ? 0 : (a.get_bool() ? 1 : -1);
    case 3: {
      const json::array& x = a.get_array();
      const json::array& y = b.get_array();
      for (std::size_t i = 0;; ++i) {
        if (i == x.size() || i == y.size()) {
          return x.size() == y.size() ? 0 : (i == x.size() ? -1 : 1);
        }
        if (const int c = compare_at(x[i], y[i], depth + 1); c != 0) return c;
      }
    }
    case 4:
      return compare_objects(a.get_object(), b.get_object(), depth);
    default:
      return 0;
  }
}

}  // namespace

bool json_equal(const json::value& a, const json::value& b) { return equal_at(a, b, 0); }

int json_compare(const json::value& a, const json::value& b) { return compare_at(a, b, 0); }

const char* kind_name(const json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::object:
      return "object";
    case boost::json::kind::array:
      return "array";
    case boost::json::kind::string:
      return "string";
    case boost::json::kind::bool_:
      return "boolean";
    case boost::json::kind::null:
      return "null";
    default:
      return "number";
  }
}

}  // namespace kueuepp::kube::patch::detail
