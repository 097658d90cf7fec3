// kueue.x-k8s.io objects (v1beta2, and the v1beta1 spellings Kueue still serves).

#include <charconv>
#include <cmath>

#include "kube/objects/decoders.hpp"
#include "kube/objects/field_reader.hpp"

namespace kueuepp::kube {

using json::JsonNode;

std::vector<core::Toleration> decode_tolerations(FieldReader& r, JsonNode v, const FieldPath& path);
std::vector<core::Taint> decode_taints(FieldReader& r, JsonNode v, const FieldPath& path);

namespace {

std::string required_name(FieldReader& r, JsonNode obj) {
  std::string name = r.string(FieldReader::get(FieldReader::get(obj, "metadata"), "name"), "metadata.name");
  if (name.empty() && !r.failed()) r.fail("metadata.name", "Required value: name is required");
  return name;
}
std::string required_name(FieldReader& r, const json::value& obj) { return required_name(r, JsonNode(&obj)); }

std::vector<core::ResourceGroup> resource_groups(FieldReader& r, const json::value* v, const FieldPath& path) {
  std::vector<core::ResourceGroup> out;
  const json::array* groups = r.array(v, path);
  if (groups == nullptr) return out;
  for (std::size_t g = 0; g < groups->size(); ++g) {
    const json::value& rg = (*groups)[g];
    const FieldPath gp = sub(path, g);
    core::ResourceGroup group;
    group.covered_resources = r.strings(FieldReader::get(&rg, "coveredResources"), sub(gp, "coveredResources"));
    const FieldPath fp = sub(gp, "flavors");
    if (const json::array* flavors = r.array(FieldReader::get(&rg, "flavors"), fp)) {
      for (std::size_t f = 0; f < flavors->size(); ++f) {
        const json::value& fv = (*flavors)[f];
        const FieldPath p = sub(fp, f);
        core::FlavorQuotas fq;
        fq.name = r.string(FieldReader::get(&fv, "name"), sub(p, "name"));
        if (fq.name.empty() && !r.failed()) r.fail(sub(p, "name"), "Required value");
        const FieldPath rp = sub(p, "resources");
        if (const json::array* res = r.array(FieldReader::get(&fv, "resources"), rp)) {
          for (std::size_t i = 0; i < res->size(); ++i) {
            const json::value& q = (*res)[i];
            const FieldPath qp = sub(rp, i);
            core::ResourceQuota quota;
            quota.name = r.string(FieldReader::get(&q, "name"), sub(qp, "name"));
            auto nominal = r.quantity(FieldReader::get(&q, "nominalQuota"), sub(qp, "nominalQuota"));
            if (!nominal && !r.failed()) r.fail(sub(qp, "nominalQuota"), "Required value");
            quota.nominal = nominal.value_or(core::Quantity{});
            if (quota.nominal.milli() < 0) r.fail(sub(qp, "nominalQuota"), "must be greater than or equal to 0");
            quota.borrowing_limit = r.quantity(FieldReader::get(&q, "borrowingLimit"), sub(qp, "borrowingLimit"));
            quota.lending_limit = r.quantity(FieldReader::get(&q, "lendingLimit"), sub(qp, "lendingLimit"));
            if (quota.borrowing_limit && quota.borrowing_limit->milli() < 0) {
              r.fail(sub(qp, "borrowingLimit"), "must be greater than or equal to 0");
            }
            if (quota.lending_limit && quota.lending_limit->milli() < 0) {
              r.fail(sub(qp, "lendingLimit"), "must be greater than or equal to 0");
            }
            fq.resources.push_back(std::move(quota));
          }
        }
        group.flavors.push_back(std::move(fq));
      }
    }
    for (const auto& fq : group.flavors) {
      if (fq.resources.size() != group.covered_resources.size()) {
        r.fail(gp, "flavor " + fq.name + " must list every covered resource (" +
                       std::to_string(group.covered_resources.size()) + "), it lists " +
                       std::to_string(fq.resources.size()));
        break;
      }
      for (std::size_t i = 0; i < fq.resources.size(); ++i) {
        if (fq.resources[i].name != group.covered_resources[i]) {
          r.fail(gp, "flavor " + fq.name + " must list the covered resources in order: expected " +
                         group.covered_resources[i] + ", got " + fq.resources[i].name);
          break;
        }
      }
    }
    out.push_back(std::move(group));
  }
  return out;
}

double fair_weight(FieldReader& r, const json::value* spec, const FieldPath& path) {
  const json::value* fs = FieldReader::get(spec, "fairSharing");
  auto q = r.quantity(FieldReader::get(fs, "weight"), sub(path, "fairSharing.weight"));
  if (!q) return 1.0;
  return static_cast<double>(q->milli()) / 1000.0;
}

core::StopPolicy stop_policy(FieldReader& r, const json::value* spec, const FieldPath& path) {
  std::string s = r.enumeration(FieldReader::get(spec, "stopPolicy"), sub(path, "stopPolicy"),
                                {"None", "Hold", "HoldAndDrain"}, "None");
  if (s == "Hold") return core::StopPolicy::Hold;
  if (s == "HoldAndDrain") return core::StopPolicy::HoldAndDrain;
  return core::StopPolicy::None;
}

core::PreemptionPolicy preemption_policy(FieldReader& r, const json::value* v, const FieldPath& path,
                                         bool allow_any) {
  std::string s = allow_any ? r.enumeration(v, path, {"Never", "LowerPriority", "Any"}, "Never")
                            : r.enumeration(v, path, {"Never", "LowerPriority", "LowerOrNewerEqualPriority"}, "Never");
  if (s == "LowerPriority") return core::PreemptionPolicy::LowerPriority;
  if (s == "LowerOrNewerEqualPriority") return core::PreemptionPolicy::LowerOrNewerEqualPriority;
  if (s == "Any") return core::PreemptionPolicy::Any;
  return core::PreemptionPolicy::Never;
}

core::FungibilityPolicy fungibility(FieldReader& r, const json::value* v, const FieldPath& path,
                                    std::string_view legacy_stop, core::FungibilityPolicy fallback) {
  std::string s = r.enumeration(v, path, {"MayStopSearch", "TryNextFlavor", legacy_stop}, "");
  if (s.empty()) return fallback;
  return s == "TryNextFlavor" ? core::FungibilityPolicy::TryNextFlavor : core::FungibilityPolicy::MayStopSearch;
}

std::vector<core::Condition> conditions(FieldReader& r, JsonNode v, const FieldPath& path) {
  std::vector<core::Condition> out;
  r.array(v, path).for_each_element([&](std::size_t i, JsonNode c) {
    const FieldPath p = sub(path, i);
    core::Condition cond;
    cond.type = r.string(FieldReader::get(c, "type"), sub(p, "type"));
    cond.status = r.string(FieldReader::get(c, "status"), sub(p, "status")) == "True";
    cond.reason = r.string(FieldReader::get(c, "reason"), sub(p, "reason"));
    cond.message = r.string(FieldReader::get(c, "message"), sub(p, "message"));
    cond.last_transition =
        r.time(FieldReader::get(c, "lastTransitionTime"), sub(p, "lastTransitionTime")).value_or(core::Time{});
    out.push_back(std::move(cond));
  });
  return out;
}

}  // namespace

Expected<core::ResourceFlavor> decode_resource_flavor(const json::value& obj) {
  FieldReader r(describe_object("ResourceFlavor", obj));
  core::ResourceFlavor rf;
  rf.name = required_name(r, obj);
  const json::value* spec = FieldReader::get(&obj, "spec");
  rf.node_labels = r.string_map(FieldReader::get(spec, "nodeLabels"), "spec.nodeLabels");
  rf.node_taints = decode_taints(r, FieldReader::get(spec, "nodeTaints"), "spec.nodeTaints");
  rf.tolerations = decode_tolerations(r, FieldReader::get(spec, "tolerations"), "spec.tolerations");
  if (const json::value* t = FieldReader::get(spec, "topologyName")) rf.topology_name = r.string(t, "spec.topologyName");
  if (r.failed()) return unexpected(r.error());
  return rf;
}

Expected<core::ClusterQueue> decode_cluster_queue(const json::value& obj) {
  FieldReader r(describe_object("ClusterQueue", obj));
  core::ClusterQueue cq;
  cq.name = required_name(r, obj);
  const json::value* meta = FieldReader::get(&obj, "metadata");
  cq.terminating = FieldReader::get(meta, "deletionTimestamp") != nullptr;
  const json::value* spec = FieldReader::get(&obj, "spec");
  for (auto [field, feature] : {std::pair{"admissionScope", "admission fair sharing"},
                                std::pair{"concurrentAdmissionPolicy", "concurrent admission"}}) {
    if (const json::value* v = FieldReader::get(spec, field); v != nullptr && !v->is_null()) {
      cq.unsupported.push_back(std::string("sets spec.") + field + ", and kueuepp does not implement " + feature);
    }
  }
  cq.cohort = r.string(FieldReader::get(spec, "cohortName"), "spec.cohortName");
  if (cq.cohort.empty()) cq.cohort = r.string(FieldReader::get(spec, "cohort"), "spec.cohort");
  cq.resource_groups = resource_groups(r, FieldReader::get(spec, "resourceGroups"), "spec.resourceGroups");
  cq.namespace_selector = r.label_selector(FieldReader::get(spec, "namespaceSelector"), "spec.namespaceSelector");
  std::string strategy = r.enumeration(FieldReader::get(spec, "queueingStrategy"), "spec.queueingStrategy",
                                       {"BestEffortFIFO", "StrictFIFO"}, "BestEffortFIFO");
  cq.queueing_strategy = strategy == "StrictFIFO" ? core::QueueingStrategy::StrictFIFO
                                                  : core::QueueingStrategy::BestEffortFIFO;
  const json::value* pre = FieldReader::get(spec, "preemption");
  cq.preemption.within_cluster_queue =
      preemption_policy(r, FieldReader::get(pre, "withinClusterQueue"), "spec.preemption.withinClusterQueue", false);
  cq.preemption.reclaim_within_cohort =
      preemption_policy(r, FieldReader::get(pre, "reclaimWithinCohort"), "spec.preemption.reclaimWithinCohort", true);
  if (const json::value* bwc = FieldReader::get(pre, "borrowWithinCohort")) {
    core::BorrowWithinCohort b;
    b.lower_priority = r.enumeration(FieldReader::get(bwc, "policy"), "spec.preemption.borrowWithinCohort.policy",
                                     {"Never", "LowerPriority"}, "Never") == "LowerPriority";
    if (auto t = r.integer(FieldReader::get(bwc, "maxPriorityThreshold"),
                           "spec.preemption.borrowWithinCohort.maxPriorityThreshold")) {
      b.max_priority_threshold = static_cast<std::int32_t>(*t);
    }
    cq.preemption.borrow_within_cohort = b;
    if (b.lower_priority && cq.preemption.reclaim_within_cohort == core::PreemptionPolicy::Never) {
      r.fail("spec.preemption", "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never");
    }
  }
  const json::value* fung = FieldReader::get(spec, "flavorFungibility");
  cq.flavor_fungibility.when_can_borrow = fungibility(r, FieldReader::get(fung, "whenCanBorrow"),
                                                      "spec.flavorFungibility.whenCanBorrow", "Borrow",
                                                      core::FungibilityPolicy::MayStopSearch);
  cq.flavor_fungibility.when_can_preempt = fungibility(r, FieldReader::get(fung, "whenCanPreempt"),
                                                       "spec.flavorFungibility.whenCanPreempt", "Preempt",
                                                       core::FungibilityPolicy::TryNextFlavor);
  std::string pref = r.enumeration(FieldReader::get(fung, "preference"), "spec.flavorFungibility.preference",
                                   {"BorrowingOverPreemption", "PreemptionOverBorrowing"}, "");
  if (pref == "BorrowingOverPreemption") cq.flavor_fungibility.preference = core::FungibilityPreference::BorrowingOverPreemption;
  if (pref == "PreemptionOverBorrowing") cq.flavor_fungibility.preference = core::FungibilityPreference::PreemptionOverBorrowing;
  cq.fair_weight = fair_weight(r, spec, "spec");
  cq.stop_policy = stop_policy(r, spec, "spec");

  const json::value* strategy_obj = FieldReader::get(spec, "admissionChecksStrategy");
  const FieldPath checks_path = "spec.admissionChecksStrategy.admissionChecks";
  if (const json::array* checks = r.array(FieldReader::get(strategy_obj, "admissionChecks"), checks_path)) {
    for (std::size_t i = 0; i < checks->size(); ++i) {
      const FieldPath p = sub(checks_path, i);
      core::ClusterQueue::AdmissionCheckRef ref;
      ref.name = r.string(FieldReader::get(&(*checks)[i], "name"), sub(p, "name"));
      ref.on_flavors = r.strings(FieldReader::get(&(*checks)[i], "onFlavors"), sub(p, "onFlavors"));
      cq.admission_checks.push_back(std::move(ref));
    }
  }
  for (const auto& name : r.strings(FieldReader::get(spec, "admissionChecks"), "spec.admissionChecks")) {
    cq.admission_checks.push_back({name, {}});
  }
  // Kueue's own validation of limits: only with a cohort; lendingLimit <= nominal.
  const FieldPath groups_path = "spec.resourceGroups";
  for (std::size_t g = 0; g < cq.resource_groups.size(); ++g) {
    for (const auto& f : cq.resource_groups[g].flavors) {
      for (const auto& q : f.resources) {
        if (q.borrowing_limit && cq.cohort.empty()) {
          r.fail(sub(groups_path, g),
                 "borrowingLimit for " + q.name + " in flavor " + f.name + " must be nil when cohortName is empty");
        }
        if (q.lending_limit && cq.cohort.empty()) {
          r.fail(sub(groups_path, g),
                 "lendingLimit for " + q.name + " in flavor " + f.name + " must be nil when cohortName is empty");
        }
        if (q.lending_limit && q.lending_limit->milli() > q.nominal.milli()) {
          r.fail(sub(groups_path, g),
                 "lendingLimit for " + q.name + " in flavor " + f.name + " must be less than or equal to nominalQuota");
        }
      }
    }
  }
  if (r.failed()) return unexpected(r.error());
  return cq;
}

Expected<core::Cohort> decode_cohort(const json::value& obj) {
  FieldReader r(describe_object("Cohort", obj));
  core::Cohort c;
  c.name = required_name(r, obj);
  const json::value* spec = FieldReader::get(&obj, "spec");
  c.parent = r.string(FieldReader::get(spec, "parentName"), "spec.parentName");
  if (c.parent.empty()) c.parent = r.string(FieldReader::get(spec, "parent"), "spec.parent");
  c.resource_groups = resource_groups(r, FieldReader::get(spec, "resourceGroups"), "spec.resourceGroups");
  c.fair_weight = fair_weight(r, spec, "spec");
  if (c.parent == c.name && !c.name.empty()) r.fail("spec.parentName", "a Cohort cannot be its own parent");
  if (r.failed()) return unexpected(r.error());
  return c;
}

Expected<core::LocalQueue> decode_local_queue(const json::value& obj) {
  FieldReader r(describe_object("LocalQueue", obj));
  core::LocalQueue lq;
  lq.name = required_name(r, obj);
  lq.ns = r.string(FieldReader::get(FieldReader::get(&obj, "metadata"), "namespace"), "metadata.namespace", "default");
  const json::value* spec = FieldReader::get(&obj, "spec");
  lq.cluster_queue = r.string(FieldReader::get(spec, "clusterQueue"), "spec.clusterQueue");
  if (lq.cluster_queue.empty() && !r.failed()) r.fail("spec.clusterQueue", "Required value");
  lq.stop_policy = stop_policy(r, spec, "spec");
  lq.fair_weight = fair_weight(r, spec, "spec");
  if (r.failed()) return unexpected(r.error());
  return lq;
}

Expected<core::WorkloadPriorityClass> decode_workload_priority_class(const json::value& obj) {
  FieldReader r(describe_object("WorkloadPriorityClass", obj));
  core::WorkloadPriorityClass wpc;
  wpc.name = required_name(r, obj);
  auto v = r.integer(FieldReader::get(&obj, "value"), "value");
  if (!v && !r.failed()) r.fail("value", "Required value");
  if (v && (*v < INT32_MIN || *v > INT32_MAX)) r.fail("value", "must fit in a 32-bit integer");
  wpc.value = static_cast<std::int32_t>(v.value_or(0));
  if (r.failed()) return unexpected(r.error());
  return wpc;
}

Expected<core::AdmissionCheck> decode_admission_check(const json::value& obj) {
  FieldReader r(describe_object("AdmissionCheck", obj));
  core::AdmissionCheck ac;
  ac.name = required_name(r, obj);
  ac.controller_name = r.string(FieldReader::get(FieldReader::get(&obj, "spec"), "controllerName"), "spec.controllerName");
  for (const auto& c : conditions(r, FieldReader::get(FieldReader::get(&obj, "status"), "conditions"), "status.conditions")) {
    if (c.type == "Active") ac.active = c.status;
  }
  if (r.failed()) return unexpected(r.error());
  return ac;
}

namespace {

/// metadata.annotations' admission gates: kueue.x-k8s.io/admission-gated-by, comma-separated.
std::vector<std::string> admission_gates(const std::string& gates) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= gates.size()) {
    std::size_t end = gates.find(',', start);
    std::string g = gates.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!g.empty()) out.push_back(g);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

std::optional<core::PriorityClassRef> priority_class_ref(FieldReader& r, JsonNode spec) {
  if (const JsonNode ref = FieldReader::get(spec, "priorityClassRef")) {
    core::PriorityClassRef pcr;
    std::string kind = r.string(FieldReader::get(ref, "kind"), "spec.priorityClassRef.kind");
    pcr.kind = kind == "PriorityClass" ? core::PriorityClassRef::Kind::PriorityClass
                                       : core::PriorityClassRef::Kind::WorkloadPriorityClass;
    pcr.name = r.string(FieldReader::get(ref, "name"), "spec.priorityClassRef.name");
    return pcr;
  }
  if (const JsonNode name = FieldReader::get(spec, "priorityClassName")) {
    core::PriorityClassRef pcr;
    pcr.name = r.string(name, "spec.priorityClassName");
    std::string source = r.string(FieldReader::get(spec, "priorityClassSource"), "spec.priorityClassSource");
    pcr.kind = source == "kueue.x-k8s.io/workloadpriorityclass" ? core::PriorityClassRef::Kind::WorkloadPriorityClass
                                                                : core::PriorityClassRef::Kind::PriorityClass;
    return pcr;
  }
  return std::nullopt;
}

/// A pod set's request for topology-aware scheduling, which kueuepp does not implement:
/// its topologyRequest, or the pod template annotations Kueue derives one from.
std::optional<std::string> topology_request(JsonNode ps) {
  const std::string tail = "), and kueuepp does not implement topology-aware scheduling";
  const JsonNode annotations =
      FieldReader::get(FieldReader::get(FieldReader::get(ps, "template"), "metadata"), "annotations");
  for (const char* key : {"kueue.x-k8s.io/podset-required-topology", "kueue.x-k8s.io/podset-preferred-topology",
                          "kueue.x-k8s.io/podset-unconstrained-topology",
                          "kueue.x-k8s.io/podset-slice-required-topology"}) {
    if (FieldReader::get(annotations, key)) return std::string("requests a topology (annotation ") + key + tail;
  }
  // Kueue's Job builder always fills podIndexLabel; only these ask for a placement.
  const JsonNode request = FieldReader::get(ps, "topologyRequest");
  for (const char* key : {"required", "preferred", "unconstrained", "podSetSliceRequiredTopology"}) {
    const JsonNode v = FieldReader::get(request, key);
    if (v && !v.is_null()) return std::string("requests a topology (topologyRequest.") + key + tail;
  }
  return std::nullopt;
}

std::vector<core::PodSet> pod_sets(FieldReader& r, JsonNode spec) {
  std::vector<core::PodSet> out;
  const FieldPath psp = "spec.podSets";
  const JsonNode podsets = r.array(FieldReader::get(spec, "podSets"), psp);
  if (!podsets) {
    if (!r.failed()) r.fail(psp, "Required value");
    return out;
  }
  if (podsets.size() == 0) r.fail(psp, "Required value: at least one pod set");
  podsets.for_each_element([&](std::size_t i, JsonNode ps) {
    const FieldPath p = sub(psp, i);
    core::PodSet podset = decode_pod_template(r, FieldReader::get(ps, "template"), sub(p, "template"));
    podset.name = r.string(FieldReader::get(ps, "name"), sub(p, "name"), "main");
    auto count = r.integer(FieldReader::get(ps, "count"), sub(p, "count"));
    podset.count = static_cast<std::int32_t>(count.value_or(1));
    if (count && (*count < 0 || *count > INT32_MAX)) r.fail(sub(p, "count"), "must be between 0 and 2147483647");
    if (auto m = r.integer(FieldReader::get(ps, "minCount"), sub(p, "minCount"))) {
      podset.min_count = static_cast<std::int32_t>(*m);
    }
    podset.unsupported = topology_request(ps);
    out.push_back(std::move(podset));
  });
  return out;
}

core::Admission admission(FieldReader& r, JsonNode adm) {
  core::Admission a;
  a.cluster_queue = r.string(FieldReader::get(adm, "clusterQueue"), "status.admission.clusterQueue");
  const FieldPath ap = "status.admission.podSetAssignments";
  r.array(FieldReader::get(adm, "podSetAssignments"), ap).for_each_element([&](std::size_t i, JsonNode psa) {
    const FieldPath p = sub(ap, i);
    core::PodSetAssignment out;
    out.name = r.string(FieldReader::get(psa, "name"), sub(p, "name"));
    for (const auto& [res, flavor] : r.string_map(FieldReader::get(psa, "flavors"), sub(p, "flavors"))) {
      out.flavors[res] = flavor;
    }
    const FieldPath up = sub(p, "resourceUsage");
    r.object(FieldReader::get(psa, "resourceUsage"), up).for_each_member([&](std::string_view key, JsonNode v) {
      std::string res(key);
      if (auto q = r.quantity(v, sub(up, res))) out.resource_usage[res] = *q;
    });
    if (auto c = r.integer(FieldReader::get(psa, "count"), sub(p, "count"))) {
      out.count = static_cast<std::int32_t>(*c);
    }
    a.pod_set_assignments.push_back(std::move(out));
  });
  return a;
}

std::vector<core::AdmissionCheckState> admission_checks(FieldReader& r, JsonNode status) {
  std::vector<core::AdmissionCheckState> out;
  const FieldPath acp = "status.admissionChecks";
  r.array(FieldReader::get(status, "admissionChecks"), acp).for_each_element([&](std::size_t i, JsonNode check) {
    const FieldPath p = sub(acp, i);
    core::AdmissionCheckState state_of;
    state_of.name = r.string(FieldReader::get(check, "name"), sub(p, "name"));
    if (state_of.name.empty() && !r.failed()) r.fail(sub(p, "name"), "Required value");
    std::string state =
        r.enumeration(FieldReader::get(check, "state"), sub(p, "state"), {"Pending", "Ready", "Retry", "Rejected"}, "");
    if (state.empty() && !r.failed()) r.fail(sub(p, "state"), "Required value");
    if (state == "Ready") state_of.state = core::CheckState::Ready;
    if (state == "Retry") state_of.state = core::CheckState::Retry;
    if (state == "Rejected") state_of.state = core::CheckState::Rejected;
    state_of.last_transition =
        r.time(FieldReader::get(check, "lastTransitionTime"), sub(p, "lastTransitionTime")).value_or(core::Time{});
    state_of.message = r.string(FieldReader::get(check, "message"), sub(p, "message"));
    if (auto after = r.integer(FieldReader::get(check, "requeueAfterSeconds"), sub(p, "requeueAfterSeconds"))) {
      if (*after < 0 || *after > INT32_MAX) r.fail(sub(p, "requeueAfterSeconds"), "must be between 0 and 2147483647");
      state_of.requeue_after_seconds = static_cast<std::int32_t>(*after);
    }
    if (auto n = r.integer(FieldReader::get(check, "retryCount"), sub(p, "retryCount"))) {
      if (*n < 0 || *n > INT32_MAX) r.fail(sub(p, "retryCount"), "must be between 0 and 2147483647");
      state_of.retry_count = static_cast<std::int32_t>(*n);
    }
    out.push_back(std::move(state_of));
  });
  return out;
}

}  // namespace

