// Runs x-kubernetes-validations as apiextensions' schema/cel Validator does: rules of a
// node first, then its children (map values, then properties; array items), skipping
// null values. `self` is the node's value and `oldSelf` the correlated old value: the
// same property or map key, or for list-type=map lists the element with the same keys
// (other lists do not correlate). Transition rules (using oldSelf) run only when that old
// value exists, unless optionalOldSelf makes oldSelf an optional. Costs are charged
// against a per-rule limit and a budget for the whole object; running out stops all
// further rules, as upstream does.

#include <algorithm>

#include "kube/apiserver/schema/cel/errors.hpp"
#include "kube/apiserver/schema/cel/interpreter.hpp"
#include "kube/apiserver/schema/field_errors.hpp"
#include "kube/apiserver/schema/path.hpp"
#include "kube/apiserver/schema/unchanged_parts.hpp"
#include "kube/apiserver/schema/json_text.hpp"
#include "kube/apiserver/schema/validators.hpp"
#include "kube/json/json_equal.hpp"

namespace kueuepp::kube::schema {
namespace {

namespace fe = field_errors;

constexpr std::size_t kMaxMessageExpressionSize = 5 * 1024;

std::string_view trim(std::string_view s) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

// What upstream quotes a rule by in messages: its message, else its expression.
std::string rule_name(const Rule& r) { return std::string(trim(r.message.empty() ? r.rule : r.message)); }

// The element of an old list-type=map list with the same key fields as `item`.
const json::value* correlate(const Node& list, const json::value* old, const json::value& item) {
  if (old == nullptr || !old->is_array() || list.list_type != cel::Shape::ListType::Map) return nullptr;
  const json::object* o = item.if_object();
  if (o == nullptr) return nullptr;
  for (const auto& candidate : old->get_array()) {
    const json::object* c = candidate.if_object();
    if (c == nullptr) continue;
    bool same = true;
    for (const std::string& k : list.list_map_keys) {
      auto a = o->find(k);
      auto b = c->find(k);
      bool ha = a != o->end(), hb = b != c->end();
      if (ha != hb || (ha && !json::json_equal(a->value(), b->value()))) {
        same = false;
        break;
      }
    }
    if (same) return &candidate;
  }
  return nullptr;
}

class CelRunner {
 public:
  CelRunner(std::uint64_t budget, const UnchangedParts* unchanged, std::vector<FieldError>& out)
      : budget_(budget), unchanged_parts_(unchanged), out_(out) {}

  CelRun result() const {
    CelRun r = run_;
    r.stopped = stopped_;
    r.budget_left = budget_;
    return r;
  }

  /// `unchanged`: the value, or an ancestor, is an unchanged part (unchanged_parts.hpp).
  /// There only the transition rules run: the others pass as they did.
  void visit(const Node& s, const json::value& v, const json::value* old, bool unchanged = false) {
    if (stopped_ || v.is_null()) return;
    if (old != nullptr && old->is_null()) old = nullptr;
    if (!unchanged && unchanged_parts_ != nullptr && unchanged_parts_->contains(v)) unchanged = true;
    if (unchanged) {
      run_.skipped = run_.skipped || !s.rules.empty() || s.subtree_has_rules;
      if (!s.has_transition_rules && !s.subtree_has_transition_rules) return;
    }
    if (!s.rules.empty()) run_rules(s, v, old, unchanged);
    if (stopped_ || !s.subtree_has_rules) return;
    if (const json::array* a = v.if_array()) {
      if (!s.items) return;
      for (std::size_t i = 0; i < a->size() && !stopped_; ++i) {
        PathScope scope(path_, PathStack::Kind::Index, {}, i);
        visit(*s.items, (*a)[i], correlate(s, old, (*a)[i]), unchanged);
      }
    } else if (const json::object* o = v.if_object()) {
      const json::object* old_o = old != nullptr ? old->if_object() : nullptr;
      auto old_value = [&](std::string_view k) -> const json::value* {
        if (old_o == nullptr) return nullptr;
        auto it = old_o->find(k);
        return it == old_o->end() ? nullptr : &it->value();
      };
      if (const Node* ap = s.additional_properties.get(); ap != nullptr && (!ap->rules.empty() || ap->subtree_has_rules)) {
        for (const auto& kv : *o) {
          if (stopped_) return;
          PathScope scope(path_, PathStack::Kind::Key, text(kv.key()));
          visit(*ap, kv.value(), old_value(text(kv.key())), unchanged);
        }
      }
      if (s.properties.empty()) return;
      for (const auto& kv : *o) {
        if (stopped_) return;
        const Node* p = s.property(text(kv.key()));
        if (p == nullptr || (p->rules.empty() && !p->subtree_has_rules)) continue;
        PathScope scope(path_, PathStack::Kind::Field, text(kv.key()));
        visit(*p, kv.value(), old_value(text(kv.key())), unchanged);
      }
    }
  }

 private:
  void invalid(const Node& s, std::string field, const std::string& detail) {
    out_.push_back(fe::invalid(std::move(field), go_quote(s.type), detail));
  }

  void stop_budget(const Node& s) {
    invalid(s, path_.field_path(), "validation failed due to running out of cost budget, no further validation rules will be run");
    stopped_ = true;
  }

