// core/v1 Pod: PodSpec defaults, status Pending with its QoS class on create, and
// kube-apiserver's rule that a pod's spec is immutable except images, tolerations
// (additions), activeDeadlineSeconds and the removal of scheduling gates.

#include <array>

#include <fmt/format.h>

#include "kube/apiserver/server/strategy/builtin_kinds.hpp"
#include "kube/apiserver/server/strategy/builtin_strategy.hpp"
#include "kube/apiserver/server/strategy/object_meta.hpp"
#include "kube/apiserver/server/strategy/pod_spec.hpp"

namespace kueuepp::kube::server {

namespace {

/// The spec without the fields an update may change.
json::value frozen_spec(const json::value& spec) {
  json::value copy = spec;
  json::object* s = copy.if_object();
  if (s == nullptr) return copy;
  for (std::string_view k : {"activeDeadlineSeconds", "tolerations", "schedulingGates"}) s->erase(k);
  for (std::string_view list : {"containers", "initContainers"}) {
    if (json::value* cs = s->if_contains(list); cs != nullptr && cs->is_array()) {
      for (auto& c : cs->as_array()) {
        if (c.is_object()) c.as_object().erase("image");
      }
    }
  }
  return copy;
}

class PodStrategy final : public BuiltinStrategy {
 public:
  PodStrategy() : BuiltinStrategy("", "Pod") {}

  ApiResult<json::value> decode(json::value body, const WriteContext& ctx) const override {
    static constexpr std::array kPodFields{TypedField{"spec", FieldType::Object}, TypedField{"status", FieldType::Object}};
    if (auto st = check_field_types(body.as_object(), ctx, "", kPodFields); !st) return unexpected(st.error());
    if (auto st = check_field_types(body.as_object(), ctx, "spec", pod_spec_fields()); !st) return unexpected(st.error());
    auto decoded = BuiltinStrategy::decode(std::move(body), ctx);
    if (!decoded) return decoded;
    json::object& spec = object_member(decoded->as_object(), "spec");
    default_pod_spec(spec, true);
    if (!spec.contains("enableServiceLinks")) spec["enableServiceLinks"] = true;
    return decoded;
  }

  void prepare_for_create(json::object& obj, const WriteContext&) const override {
    json::object& spec = object_member(obj, "spec");
    if (!spec.contains("priority")) spec["priority"] = 0;
    if (!spec.contains("preemptionPolicy")) spec["preemptionPolicy"] = "PreemptLowerPriority";
    obj["status"] = json::object{{"phase", "Pending"}, {"qosClass", qos_class(spec)}};
  }

  FieldErrors validate(const json::object& obj, const WriteContext& ctx) const override {
    if (ctx.status) return {};
    return validate_pod_spec(obj.if_contains("spec"), "spec");
  }

  FieldErrors validate_update(const json::object& obj, const json::object& old, const WriteContext& ctx) const override {
    FieldErrors errs = validate(obj, ctx);
    if (ctx.status) return errs;
    const json::value* spec = obj.if_contains("spec");
    const json::value* old_spec = old.if_contains("spec");
    if (spec != nullptr && old_spec != nullptr && frozen_spec(*spec) != frozen_spec(*old_spec)) {
      errs.push_back(forbidden_error(
          "spec", "pod updates may not change fields other than `spec.containers[*].image`,"
                  "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to "
                  "existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was "
                  "previously negative)"));
    }
    return errs;
  }

  std::vector<std::string> selectable_fields() const override {
    return {"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
            "status.phase",  "status.podIP",       "status.nominatedNodeName"};
  }

  std::vector<PrinterColumn> columns(const ResourceType&) const override {
    return {{"Ready", "string", "", "The aggregate readiness state of this pod for accepting traffic.", 0, ""},
            {"Status", "string", "", "The aggregate status of the containers in this pod.", 0, ""},
            {"Restarts", "string", "", "The number of times the containers in this pod have been restarted.", 0, ""},
            {"Age", "string", "", "CreationTimestamp is a timestamp representing the server time when this object was created.", 0, ""},
            {"IP", "string", "", "IP address allocated to the pod.", 1, ""},
            {"Node", "string", "", "Name of the node assigned to the pod.", 1, ""}};
  }

  json::array cells(const json::object& obj, const ResourceType&) const override {
    std::size_t total = 0;
    if (const json::value* cs = at(obj, {"spec", "containers"}); cs != nullptr && cs->is_array()) total = cs->as_array().size();
    std::size_t ready = 0;
    std::int64_t restarts = 0;
    if (const json::value* st = at(obj, {"status", "containerStatuses"}); st != nullptr && st->is_array()) {
      for (const auto& c : st->as_array()) {
        const json::value* r = json::find(c, "ready");
        if (r != nullptr && r->is_bool() && r->get_bool()) ++ready;
        if (const json::value* n = json::find(c, "restartCount"); n != nullptr && n->is_int64()) restarts += n->get_int64();
      }
    }
    const json::value* phase = at(obj, {"status", "phase"});
    const json::value* ip = at(obj, {"status", "podIP"});
    const json::value* node = at(obj, {"spec", "nodeName"});
    std::string status = phase != nullptr && phase->is_string() ? std::string(phase->get_string()) : "Unknown";
    if (!meta_string(obj, "deletionTimestamp").empty()) status = "Terminating";
    return json::array{json::value(fmt::format("{}/{}", ready, total)), json::value(status), json::value(restarts),
                       json::value(age_of(obj)), ip != nullptr ? *ip : json::value("<none>"),
                       node != nullptr ? *node : json::value("<none>")};
  }
};

}  // namespace

StrategyPtr make_pod_strategy() { return std::make_shared<PodStrategy>(); }

}  // namespace kueuepp::kube::server
