#include "kube/apiserver/server/strategy/label_selector_rules.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "kube/apiserver/server/util/validation.hpp"

namespace kueuepp::kube::server {

namespace {

std::size_t size_of(const json::value* v) {
  if (v == nullptr) return 0;
  if (v->is_object()) return v->as_object().size();
  if (v->is_array()) return v->as_array().size();
  return 0;
}

void validate_labels(const json::value* labels, const std::string& path, FieldErrors& errs) {
  if (labels == nullptr || !labels->is_object()) return;
  for (const auto& [k, v] : labels->as_object()) {
    for (const auto& p : qualified_name_problems(k)) errs.push_back(invalid_error(path, json::value(k), p));
    std::string_view value = v.is_string() ? std::string_view(v.get_string()) : std::string_view();
    for (const auto& p : label_value_problems(value)) errs.push_back(invalid_error(path, v, p));
  }
}

void validate_requirement(const json::value& r, const std::string& path, FieldErrors& errs) {
  std::string_view op = json::get_string(r, "operator");
  const json::value* values = json::find(r, "values");
  std::size_t n = size_of(values);
  if (op == "In" || op == "NotIn") {
    if (n == 0) errs.push_back(required_error(path + ".values", "must be specified when `operator` is 'In' or 'NotIn'"));
  } else if (op == "Exists" || op == "DoesNotExist") {
    if (n > 0) {
      errs.push_back(forbidden_error(path + ".values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    }
  } else {
    errs.push_back(invalid_error(path + ".operator", json::value(op), "not a valid selector operator"));
  }
  std::string_view key = json::get_string(r, "key");
  for (const auto& p : qualified_name_problems(key)) errs.push_back(invalid_error(path + ".key", json::value(key), p));
  if (values == nullptr || !values->is_array()) return;
  const json::array& list = values->as_array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    std::string_view value = list[i].is_string() ? std::string_view(list[i].get_string()) : std::string_view();
    for (const auto& p : label_value_problems(value)) {
      errs.push_back(invalid_error(fmt::format("{}.values[{}]", path, i), list[i], p));
    }
  }
}

const json::value* label(const json::value* labels, std::string_view key) {
  return labels != nullptr && labels->is_object() ? labels->as_object().if_contains(key) : nullptr;
}

bool in_values(const json::value* values, const json::value& v) {
  if (values == nullptr || !values->is_array()) return false;
  const json::array& list = values->as_array();
  return std::find(list.begin(), list.end(), v) != list.end();
}

bool requirement_holds(const json::value& r, const json::value* labels) {
  std::string_view op = json::get_string(r, "operator");
  const json::value* have = label(labels, json::get_string(r, "key"));
  const json::value* values = json::find(r, "values");
  if (op == "In") return have != nullptr && in_values(values, *have);
  if (op == "NotIn") return have == nullptr || !in_values(values, *have);
  if (op == "Exists") return have != nullptr;
  if (op == "DoesNotExist") return have == nullptr;
  return false;
}

}  // namespace

FieldErrors validate_label_selector(const json::value* selector, const std::string& path) {
  FieldErrors errs;
  if (selector == nullptr || !selector->is_object()) return errs;
  validate_labels(json::find(*selector, "matchLabels"), path + ".matchLabels", errs);
  const json::value* exprs = json::find(*selector, "matchExpressions");
  if (exprs == nullptr || !exprs->is_array()) return errs;
  const json::array& list = exprs->as_array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (list[i].is_object()) validate_requirement(list[i], fmt::format("{}.matchExpressions[{}]", path, i), errs);
  }
  return errs;
}

bool label_selector_empty(const json::value& selector) {
  return size_of(json::find(selector, "matchLabels")) == 0 && size_of(json::find(selector, "matchExpressions")) == 0;
}

bool label_selector_matches(const json::value& selector, const json::value* labels) {
  if (!selector.is_object()) return false;
  if (const json::value* match = json::find(selector, "matchLabels"); match != nullptr && match->is_object()) {
    for (const auto& [k, v] : match->as_object()) {
      const json::value* have = label(labels, k);
      if (have == nullptr || *have != v) return false;
    }
  }
  const json::value* exprs = json::find(selector, "matchExpressions");
  if (exprs == nullptr || !exprs->is_array()) return true;
  return std::all_of(exprs->as_array().begin(), exprs->as_array().end(),
                     [&](const json::value& r) { return r.is_object() && requirement_holds(r, labels); });
}

}  // namespace kueuepp::kube::server
