#pragma once

// Builders for the engine tests: the queue and workload shapes most tests need (one
// resource, cpu), so that each test states only what it is about.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/engine/engine.hpp"

namespace kueuepp::core::testing {

/// A flavor's quota of `units` CPUs.
inline FlavorQuotas cpu_quota(const std::string& flavor, int units) {
  FlavorQuotas fq;
  fq.name = flavor;
  ResourceQuota q;
  q.name = "cpu";
  q.nominal = Quantity::from_units(units);
  fq.resources.push_back(q);
  return fq;
}

/// ClusterQueue `name` open to every namespace, one resource group covering cpu with
/// the given flavor quotas, in that order.
inline ClusterQueue cpu_cluster_queue(const std::string& name, std::vector<FlavorQuotas> flavors) {
  ClusterQueue cq;
  cq.name = name;
  cq.namespace_selector = LabelSelector{};
  ResourceGroup rg;
  rg.covered_resources = {"cpu"};
  rg.flavors = std::move(flavors);
  cq.resource_groups.push_back(std::move(rg));
  return cq;
}

/// Workload `ns`/`name` in LocalQueue `queue`: one pod asking for `cpu` CPUs.
inline Workload cpu_workload(const std::string& name, int cpu, std::int32_t priority, int created_seconds,
                             const std::string& queue, const std::string& ns = "default") {
  Workload wl;
  wl.ns = ns;
  wl.name = name;
  wl.uid = "uid-" + name;
  wl.creation = time_from_seconds(created_seconds);
  wl.queue_name = queue;
  wl.priority = priority;
  PodSet ps;
  ps.name = "main";
  ps.count = 1;
  ps.per_pod_requests["cpu"] = Quantity::from_units(cpu);
  wl.pod_sets.push_back(ps);
  return wl;
}

/// The namespace "default", without labels.
inline Namespace default_namespace() {
  Namespace ns;
  ns.name = "default";
  return ns;
}

/// The smallest working setup: flavor "default-flavor", ClusterQueue "cq" with `cpus`
/// CPUs of it, LocalQueue default/lq pointing at it, and the default namespace.
inline void apply_one_queue(Engine& e, int cpus) {
  e.apply(ResourceFlavor{"default-flavor", {}, {}, {}, {}});
  e.apply(cpu_cluster_queue("cq", {cpu_quota("default-flavor", cpus)}));
  e.apply(LocalQueue{"default", "lq", "cq", StopPolicy::None, 1.0});
  e.apply(default_namespace());
}

inline Condition cond(std::string type, bool status, std::string reason, Time at) {
  return Condition{std::move(type), status, std::move(reason), "", at};
}

/// The workload as the admission write leaves it: admission, QuotaReserved=True,
/// Admitted as decided, the required checks Pending.
inline Workload as_admitted(Workload wl, const AdmissionDecision& d) {
  wl.admission = d.admission;
  wl.conditions = {cond("QuotaReserved", true, "QuotaReserved", d.at),
                   cond("Admitted", d.admitted, d.admitted ? "Admitted" : "UnsatisfiedAdmissionChecks", d.at)};
  for (const auto& name : d.admission_checks) {
    AdmissionCheckState s;
    s.name = name;
    s.last_transition = d.at;
    wl.admission_checks.push_back(s);
  }
  return wl;
}

/// The workload as a pending explanation's write leaves it: QuotaReserved=False with the
/// decision's words.
inline Workload as_explained(Workload wl, const PendingDecision& d, Time at) {
  Condition c = cond("QuotaReserved", false, d.reason, at);
  c.message = d.message;
  wl.conditions = {c};
  return wl;
}

}  // namespace kueuepp::core::testing
