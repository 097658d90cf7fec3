#include "kube/apiserver/patch/json_order.hpp"

#include <algorithm>
#include <string_view>
#include <vector>

#include "kube/apiserver/patch/patch.hpp"
#include "kube/json/json_equal.hpp"

namespace kueuepp::kube::patch::detail {
namespace {

// Rank of a kind in structured-merge-diff's order.
int rank(const json::value& v) {
  if (v.is_number()) return 0;
  if (v.is_string()) return 1;
  if (v.is_bool()) return 2;
  if (v.is_array()) return 3;
  if (v.is_object()) return 4;
  return 5;  // null
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
      return json::compare_numbers(a, b);
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
