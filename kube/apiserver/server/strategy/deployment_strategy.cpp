// apps/v1 Deployment: kube-apiserver 1.28's defaulting (replicas, the RollingUpdate
// strategy with 25% surge and unavailability, revisionHistoryLimit,
// progressDeadlineSeconds, the pod template with restartPolicy Always), validation
// (ValidateDeploymentSpec: the selector must select the template, the template must
// restart always, the rolling update's bounds), the immutable selector, and generation
// bumped by spec and annotation changes (annotations are copied to the ReplicaSets).
// No controller runs behind it: status is whatever a client writes to /status.

#include <array>

#include <fmt/format.h>

#include "kube/apiserver/server/strategy/builtin_kinds.hpp"
#include "kube/apiserver/server/strategy/builtin_strategy.hpp"
#include "kube/apiserver/server/strategy/int_or_percent.hpp"
#include "kube/apiserver/server/strategy/label_selector_rules.hpp"
#include "kube/apiserver/server/strategy/object_meta.hpp"
#include "kube/apiserver/server/strategy/pod_spec.hpp"

namespace kueuepp::kube::server {

namespace {

/// The DeploymentSpec and DeploymentStatus fields whose JSON types the decoder checks
/// (the pod template's spec is checked as a PodSpec).
constexpr std::array kDeploymentFields{
    TypedField{"spec", FieldType::Object},
    TypedField{"spec.replicas", FieldType::Integer},
    TypedField{"spec.minReadySeconds", FieldType::Integer},
    TypedField{"spec.revisionHistoryLimit", FieldType::Integer},
    TypedField{"spec.progressDeadlineSeconds", FieldType::Integer},
    TypedField{"spec.paused", FieldType::Bool},
    TypedField{"spec.selector", FieldType::Object},
    TypedField{"spec.selector.matchLabels", FieldType::StringMap},
    TypedField{"spec.selector.matchExpressions", FieldType::ObjectList},
    TypedField{"spec.strategy", FieldType::Object},
    TypedField{"spec.strategy.type", FieldType::String},
    TypedField{"spec.strategy.rollingUpdate", FieldType::Object},
    TypedField{"spec.template", FieldType::Object},
    TypedField{"spec.template.metadata", FieldType::Object},
    TypedField{"spec.template.metadata.labels", FieldType::StringMap},
    TypedField{"spec.template.metadata.annotations", FieldType::StringMap},
    TypedField{"spec.template.spec", FieldType::Object},
    TypedField{"status", FieldType::Object},
    TypedField{"status.observedGeneration", FieldType::Integer},
    TypedField{"status.replicas", FieldType::Integer},
    TypedField{"status.updatedReplicas", FieldType::Integer},
    TypedField{"status.readyReplicas", FieldType::Integer},
    TypedField{"status.availableReplicas", FieldType::Integer},
    TypedField{"status.unavailableReplicas", FieldType::Integer},
    TypedField{"status.collisionCount", FieldType::Integer},
    TypedField{"status.conditions", FieldType::ObjectList},
};

constexpr std::array<std::string_view, 8> kSpecOrder{"replicas", "selector", "template", "strategy",
                                                     "minReadySeconds", "revisionHistoryLimit", "paused",
                                                     "progressDeadlineSeconds"};

ListTable deployment_lists() {
  return ListTable({atomic_object("spec.selector"), keyed_list("status.conditions", "type")}, "spec.template");
}

/// SetDefaults_Deployment.
void apply_defaults(json::object& obj) {
  json::object& spec = object_member(obj, "spec");
  set_default(spec, "replicas", 1);
  json::object& strategy = object_member(spec, "strategy");
  default_string(strategy, "type", "RollingUpdate");
  if (string_at(strategy, {"type"}) == "RollingUpdate") {
    json::object& rolling = object_member(strategy, "rollingUpdate");
    set_default(rolling, "maxUnavailable", "25%");
    set_default(rolling, "maxSurge", "25%");
  }
  set_default(spec, "revisionHistoryLimit", 10);
  set_default(spec, "progressDeadlineSeconds", 600);
  json::value& tmpl = spec["template"];
  if (!tmpl.is_object()) tmpl = json::object{};
  default_pod_template(tmpl.as_object(), true);
  order_members(spec, kSpecOrder);
}

void non_negative(const json::object& obj, std::string_view field, const std::string& path, FieldErrors& errs) {
  auto v = int_at(obj, {field});
  if (v && *v < 0) errs.push_back(invalid_error(path, json::value(*v), "must be greater than or equal to 0"));
}

void validate_selector(const json::object& spec, FieldErrors& errs) {
  const json::value* selector = spec.if_contains("selector");
  bool missing = selector == nullptr || selector->is_null();
  bool valid = true;
  if (missing) {
    errs.push_back(required_error("spec.selector"));
  } else {
    FieldErrors selector_errs = validate_label_selector(selector, "spec.selector");
    valid = selector_errs.empty();
    errs.insert(errs.end(), selector_errs.begin(), selector_errs.end());
    if (label_selector_empty(*selector)) {
      errs.push_back(invalid_error("spec.selector", *selector, "empty selector is invalid for deployment"));
      return;  // an empty selector selects everything: the template matches trivially
    }
  }
  // A missing selector selects nothing, so the template does not match it either (as
  // kube-apiserver reports both).
  const json::value* labels = at(spec, {"template", "metadata", "labels"});
  if (valid && (missing || !label_selector_matches(*selector, labels))) {
    errs.push_back(invalid_error("spec.template.metadata.labels", labels != nullptr ? *labels : json::value(nullptr),
                                 "`selector` does not match template `labels`"));
  }
}

/// ValidatePodTemplateSpecForReplicaSet: a pod of a Deployment always restarts.
void validate_template(const json::object& spec, FieldErrors& errs) {
  const json::value* pod_spec = at(spec, {"template", "spec"});
  for (auto& e : validate_pod_spec(pod_spec, "spec.template.spec")) errs.push_back(std::move(e));
  if (pod_spec == nullptr || !pod_spec->is_object()) return;
  std::string_view restart = json::get_string(*pod_spec, "restartPolicy");
  if (restart != "Always") {
    errs.push_back(not_supported_error("spec.template.spec.restartPolicy", json::value(restart), {"Always"}));
  }
  const json::value* deadline = json::find(*pod_spec, "activeDeadlineSeconds");
  if (deadline != nullptr && !deadline->is_null()) {
    errs.push_back(forbidden_error("spec.template.spec.activeDeadlineSeconds",
                                   "activeDeadlineSeconds in ReplicaSet is not Supported"));
  }
}

void validate_rolling_update(const json::object& rolling, FieldErrors& errs) {
  const std::string base = "spec.strategy.rollingUpdate";
  const json::value* unavailable = rolling.if_contains("maxUnavailable");
  const json::value* surge = rolling.if_contains("maxSurge");
  if (unavailable != nullptr) {
    for (auto& e : validate_int_or_percent(*unavailable, base + ".maxUnavailable", true)) errs.push_back(std::move(e));
  }
  if (surge != nullptr) {
    for (auto& e : validate_int_or_percent(*surge, base + ".maxSurge", false)) errs.push_back(std::move(e));
  }
  // Both zero would never let a rollout make progress.
  auto u = unavailable != nullptr ? int_or_percent_value(*unavailable) : std::optional<std::int64_t>(0);
  auto s = surge != nullptr ? int_or_percent_value(*surge) : std::optional<std::int64_t>(0);
  if (u && s && *u == 0 && *s == 0) {
    errs.push_back(invalid_error(base + ".maxUnavailable", unavailable != nullptr ? *unavailable : json::value(0),
                                 "may not be 0 when `maxSurge` is 0"));
  }
}

void validate_strategy(const json::object& spec, FieldErrors& errs) {
  const json::value* strategy = spec.if_contains("strategy");
  if (strategy == nullptr || !strategy->is_object()) return;
  const json::object& s = strategy->as_object();
  std::string_view type = string_at(s, {"type"});
  const json::value* rolling = s.if_contains("rollingUpdate");
  bool has_rolling = rolling != nullptr && !rolling->is_null();
  if (type == "Recreate") {
    if (has_rolling) {
      errs.push_back(forbidden_error("spec.strategy.rollingUpdate", "may not be specified when strategy `type` is 'Recreate'"));
    }
  } else if (type == "RollingUpdate") {
    if (!has_rolling) {
      errs.push_back(required_error("spec.strategy.rollingUpdate", "this should be defaulted and never be nil"));
    } else if (rolling->is_object()) {
      validate_rolling_update(rolling->as_object(), errs);
    }
  } else {
    errs.push_back(not_supported_error("spec.strategy.type", json::value(type), {"Recreate", "RollingUpdate"}));
  }
}

void validate_timing(const json::object& spec, FieldErrors& errs) {
  non_negative(spec, "minReadySeconds", "spec.minReadySeconds", errs);
  non_negative(spec, "revisionHistoryLimit", "spec.revisionHistoryLimit", errs);
  auto deadline = int_at(spec, {"progressDeadlineSeconds"});
  if (!deadline) return;
  non_negative(spec, "progressDeadlineSeconds", "spec.progressDeadlineSeconds", errs);
  if (*deadline <= int_at(spec, {"minReadySeconds"}).value_or(0)) {
    errs.push_back(invalid_error("spec.progressDeadlineSeconds", json::value(*deadline),
                                 "must be greater than minReadySeconds"));
  }
}

FieldErrors validate_spec(const json::object& obj) {
  FieldErrors errs;
  const json::value* spec_v = obj.if_contains("spec");
  if (spec_v == nullptr || !spec_v->is_object()) {
    errs.push_back(required_error("spec"));
    return errs;
  }
  const json::object& spec = spec_v->as_object();
  non_negative(spec, "replicas", "spec.replicas", errs);
  validate_selector(spec, errs);
  validate_template(spec, errs);
  validate_strategy(spec, errs);
  validate_timing(spec, errs);
  return errs;
}

/// ValidateDeploymentStatus.
FieldErrors validate_status(const json::object& obj) {
  FieldErrors errs;
  const json::value* status_v = obj.if_contains("status");
  if (status_v == nullptr || !status_v->is_object()) return errs;
  const json::object& status = status_v->as_object();
  for (std::string_view f : {"observedGeneration", "replicas", "updatedReplicas", "readyReplicas", "availableReplicas",
                             "unavailableReplicas", "collisionCount"}) {
    non_negative(status, f, fmt::format("status.{}", f), errs);
  }
  auto replicas = int_at(status, {"replicas"}).value_or(0);
  auto ready = int_at(status, {"readyReplicas"}).value_or(0);
  auto available = int_at(status, {"availableReplicas"}).value_or(0);
  if (ready > replicas) errs.push_back(invalid_error("status.readyReplicas", json::value(ready), "cannot be greater than status.replicas"));
  if (available > replicas) {
    errs.push_back(invalid_error("status.availableReplicas", json::value(available), "cannot be greater than status.replicas"));
  }
  if (available > ready) {
    errs.push_back(invalid_error("status.availableReplicas", json::value(available), "cannot be greater than readyReplicas"));
  }
  return errs;
}

std::string joined_containers(const json::object& obj, std::string_view field) {
  std::string out;
  const json::value* cs = at(obj, {"spec", "template", "spec", "containers"});
  if (cs == nullptr || !cs->is_array()) return out;
  for (const auto& c : cs->as_array()) {
    if (!out.empty()) out += ",";
    out += json::get_string(c, field);
  }
  return out;
}

std::string selector_text(const json::object& obj) {
  std::string out;
  const json::value* m = at(obj, {"spec", "selector", "matchLabels"});
  if (m == nullptr || !m->is_object()) return out;
  for (const auto& [k, v] : m->as_object()) {
    if (!out.empty()) out += ",";
    out += fmt::format("{}={}", std::string_view(k), v.is_string() ? std::string_view(v.get_string()) : "");
  }
  return out;
}

class DeploymentStrategy final : public BuiltinStrategy {
 public:
  DeploymentStrategy() : BuiltinStrategy("apps", "Deployment", deployment_lists()) {}

