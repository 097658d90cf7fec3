// policy/v1 PodDisruptionBudget: validation as kube-apiserver 1.28 validates it
// (minAvailable and maxUnavailable exclusive, each a count or a percentage of at most
// 100%, the selector, the unhealthy-pod eviction policy), the zero status a create
// starts with, and generation bumped by spec changes (the spec is mutable in v1). No
// disruption controller runs: status is whatever a client writes to /status.

#include <array>

#include <fmt/format.h>

#include "kube/apiserver/server/strategy/builtin_kinds.hpp"
#include "kube/apiserver/server/strategy/builtin_strategy.hpp"
#include "kube/apiserver/server/strategy/int_or_percent.hpp"
#include "kube/apiserver/server/strategy/label_selector_rules.hpp"
#include "kube/apiserver/server/strategy/object_meta.hpp"

namespace kueuepp::kube::server {

namespace {

constexpr std::array kBudgetFields{
    TypedField{"spec", FieldType::Object},
    TypedField{"spec.selector", FieldType::Object},
    TypedField{"spec.selector.matchLabels", FieldType::StringMap},
    TypedField{"spec.selector.matchExpressions", FieldType::ObjectList},
    TypedField{"spec.unhealthyPodEvictionPolicy", FieldType::String},
    TypedField{"status", FieldType::Object},
    TypedField{"status.observedGeneration", FieldType::Integer},
    TypedField{"status.disruptionsAllowed", FieldType::Integer},
    TypedField{"status.currentHealthy", FieldType::Integer},
    TypedField{"status.desiredHealthy", FieldType::Integer},
    TypedField{"status.expectedPods", FieldType::Integer},
    TypedField{"status.conditions", FieldType::ObjectList},
};

/// The status counts Go always serializes (int32 fields without omitempty).
constexpr std::array<std::string_view, 4> kStatusCounts{"disruptionsAllowed", "currentHealthy", "desiredHealthy",
                                                        "expectedPods"};
constexpr std::array<std::string_view, 7> kStatusOrder{"observedGeneration", "disruptedPods", "disruptionsAllowed",
                                                       "currentHealthy", "desiredHealthy", "expectedPods",
                                                       "conditions"};

ListTable budget_lists() {
  return ListTable({atomic_object("spec.selector"), keyed_list("status.conditions", "type")});
}

/// The status as kube-apiserver stores it: the counts present even when zero.
void complete_status(json::object& obj) {
  json::object& status = object_member(obj, "status");
  for (std::string_view count : kStatusCounts) set_default(status, count, 0);
  order_members(status, kStatusOrder);
}

FieldErrors validate_spec(const json::object& obj) {
  FieldErrors errs;
  const json::value* spec_v = obj.if_contains("spec");
  if (spec_v == nullptr || !spec_v->is_object()) return errs;
  const json::object& spec = spec_v->as_object();
  const json::value* min = spec.if_contains("minAvailable");
  const json::value* max = spec.if_contains("maxUnavailable");
  bool has_min = min != nullptr && !min->is_null();
  bool has_max = max != nullptr && !max->is_null();
  if (has_min && has_max) {
    errs.push_back(invalid_error("spec", *spec_v, "minAvailable and maxUnavailable cannot be both set"));
  }
  if (has_min) {
    for (auto& e : validate_int_or_percent(*min, "spec.minAvailable", true)) errs.push_back(std::move(e));
  }
  if (has_max) {
    for (auto& e : validate_int_or_percent(*max, "spec.maxUnavailable", true)) errs.push_back(std::move(e));
  }
  for (auto& e : validate_label_selector(spec.if_contains("selector"), "spec.selector")) errs.push_back(std::move(e));
  const json::value* policy = spec.if_contains("unhealthyPodEvictionPolicy");
  if (policy != nullptr && !policy->is_null()) {
    std::string_view p = policy->is_string() ? std::string_view(policy->get_string()) : std::string_view();
    if (p != "IfHealthyBudget" && p != "AlwaysAllow") {
      errs.push_back(not_supported_error("spec.unhealthyPodEvictionPolicy", *policy, {"AlwaysAllow", "IfHealthyBudget"}));
    }
  }
  return errs;
}

FieldErrors validate_status(const json::object& obj) {
  FieldErrors errs;
  const json::value* status = obj.if_contains("status");
  if (status == nullptr || !status->is_object()) return errs;
  for (std::string_view count : kStatusCounts) {
    if (auto v = int_at(status->as_object(), {count}); v && *v < 0) {
      errs.push_back(invalid_error(fmt::format("status.{}", count), json::value(*v), "must be greater than or equal to 0"));
    }
  }
  return errs;
}

json::value int_or_percent_cell(const json::object& obj, std::string_view field) {
  const json::value* v = at(obj, {"spec", field});
  if (v == nullptr || v->is_null()) return "N/A";
  return v->is_string() ? *v : json::value(json::dump(*v));
}

class PodDisruptionBudgetStrategy final : public BuiltinStrategy {
 public:
  PodDisruptionBudgetStrategy() : BuiltinStrategy("policy", "PodDisruptionBudget", budget_lists()) {}

  ApiResult<json::value> decode(json::value body, const WriteContext& ctx) const override {
    if (auto st = check_field_types(body.as_object(), ctx, "", kBudgetFields); !st) return unexpected(st.error());
    return BuiltinStrategy::decode(std::move(body), ctx);
  }

  void prepare_for_create(json::object& obj, const WriteContext&) const override {
    obj["status"] = json::object{};
    complete_status(obj);
  }

  void prepare_for_update(json::object& obj, const json::object& old, const WriteContext& ctx) const override {
    BuiltinStrategy::prepare_for_update(obj, old, ctx);
    if (ctx.status) complete_status(obj);
  }

  FieldErrors validate(const json::object& obj, const WriteContext& ctx) const override {
    return ctx.status ? validate_status(obj) : validate_spec(obj);
  }

  bool tracks_generation() const override { return true; }
  bool generation_changes(const json::object& obj, const json::object& old, const WriteContext&) const override {
    const json::value* a = obj.if_contains("spec");
    const json::value* b = old.if_contains("spec");
    if (a == nullptr || b == nullptr) return a != b;
    return *a != *b;
  }

  std::vector<PrinterColumn> columns(const ResourceType&) const override {
    return {{"Min Available", "string", "", "The minimum number of pods that must be available.", 0, ""},
            {"Max Unavailable", "string", "", "The maximum number of pods that may be unavailable.", 0, ""},
            {"Allowed Disruptions", "integer", "", "Calculated number of pods that may be disrupted at this time.", 0, ""},
            {"Age", "string", "", "CreationTimestamp is a timestamp representing the server time when this object was created.", 0, ""}};
  }

  json::array cells(const json::object& obj, const ResourceType&) const override {
    return json::array{int_or_percent_cell(obj, "minAvailable"), int_or_percent_cell(obj, "maxUnavailable"),
                       json::value(int_at(obj, {"status", "disruptionsAllowed"}).value_or(0)), json::value(age_of(obj))};
  }
};

}  // namespace

StrategyPtr make_pod_disruption_budget_strategy() { return std::make_shared<PodDisruptionBudgetStrategy>(); }

}  // namespace kueuepp::kube::server
