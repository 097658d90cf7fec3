#include "kube/jobs/semantic_equal.hpp"

#include <array>

#include "core/quantity.hpp"
#include "kube/json/json_equal.hpp"

namespace kueuepp::kube::jobs {

namespace {

bool is_zero(const json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::null: return true;
    case boost::json::kind::bool_: return !v.get_bool();
    case boost::json::kind::int64: return v.get_int64() == 0;
    case boost::json::kind::uint64: return v.get_uint64() == 0;
    case boost::json::kind::double_: return v.get_double() == 0.0;
    case boost::json::kind::string: return v.get_string().empty();
    case boost::json::kind::array: return v.get_array().empty();
    case boost::json::kind::object: return v.get_object().empty();
  }
  return false;
}

/// Members whose values (or whose members' values) are quantities.
bool quantity_key(std::string_view key) {
  static constexpr std::array<std::string_view, 6> kKeys = {"requests", "limits", "overhead",
                                                            "resourceUsage", "total", "borrowed"};
  for (auto k : kKeys) {
    if (k == key) return true;
  }
  return false;
}

bool equal(const json::value& a, const json::value& b, bool quantities);

bool objects_equal(const json::object& a, const json::object& b, bool quantities) {
  for (const auto& [key, va] : a) {
    bool q = quantities || quantity_key(key);
    const json::value* vb = b.if_contains(key);
    if (vb == nullptr ? !is_zero(va) : !equal(va, *vb, q)) return false;
  }
  for (const auto& [key, vb] : b) {
    if (!a.contains(key) && !is_zero(vb)) return false;
  }
  return true;
}

bool equal(const json::value& a, const json::value& b, bool quantities) {
  if (is_zero(a) && is_zero(b)) return true;
  if (a.is_number() && b.is_number()) return json::numbers_equal(a, b);
  if (a.kind() != b.kind()) {
    // A quantity may be written as a number or a string.
    if (quantities && (a.is_number() || a.is_string()) && (b.is_number() || b.is_string())) {
      auto text = [](const json::value& v) {
        return v.is_string() ? std::string(v.get_string()) : json::dump(v);
      };
      auto qa = core::Quantity::parse(text(a));
      auto qb = core::Quantity::parse(text(b));
      return qa && qb && *qa == *qb;
    }
    return false;
  }
  switch (a.kind()) {
    case boost::json::kind::string: {
      if (a.get_string() == b.get_string()) return true;
      if (!quantities) return false;
      auto qa = core::Quantity::parse(a.get_string());
      auto qb = core::Quantity::parse(b.get_string());
      return qa && qb && *qa == *qb;
    }
    case boost::json::kind::bool_: return a.get_bool() == b.get_bool();
    case boost::json::kind::array: {
      const auto& la = a.get_array();
      const auto& lb = b.get_array();
      if (la.size() != lb.size()) return false;
      for (std::size_t i = 0; i < la.size(); ++i) {
        if (!equal(la[i], lb[i], quantities)) return false;
      }
      return true;
    }
    case boost::json::kind::object: return objects_equal(a.get_object(), b.get_object(), quantities);
    default: return a == b;
  }
}

}  // namespace

bool semantically_equal(const json::value& a, const json::value& b) { return equal(a, b, false); }

bool semantically_equal(const json::value* a, const json::value* b) {
  static const json::value kNull;
  return equal(a ? *a : kNull, b ? *b : kNull, false);
}

}  // namespace kueuepp::kube::jobs