  ApiResult<json::value> decode(json::value body, const WriteContext& ctx) const override {
    if (auto st = check_field_types(body.as_object(), ctx, "", kDeploymentFields); !st) return unexpected(st.error());
    if (auto st = check_field_types(body.as_object(), ctx, "spec.template.spec", pod_spec_fields()); !st) {
      return unexpected(st.error());
    }
    auto decoded = BuiltinStrategy::decode(std::move(body), ctx);
    if (!decoded) return decoded;
    apply_defaults(decoded->as_object());
    return decoded;
  }

  void prepare_for_create(json::object& obj, const WriteContext&) const override { obj["status"] = json::object{}; }

  void prepare_for_update(json::object& obj, const json::object& old, const WriteContext& ctx) const override {
    BuiltinStrategy::prepare_for_update(obj, old, ctx);
    if (!ctx.status) return;
    // A status write keeps the labels (deploymentStatusStrategy resets metadata.labels).
    json::object& meta = metadata_of(obj);
    if (const json::value* labels = labels_of(old)) {
      meta["labels"] = *labels;
    } else {
      meta.erase("labels");
    }
  }

  FieldErrors validate(const json::object& obj, const WriteContext& ctx) const override {
    return ctx.status ? validate_status(obj) : validate_spec(obj);
  }

