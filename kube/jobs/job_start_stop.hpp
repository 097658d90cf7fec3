#pragma once

// Starting and stopping a batch/v1 Job for its Workload, as Kueue's job reconciler does.
//
// Start (startJob + Job.RunWithPodSetsInfo), once the Workload is admitted: the admitted
// flavors' node labels merged into the pod template's nodeSelector, their tolerations
// appended, Kueue's pod labels and annotations added, parallelism set to the admitted count
// under partial admission (and completions with job-completions-equal-parallelism), and
// spec.suspend=false, in one write.
//
// Stop (stopJob + Job.Stop + Job.RestorePodSetsInfo), on eviction or when the Job runs
// without an admitted Workload: Kubernetes lets a Job's template change only while it is
// suspended and has no startTime, so Kueue writes in three steps: (1) suspend=true with the
// kueue.x-k8s.io/stopping annotation, (2) status.startTime cleared, (3) the template's
// annotations, labels, nodeSelector, tolerations and schedulingGates (and parallelism under
// partial admission) restored from the Workload's spec.podSets, the annotation removed.
//
// Both report "nothing to change" when the Job is already in the target state, so callers
// skip writes.

#include <string>

#include "core/expected.hpp"
#include "kube/client/object.hpp"
#include "kube/jobs/pod_set_info.hpp"

namespace kueuepp::kube::jobs {

struct StartResult {
  bool changed = false;  ///< false: the Job already runs as admitted
  client::Object job;    ///< the Job as it should be
  json::value patch;     ///< merge patch from the given Job to `job` (`{}` when unchanged)
  std::string message;   ///< for the Job's Started event: "Admitted by clusterQueue <cq>"
};

/// The Job started for its admitted Workload. Errors: the Workload has no admission
/// (transient), a flavor is missing (transient), the pod set count is not 1 or the
/// injection conflicts with the template (permanent: Kueue finishes the Workload with
/// reason FailedToStart and the error's message).
Expected<StartResult, InjectionError> start_job(const client::Object& job, const client::Object& workload,
                                                const FlavorLookup& flavors, const InjectionOptions& options = {});

struct StopResult {
  bool changed = false;  ///< false: already suspended and restored; nothing to write
  client::Object job;    ///< the Job as it ends up
  /// Write 1 (spec.suspend=true, stopping annotation), or null when already suspended.
  json::value suspend_patch;
  /// Write 2: the status subresource needs {"status":{"startTime":null}}.
  bool clear_start_time = false;
  /// Write 3 (template restored, stopping annotation removed), or null when not needed.
  json::value restore_patch;
};

/// The Job stopped. `workload` null: only suspend (Kueue has nothing to restore from).
StopResult stop_job(const client::Object& job, const client::Object* workload);

/// The merge patch that clears status.startTime (write 2 of a stop).
json::value clear_start_time_patch();

}  // namespace kueuepp::kube::jobs
