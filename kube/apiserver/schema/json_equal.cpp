#include <cmath>

#include "kube/apiserver/schema/validators.hpp"

namespace kueuepp::kube::schema {
namespace {

constexpr int kMaxDepth = 1000;

bool number_equal(const json::value& a, const json::value& b) {
  if (a.is_int64() && b.is_int64()) return a.get_int64() == b.get_int64();
  if (a.is_uint64() && b.is_uint64()) return a.get_uint64() == b.get_uint64();
  if (a.is_double() || b.is_double()) return a.to_number<double>() == b.to_number<double>();
  // int64 vs uint64: equal only for non-negative values in both ranges.
  const json::value& i = a.is_int64() ? a : b;
  const json::value& u = a.is_int64() ? b : a;
  return i.get_int64() >= 0 && static_cast<std::uint64_t>(i.get_int64()) == u.get_uint64();
}

bool equal(const json::value& a, const json::value& b, int depth) {
  if (depth > kMaxDepth) return false;
  if (a.is_number() && b.is_number()) return number_equal(a, b);
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case boost::json::kind::null:
      return true;
    case boost::json::kind::bool_:
      return a.get_bool() == b.get_bool();
    case boost::json::kind::string:
      return a.get_string() == b.get_string();
    case boost::json::kind::array: {
      const auto& x = a.get_array();
      const auto& y = b.get_array();
      if (x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (!equal(x[i], y[i], depth + 1)) return false;
      }
      return true;
    }
    case boost::json::kind::object: {
      const auto& x = a.get_object();
      const auto& y = b.get_object();
      if (x.size() != y.size()) return false;
      for (const auto& kv : x) {
        auto it = y.find(kv.key());
        if (it == y.end() || !equal(kv.value(), it->value(), depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

}  // namespace

bool json_equal(const json::value& a, const json::value& b) { return equal(a, b, 0); }

}  // namespace kueuepp::kube::schema