  FieldErrors validate_update(const json::object& obj, const json::object& old, const WriteContext& ctx) const override {
    FieldErrors errs = validate(obj, ctx);
    if (ctx.status) return errs;
    const json::value* selector = at(obj, {"spec", "selector"});
    const json::value* old_selector = at(old, {"spec", "selector"});
    bool same = selector == nullptr ? old_selector == nullptr : (old_selector != nullptr && *selector == *old_selector);
    if (!same) {
      errs.push_back(invalid_error("spec.selector", selector != nullptr ? *selector : json::value(nullptr), "field is immutable"));
    }
    return errs;
  }

  bool tracks_generation() const override { return true; }
  bool generation_changes(const json::object& obj, const json::object& old, const WriteContext&) const override {
    auto differs = [](const json::value* a, const json::value* b) {
      if (a == nullptr || b == nullptr) return a != b;
      return *a != *b;
    };
    const json::object* meta = metadata_of(obj);
    const json::object* old_meta = metadata_of(old);
    const json::value* annotations = meta != nullptr ? meta->if_contains("annotations") : nullptr;
    const json::value* old_annotations = old_meta != nullptr ? old_meta->if_contains("annotations") : nullptr;
    return differs(obj.if_contains("spec"), old.if_contains("spec")) || differs(annotations, old_annotations);
  }

