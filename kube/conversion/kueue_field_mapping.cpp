#include "kube/conversion/kueue_field_mapping.hpp"

#include <fmt/format.h>

#include <array>

#include "kube/conversion/topology_assignment_encoding.hpp"

namespace kueuepp::kube::conversion {
namespace {

constexpr std::string_view kWorkloadPriorityClassSource = "kueue.x-k8s.io/workloadpriorityclass";
constexpr std::string_view kPodPriorityClassSource = "scheduling.k8s.io/priorityclass";
constexpr std::string_view kKueueGroup = "kueue.x-k8s.io";
constexpr std::string_view kSchedulingGroup = "scheduling.k8s.io";

// The member `key` as an object to edit: nullptr when absent or null, an error when it
// is something else.
Expected<json::object*> object_member(json::object& parent, std::string_view key, const std::string& where) {
  auto* v = json::find(parent, key);
  if (v == nullptr || v->is_null()) return static_cast<json::object*>(nullptr);
  if (auto* o = v->if_object()) return o;
  return fail(fmt::format("{}.{} is {}, want an object", where, key, json::dump(*v)));
}

// The string member `key`; absent or null reads as empty, anything else is an error.
Expected<std::string> string_member(const json::object& parent, std::string_view key, const std::string& where) {
  const auto* v = json::find(parent, key);
  if (v == nullptr || v->is_null()) return std::string();
  if (const auto* s = v->if_string()) return std::string(*s);
  return fail(fmt::format("{}.{} is {}, want a string", where, key, json::dump(*v)));
}

// `from` renamed to `to`, value untouched; a null `from` goes (Go reads it as unset).
void rename_member(json::object& o, std::string_view from, std::string_view to) {
  auto* v = json::find(o, from);
  if (v == nullptr) return;
  json::value moved = std::move(*v);
  o.erase(from);
  if (moved.is_null()) return;
  o[to] = std::move(moved);
}

// spec.cohort (v1beta1) and spec.cohortName (v1beta2) carry the same name.
Status rename_string(json::object& o, std::string_view from, std::string_view to, const std::string& where) {
  auto value = string_member(o, from, where);
  if (!value) return unexpected(value.error());
  if (json::find(o, from) == nullptr) return {};
  o.erase(from);
  if (!value->empty()) o[to] = json::string(*value);
  return {};
}

void erase_in(json::object* o, std::string_view key) {
  if (o != nullptr) o->erase(key);
}

// status.fairSharing.admissionFairSharingStatus exists in v1beta1's FairSharingStatus
// only (v1beta2 keeps it on the LocalQueue's own status type).
Status drop_admission_fair_sharing_status(json::object& object, const std::string& where) {
  auto status = object_member(object, "status", where);
  if (!status) return unexpected(status.error());
  if (*status == nullptr) return {};
  auto fair = object_member(**status, "fairSharing", where + ".status");
  if (!fair) return unexpected(fair.error());
  erase_in(*fair, "admissionFairSharingStatus");
  return {};
}

Status cluster_queue_to_v1beta2(json::object& object, const std::string& where) {
  auto spec = object_member(object, "spec", where);
  if (!spec) return unexpected(spec.error());
  if (*spec != nullptr) {
    auto& s = **spec;
    if (auto st = rename_string(s, "cohort", "cohortName", where + ".spec"); !st) return st;
    if (const auto* checks = json::find(s, "admissionChecks")) {
      if (!checks->is_null() && !checks->is_array()) return fail(fmt::format("{}.spec.admissionChecks is {}, want a list of names", where, json::dump(*checks)));
      json::array rules;
      if (const auto* list = checks->if_array()) {
        for (const auto& name : *list) {
          if (!name.is_string()) return fail(fmt::format("{}.spec.admissionChecks holds {}, want names", where, json::dump(name)));
          rules.emplace_back(json::object{{"name", name}});
        }
      }
      s.erase("admissionChecks");
      if (!rules.empty()) s["admissionChecksStrategy"] = json::object{{"admissionChecks", std::move(rules)}};
    }
    auto fungibility = object_member(s, "flavorFungibility", where + ".spec");
    if (!fungibility) return unexpected(fungibility.error());
    if (*fungibility != nullptr) {
      auto& f = **fungibility;
      if (json::get_string(f, "whenCanPreempt") == "Preempt") f["whenCanPreempt"] = "MayStopSearch";
      if (json::get_string(f, "whenCanBorrow") == "Borrow") f["whenCanBorrow"] = "MayStopSearch";
    }
  }
  auto status = object_member(object, "status", where);
  if (!status) return unexpected(status.error());
  erase_in(*status, "pendingWorkloadsStatus");
  return drop_admission_fair_sharing_status(object, where);
}

Status cluster_queue_to_v1beta1(json::object& object, const std::string& where) {
  auto spec = object_member(object, "spec", where);
  if (!spec) return unexpected(spec.error());
  if (*spec == nullptr) return {};
  if (auto st = rename_string(**spec, "cohortName", "cohort", where + ".spec"); !st) return st;
  (*spec)->erase("concurrentAdmissionPolicy");
  return {};
}

Status local_queue_rename_usage(json::object& object, std::string_view from, std::string_view to, bool drop_flavors, const std::string& where) {
  auto status = object_member(object, "status", where);
  if (!status) return unexpected(status.error());
  if (*status == nullptr) return {};
  rename_member(**status, from, to);
  if (drop_flavors) (*status)->erase("flavors");
  return {};
}

// Each pod set assignment's topologyAssignment, re-encoded.
Status convert_topology_assignments(json::object& object, bool to_slices, const std::string& where) {
  auto status = object_member(object, "status", where);
  if (!status || *status == nullptr) return status ? Status{} : Status{unexpected(status.error())};
  auto admission = object_member(**status, "admission", where + ".status");
  if (!admission || *admission == nullptr) return admission ? Status{} : Status{unexpected(admission.error())};
  auto* assignments = json::find(**admission, "podSetAssignments");
  if (assignments == nullptr || assignments->is_null()) return {};
  auto* list = assignments->if_array();
  if (list == nullptr) return fail(where + ".status.admission.podSetAssignments is not a list");
  for (std::size_t i = 0; i < list->size(); ++i) {
    const auto at = fmt::format("{}.status.admission.podSetAssignments[{}]", where, i);
    auto* assignment = (*list)[i].if_object();
    if (assignment == nullptr) return fail(at + " is not an object");
    auto topology = object_member(*assignment, "topologyAssignment", at);
    if (!topology) return unexpected(topology.error());
    if (*topology == nullptr) continue;
    auto converted = to_slices ? encode_topology_slices(**topology, at + ".topologyAssignment")
                               : decode_topology_slices(**topology, at + ".topologyAssignment");
    if (!converted) return unexpected(converted.error());
    **topology = std::move(*converted);
  }
  return {};
}

Status workload_to_v1beta2(json::object& object, const std::string& where) {
  auto spec = object_member(object, "spec", where);
  if (!spec) return unexpected(spec.error());
  if (*spec != nullptr) {
    auto& s = **spec;
    auto source = string_member(s, "priorityClassSource", where + ".spec");
    if (!source) return unexpected(source.error());
    auto name = string_member(s, "priorityClassName", where + ".spec");
    if (!name) return unexpected(name.error());
    s.erase("priorityClassSource");
    s.erase("priorityClassName");
    if (*source == kWorkloadPriorityClassSource) {
      s["priorityClassRef"] = json::object{{"group", kKueueGroup}, {"kind", "WorkloadPriorityClass"}, {"name", *name}};
    } else if (*source == kPodPriorityClassSource) {
      s["priorityClassRef"] = json::object{{"group", kSchedulingGroup}, {"kind", "PriorityClass"}, {"name", *name}};
    }
  }
  auto status = object_member(object, "status", where);
  if (!status) return unexpected(status.error());
  if (*status != nullptr) rename_member(**status, "accumulatedPastExexcutionTimeSeconds", "accumulatedPastExecutionTimeSeconds");
  return convert_topology_assignments(object, true, where);
}

Status drop_slice_topology_constraints(json::object& spec, const std::string& where) {
  auto* pod_sets = json::find(spec, "podSets");
  if (pod_sets == nullptr || pod_sets->is_null()) return {};
  auto* list = pod_sets->if_array();
  if (list == nullptr) return fail(where + ".spec.podSets is not a list");
  for (std::size_t i = 0; i < list->size(); ++i) {
    auto* pod_set = (*list)[i].if_object();
    if (pod_set == nullptr) return fail(fmt::format("{}.spec.podSets[{}] is not an object", where, i));
    auto request = object_member(*pod_set, "topologyRequest", fmt::format("{}.spec.podSets[{}]", where, i));
    if (!request) return unexpected(request.error());
    erase_in(*request, "podsetSliceRequiredTopologyConstraints");
  }
  return {};
}

Status workload_to_v1beta1(json::object& object, const std::string& where) {
  auto spec = object_member(object, "spec", where);
  if (!spec) return unexpected(spec.error());
  if (*spec != nullptr) {
    auto& s = **spec;
    auto ref = object_member(s, "priorityClassRef", where + ".spec");
    if (!ref) return unexpected(ref.error());
    if (*ref != nullptr) {
      const auto group = json::get_string(**ref, "group");
      const auto kind = json::get_string(**ref, "kind");
      auto name = string_member(**ref, "name", where + ".spec.priorityClassRef");
      if (!name) return unexpected(name.error());
      if (group == kKueueGroup && kind == "WorkloadPriorityClass") {
        s["priorityClassSource"] = kWorkloadPriorityClassSource;
        s["priorityClassName"] = json::string(*name);
      } else if (group == kSchedulingGroup && kind == "PriorityClass") {
        s["priorityClassSource"] = kPodPriorityClassSource;
        s["priorityClassName"] = json::string(*name);
      }
      s.erase("priorityClassRef");
    }
    s.erase("preemptionGates");
    if (auto st = drop_slice_topology_constraints(s, where); !st) return st;
  }
  auto status = object_member(object, "status", where);
  if (!status) return unexpected(status.error());
  if (*status != nullptr) {
    rename_member(**status, "accumulatedPastExecutionTimeSeconds", "accumulatedPastExexcutionTimeSeconds");
    (*status)->erase("preemptionGates");
  }
  return convert_topology_assignments(object, false, where);
}

Status admission_check_to_v1beta2(json::object& object, const std::string& where) {
  auto spec = object_member(object, "spec", where);
  if (!spec) return unexpected(spec.error());
  erase_in(*spec, "retryDelayMinutes");
  return {};
}

}  // namespace

bool is_converted_kind(std::string_view kind) {
  static constexpr std::array<std::string_view, 7> kKinds{"ResourceFlavor", "ClusterQueue", "LocalQueue", "Cohort",
                                                          "Workload", "WorkloadPriorityClass", "AdmissionCheck"};
  for (const auto k : kKinds) {
    if (k == kind) return true;
  }
  return false;
}

Status map_to_v1beta2(json::object& object, std::string_view kind) {
  const std::string object_name;
  if (kind == "ClusterQueue") return cluster_queue_to_v1beta2(object, object_name);
  if (kind == "Cohort") return drop_admission_fair_sharing_status(object, object_name);
  if (kind == "LocalQueue") return local_queue_rename_usage(object, "flavorUsage", "flavorsUsage", true, object_name);
  if (kind == "Workload") return workload_to_v1beta2(object, object_name);
  if (kind == "AdmissionCheck") return admission_check_to_v1beta2(object, object_name);
  return {};
}

Status map_to_v1beta1(json::object& object, std::string_view kind) {
  const std::string object_name;
  if (kind == "ClusterQueue") return cluster_queue_to_v1beta1(object, object_name);
  if (kind == "LocalQueue") return local_queue_rename_usage(object, "flavorsUsage", "flavorUsage", false, object_name);
  if (kind == "Workload") return workload_to_v1beta1(object, object_name);
  return {};
}

}  // namespace kueuepp::kube::conversion