Expected<core::Workload> decode_workload(JsonNode obj) {
  FieldReader r(describe_object("Workload", obj));
  core::Workload wl;
  wl.name = required_name(r, obj);
  const JsonNode meta = FieldReader::get(obj, "metadata");
  wl.ns = r.string(FieldReader::get(meta, "namespace"), "metadata.namespace", "default");
  wl.uid = r.string(FieldReader::get(meta, "uid"), "metadata.uid");
  wl.creation = r.time(FieldReader::get(meta, "creationTimestamp"), "metadata.creationTimestamp").value_or(core::Time{});
  wl.labels = r.string_map(FieldReader::get(meta, "labels"), "metadata.labels");
  core::Labels annotations = r.string_map(FieldReader::get(meta, "annotations"), "metadata.annotations");
  if (auto it = annotations.find("kueue.x-k8s.io/priority-boost"); it != annotations.end()) {
    std::int32_t boost = 0;
    auto [p, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), boost);
    if (ec != std::errc() || p != it->second.data() + it->second.size()) {
      r.fail("metadata.annotations[kueue.x-k8s.io/priority-boost]", "must be a 32-bit integer");
    }
    wl.priority_boost = boost;
  }
  if (auto it = annotations.find("kueue.x-k8s.io/admission-gated-by"); it != annotations.end()) {
    wl.admission_gates = admission_gates(it->second);
  }

  const JsonNode spec = FieldReader::get(obj, "spec");
  wl.queue_name = r.string(FieldReader::get(spec, "queueName"), "spec.queueName");
  if (auto p = r.integer(FieldReader::get(spec, "priority"), "spec.priority")) {
    wl.priority = static_cast<std::int32_t>(*p);
  }
  wl.priority_class_ref = priority_class_ref(r, spec);
  if (auto a = r.boolean(FieldReader::get(spec, "active"), "spec.active")) wl.active = *a;
  wl.pod_sets = pod_sets(r, spec);

  const JsonNode status = FieldReader::get(obj, "status");
  wl.conditions = conditions(r, FieldReader::get(status, "conditions"), "status.conditions");
  if (const JsonNode adm = FieldReader::get(status, "admission")) wl.admission = admission(r, adm);
  wl.admission_checks = admission_checks(r, status);
  if (const JsonNode rs = FieldReader::get(status, "requeueState")) {
    wl.requeue_at = r.time(FieldReader::get(rs, "requeueAt"), "status.requeueState.requeueAt");
    wl.requeue_count =
        static_cast<std::int32_t>(r.integer(FieldReader::get(rs, "count"), "status.requeueState.count").value_or(0));
  }
  if (r.failed()) return unexpected(r.error());
  return wl;
}

Expected<core::Workload> decode_workload(const json::value& obj) { return decode_workload(JsonNode(&obj)); }

Expected<core::Workload> decode_workload_text(std::string_view text) {
  thread_local json::JsonText parsed;
  auto root = parsed.parse(text);
  if (!root) return fail("Workload: " + root.error().message);
  return decode_workload(*root);
}

}  // namespace kueuepp::kube
