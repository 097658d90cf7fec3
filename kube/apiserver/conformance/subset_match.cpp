#include "kube/apiserver/conformance/subset_match.hpp"

#include <functional>

#include "kube/apiserver/conformance/token_pattern.hpp"
#include "kube/json/json_equal.hpp"

namespace kueuepp::kube::conformance {

namespace {

using Keys = std::vector<std::string>;

const char* type_name(const json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::null: return "null";
    case boost::json::kind::bool_: return "a boolean";
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
    case boost::json::kind::double_: return "a number";
    case boost::json::kind::string: return "a string";
    case boost::json::kind::array: return "an array";
    case boost::json::kind::object: return "an object";
  }
  return "a value";
}

Difference diff(const Keys& keys, std::string message) {
  return {render_path(keys), std::move(message)};
}

std::string expected_actual(const json::value& recorded, const json::value& actual) {
  return "expected " + excerpt(recorded) + ", actual " + excerpt(actual);
}

class Matcher {
 public:
  explicit Matcher(const std::vector<TracePath>& contains) : contains_(contains) {}

  std::optional<Difference> compare(const json::value& rec, const json::value& act, Keys& keys) {
    if (rec.is_object()) return compare_object(rec.get_object(), act, keys);
    if (rec.is_array()) return compare_array(rec.get_array(), act, keys);
    if (rec.is_string()) {
      if (!act.is_string()) return diff(keys, "expected " + excerpt(rec) + ", actual " + type_name(act) + " " + excerpt(act));
      if (string_matches(rec.get_string(), act.get_string())) return std::nullopt;
      return diff(keys, expected_actual(rec, act));
    }
    if (rec.is_number()) {
      if (act.is_number() && json::numbers_equal(rec, act)) return std::nullopt;
      return diff(keys, expected_actual(rec, act));
    }
    if (rec.is_bool()) {
      if (act.is_bool() && act.get_bool() == rec.get_bool()) return std::nullopt;
      return diff(keys, expected_actual(rec, act));
    }
    if (act.is_null()) return std::nullopt;  // recorded null
    return diff(keys, expected_actual(rec, act));
  }

 private:
  std::optional<Difference> compare_object(const json::object& rec, const json::value& act, Keys& keys) {
    if (!act.is_object()) {
      return diff(keys, std::string("expected an object, actual ") + type_name(act) + " " + excerpt(act));
    }
    const json::object& actual = act.get_object();
    for (const auto& [key, value] : rec) {
      keys.emplace_back(key);
      auto it = actual.find(key);
      std::optional<Difference> d;
      if (it == actual.end()) {
        if (!value.is_null()) d = diff(keys, "missing (expected " + excerpt(value) + ")");
      } else {
        d = compare(value, it->value(), keys);
      }
      keys.pop_back();
      if (d) return d;
    }
    return std::nullopt;
  }

  bool is_contains(const Keys& keys) const {
    for (const TracePath& p : contains_) {
      if (location_matches(p, keys)) return true;
    }
    return false;
  }

  std::optional<Difference> compare_array(const json::array& rec, const json::value& act, Keys& keys) {
    if (!act.is_array()) {
      return diff(keys, std::string("expected an array, actual ") + type_name(act) + " " + excerpt(act));
    }
    const json::array& actual = act.get_array();
    if (is_contains(keys)) return compare_contains(rec, actual, keys);
    if (rec.size() != actual.size()) {
      return diff(keys, "expected " + std::to_string(rec.size()) + " elements, actual " +
                            std::to_string(actual.size()) + " " + excerpt(act));
    }
    for (std::size_t i = 0; i < rec.size(); ++i) {
      keys.push_back(std::to_string(i));
      auto d = compare(rec[i], actual[i], keys);
      keys.pop_back();
      if (d) return d;
    }
    return std::nullopt;
  }

  std::optional<Difference> compare_contains(const json::array& rec, const json::array& actual, Keys& keys) {
    std::vector<std::vector<char>> ok(rec.size(), std::vector<char>(actual.size(), 0));
    for (std::size_t i = 0; i < rec.size(); ++i) {
      for (std::size_t j = 0; j < actual.size(); ++j) {
        keys.push_back(std::to_string(j));
        ok[i][j] = compare(rec[i], actual[j], keys) ? 0 : 1;
        keys.pop_back();
      }
    }
    const auto missing = unmatched_left(rec.size(), actual.size(), ok);
    if (!missing) return std::nullopt;
    const json::value& wanted = rec[*missing];
    // Point at the closest candidate: the actual element with the same name, if any.
    const std::string_view name = json::get_string(wanted, "name");
    for (std::size_t j = 0; j < actual.size() && !name.empty(); ++j) {
      if (json::get_string(actual[j], "name") == name) {
        keys.push_back(std::to_string(j));
        auto d = compare(wanted, actual[j], keys);
        keys.pop_back();
        if (d) return Difference{d->path, d->message + " (element \"" + std::string(name) + "\")"};
        return diff(keys, "element \"" + std::string(name) + "\" matches only an element already used by another");
      }
    }
    return diff(keys, "no actual element matches recorded element " + excerpt(wanted) + " (" +
                          std::to_string(actual.size()) + " actual elements)");
  }

  const std::vector<TracePath>& contains_;
};

}  // namespace

std::string excerpt(const json::value& v, std::size_t max) {
  std::string text = json::dump(v);
  if (text.size() > max) text = text.substr(0, max) + "...";
  return text;
}

std::optional<std::size_t> unmatched_left(std::size_t left, std::size_t right,
                                          const std::vector<std::vector<char>>& compatible) {
  std::vector<std::ptrdiff_t> match_of_right(right, -1);
  std::function<bool(std::size_t, std::vector<char>&)> augment =
      [&](std::size_t l, std::vector<char>& seen) -> bool {
    for (std::size_t r = 0; r < right; ++r) {
      if (!compatible[l][r] || seen[r]) continue;
      seen[r] = 1;
      if (match_of_right[r] < 0 || augment(static_cast<std::size_t>(match_of_right[r]), seen)) {
        match_of_right[r] = static_cast<std::ptrdiff_t>(l);
        return true;
      }
    }
    return false;
  };
  for (std::size_t l = 0; l < left; ++l) {
    std::vector<char> seen(right, 0);
    if (!augment(l, seen)) return l;
  }
  return std::nullopt;
}

std::optional<Difference> first_difference(const json::value& recorded, const json::value& actual,
                                           const std::vector<TracePath>& contains) {
  Matcher matcher(contains);
  Keys keys;
  return matcher.compare(recorded, actual, keys);
}

}  // namespace kueuepp::kube::conformance
