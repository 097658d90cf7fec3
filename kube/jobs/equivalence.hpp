#pragma once

// Does an existing Workload still describe its Job (Kueue's EquivalentToWorkload)? When it
// does not, the controller deletes it (or, for a suspended Job whose Workload holds no
// quota, rewrites its spec) and creates the right one.
//
// Compared, as Kueue does: the controlling owner (name and, with FinishOrphanedWorkloads,
// uid), maximumExecutionTimeSeconds, and per pod set the count, minCount and the pod
// template's containers, init containers and tolerations. Everything else in the template
// (labels, annotations, node selectors, ...) is ignored, as is the pod set's name.
// Tolerations are ignored once the Workload is admitted (Kueue injects flavor
// tolerations). A Workload holding quota is also compared as the Job looks while running:
// with the flavors' tolerations merged in and, under partial admission, the admitted count.

#include "kube/client/object.hpp"
#include "kube/jobs/job_pod_sets.hpp"
#include "kube/jobs/pod_set_info.hpp"

namespace kueuepp::kube::jobs {

struct EquivalenceOptions {
  PodSetOptions pod_sets;
  InjectionOptions injection;
  /// Kueue's FinishOrphanedWorkloads (on by default): the owner's uid must match too.
  bool match_owner_uid = true;
};

/// Kueue's ComparePodSetSlices over JSON pod sets.
bool pod_sets_equivalent(const json::value& a, const json::value& b, bool ignore_tolerations);

/// True when `workload` still matches `job`. `flavors` resolves the admission's flavors (a
/// missing flavor makes the running comparison fall back to the spec, as in Kueue).
bool equivalent_to_workload(const client::Object& job, const client::Object& workload, const FlavorLookup& flavors,
                            const EquivalenceOptions& options = {});

/// The same for any kind of job: `owner_pod_sets` are the pod sets its kind derives from
/// it (as its Workload would get them), `suspended` whether it is suspended.
bool equivalent_pod_sets_to_workload(const client::Object& owner, const json::value& owner_pod_sets, bool suspended,
                                     const client::Object& workload, const FlavorLookup& flavors,
                                     const EquivalenceOptions& options = {});

}  // namespace kueuepp::kube::jobs