  // Charges `cost`; false (after reporting) when the object's budget is exhausted.
  bool charge(const Node& s, std::uint64_t cost) {
    if (cost > budget_) {
      stop_budget(s);
      return false;
    }
    budget_ -= cost;
    return true;
  }

  void run_rules(const Node& s, const json::value& v, const json::value* old, bool unchanged) {
    cel::Value self = cel::Value::from_json(v, &s);
    cel::Value old_self = old != nullptr ? cel::Value::from_json(*old, &s) : cel::Value::static_error("no such attribute");
    // The rules share the results of common subexpressions (the same variable values for
    // all of them; the binding of oldSelf is part of what is shared, see compile.cpp).
    cel::Memo memo(s.cel_memo_slots);
    cel::Memo* shared = s.cel_memo_slots > 0 ? &memo : nullptr;
    for (const Rule& rule : s.rules) {
      if (stopped_) return;
      if (unchanged && !rule.transition()) continue;
      if (budget_ == 0) return stop_budget(s);
      if (!rule.program) {
        invalid(s, path_.field_path(), "rule compile error: " + rule.compile_error);
        continue;
      }
      if (rule.uses_old_self && old == nullptr && !rule.optional_old_self) continue;
      cel::Value vars[2] = {self, old_self};
      if (rule.optional_old_self) vars[1] = old != nullptr ? cel::Value::optional_of(old_self) : cel::Value::optional_none();
      auto result = rule.program->evaluate(vars, cel::kPerCallLimit, shared);
      if (!charge(s, result.cost)) return;
      if (!rule.transition()) run_.cost += result.cost;
      if (result.value.is_error()) {
        evaluation_error(s, rule, result.value.text());
        continue;
      }
      if (result.value.is(cel::Kind::Bool) && result.value.as_bool()) continue;
      failed(s, rule, self, old_self);
    }
  }

  void evaluation_error(const Node& s, const Rule& rule, std::string_view error) {
    std::string field = path_.field_path();
    if (error.starts_with("no such overload")) {
      invalid(s, field, "'" + std::string(error) +
                            "': call arguments did not match a supported operator, function or macro signature for rule: " +
                            rule_name(rule));
    } else if (error.starts_with(cel::kCostLimitExceeded)) {
      invalid(s, field, "'" + std::string(error) +
                            "': no further validation rules will be run due to call cost exceeds limit for rule: " +
                            rule_name(rule));
      stopped_ = true;
    } else {
      invalid(s, field, std::string(error) + " evaluating rule: " + rule_name(rule));
    }
  }

  // The detail of a failed rule: its messageExpression when that yields a usable
  // string, else its message, else "failed rule: <rule>".
  bool detail(const Node& s, const Rule& rule, const cel::Value& self, const cel::Value& old_self, std::string& out) {
    if (rule.message_program) {
      cel::Value vars[2] = {self, old_self};
      auto m = rule.message_program->evaluate(vars, cel::kPerCallLimit);
      if (m.cost > budget_) {
        invalid(s, path_.field_path(rule.field_path),
                "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run");
        stopped_ = true;
        return false;
      }
      budget_ -= m.cost;
      if (m.value.is_error() && m.value.text().starts_with(cel::kCostLimitExceeded)) {
        invalid(s, path_.field_path(rule.field_path),
                "no further validation rules will be run due to call cost exceeds limit for messageExpression: " +
                    go_quote(rule.message_expression));
        stopped_ = true;
        return false;
      }
      if (m.value.is(cel::Kind::String)) {
        std::string_view text = trim(m.value.text());
        if (!text.empty() && text.size() <= kMaxMessageExpressionSize && text.find('\n') == std::string_view::npos) {
          out = std::string(text);
          return true;
        }
      }
    }
    out = rule.message.empty() ? "failed rule: " + std::string(trim(rule.rule)) : std::string(trim(rule.message));
    return true;
  }

  void failed(const Node& s, const Rule& rule, const cel::Value& self, const cel::Value& old_self) {
    std::string text;
    if (!detail(s, rule, self, old_self, text)) return;
    std::string field = path_.field_path(rule.field_path);
    if (rule.reason == "FieldValueForbidden") {
      out_.push_back(fe::forbidden(std::move(field), text));
    } else if (rule.reason == "FieldValueRequired") {
      out_.push_back(fe::required(std::move(field), text));
    } else if (rule.reason == "FieldValueDuplicate") {
      out_.push_back(fe::duplicate(std::move(field), go_quote(s.type)));
    } else {
      invalid(s, std::move(field), text);
    }
  }

  PathStack path_;
  std::uint64_t budget_;
  const UnchangedParts* unchanged_parts_;
  std::vector<FieldError>& out_;
  bool stopped_ = false;
  CelRun run_;
};

}  // namespace

CelRun validate_cel(const Node& root, const json::value& object, const json::value* old_object,
                    const UnchangedParts* unchanged, std::uint64_t budget, std::vector<FieldError>& out) {
  CelRunner runner(budget, unchanged, out);
  runner.visit(root, object, old_object);
  return runner.result();
}

}  // namespace kueuepp::kube::schema