  std::vector<PrinterColumn> columns(const ResourceType&) const override {
    return {{"Ready", "string", "", "Number of the pod with ready state", 0, ""},
            {"Up-to-date", "integer", "", "Total number of non-terminated pods targeted by this deployment that have the desired template spec.", 0, ""},
            {"Available", "integer", "", "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.", 0, ""},
            {"Age", "string", "", "CreationTimestamp is a timestamp representing the server time when this object was created.", 0, ""},
            {"Containers", "string", "", "Names of each container in the template.", 1, ""},
            {"Images", "string", "", "Images referenced by each container in the template.", 1, ""},
            {"Selector", "string", "", "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.", 1, ""}};
  }

  json::array cells(const json::object& obj, const ResourceType&) const override {
    std::int64_t desired = int_at(obj, {"spec", "replicas"}).value_or(0);
    std::int64_t ready = int_at(obj, {"status", "readyReplicas"}).value_or(0);
    return json::array{json::value(fmt::format("{}/{}", ready, desired)),
                       json::value(int_at(obj, {"status", "updatedReplicas"}).value_or(0)),
                       json::value(int_at(obj, {"status", "availableReplicas"}).value_or(0)),
                       json::value(age_of(obj)),
                       json::value(joined_containers(obj, "name")),
                       json::value(joined_containers(obj, "image")),
                       json::value(selector_text(obj))};
  }
};

}  // namespace

StrategyPtr make_deployment_strategy() { return std::make_shared<DeploymentStrategy>(); }

}  // namespace kueuepp::kube::server
