#pragma once

// Merge-patch documents for the Workload status subresource that carry out the engine's
// decisions and the job reconciler's status writes with Kueue's exact condition types,
// reasons and messages (../shared/reference/kueue-semantics.md section 4.3).
//
// Each builder takes the Workload as it is now and returns {"status": {...}} with the full
// new conditions list (a merge patch replaces lists whole; lastTransitionTime moves only
// when a condition's status flips), or nullopt when the Workload already shows exactly
// that, so callers skip the write.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/engine/decisions.hpp"
#include "core/model/time.hpp"
#include "core/model/workload.hpp"
#include "kube/client/conditions.hpp"
#include "kube/client/object.hpp"
#include "kube/jobs/job_status.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::jobs {

/// Whether the Workload holds quota as stored: status.admission set and QuotaReserved=True.
bool holds_quota_reservation(const client::Object& workload);
/// Whether it is admitted: it holds quota and Admitted=True.
bool is_admitted(const client::Object& workload);

using StatusPatch = std::optional<json::value>;

struct WorkloadStatusOptions {
  /// Kueue's UnadmittedWorkloadsObservability (on by default): a released reservation
  /// reads QuotaReserved=False "PendingEvaluation" instead of the legacy "Pending".
  bool unadmitted_workloads_observability = true;
};

/// status.admission in the Workload API's shape (quantities in Kueue's canonical form).
json::value admission_json(const core::Admission& admission);

/// The scheduler's admission: status.admission set, QuotaReserved=True (QuotaReserved,
/// "Quota reserved in ClusterQueue <cq>"), an active Evicted, Preempted or
/// BlockedOnPreemptionGates reset to False (reason QuotaReserved, "Previously: <message>"),
/// status.resourceRequests dropped, status.admissionChecks synced to the decision's checks,
/// and Admitted=True (Admitted, "The workload is admitted") or, while admission checks are
/// pending, Admitted=False (UnsatisfiedAdmissionChecks).
StatusPatch admission_patch(const client::Object& workload, const core::AdmissionDecision& decision, core::Time now);

/// status.admissionChecks listing exactly `names` (Kueue's syncAdmissionCheckConditions):
/// entries already on the Workload kept as they are, new ones {state Pending,
/// lastTransitionTime now, message ""}, the others dropped, sorted by name. nullopt when
/// the Workload lists exactly these already; JSON null when `names` is empty.
std::optional<json::value> synced_admission_checks(const client::Object& workload, const std::vector<std::string>& names,
                                                   core::Time now);

/// The Workload controller's sync of status.admissionChecks to the checks its
/// ClusterQueue requires (see synced_admission_checks); nullopt when already so.
StatusPatch admission_checks_patch(const client::Object& workload, const std::vector<std::string>& names,
                                   core::Time now);

/// Every admission check is Ready: Admitted=True (Admitted, "The workload is admitted").
/// nullopt unless the Workload holds a reservation and is not Admitted yet.
StatusPatch admitted_patch(const client::Object& workload, core::Time now);

/// An admission check rejected the Workload: DeactivationTarget=True (reason
/// AdmissionCheck, the message naming the rejected checks). nullopt when it is already so.
StatusPatch deactivation_target_patch(const client::Object& workload, std::string_view message, core::Time now);

/// The scheduler's requeue: QuotaReserved=False with the engine's reason and message,
/// any admission cleared, Admitted=False (NoReservation, "The workload has no reservation").
StatusPatch pending_patch(const client::Object& workload, const core::PendingDecision& decision, core::Time now);

/// Eviction (workloadevict.Evict): Evicted=True with the reason and message, for a
/// preemption also Preempted=True with the preemption reason (InClusterQueue,
/// InCohortReclamation, ...); BlockedOnPreemptionGates=False if it was True; admission
/// checks reset to Pending; MultiKueue cluster nomination and unhealthy nodes cleared;
/// status.schedulingStats.evictions counted; with a requeue_at (an admission check's
/// requeueAfterSeconds) status.requeueState.requeueAt set to it. The reservation stays
/// until the Job stops.
StatusPatch eviction_patch(const client::Object& workload, const core::EvictionDecision& decision, core::Time now);

/// The Job of an evicted Workload has stopped: the quota is released. Requeued (True for
/// evictions by Preempted or NodeFailures, else False; reason and message of Evicted),
/// QuotaReserved=False (PendingEvaluation, the eviction message), admission cleared,
/// Admitted=False (NoReservation). nullopt unless the Workload is Evicted and reserved.
StatusPatch eviction_completed_patch(const client::Object& workload, core::Time now,
                                     const WorkloadStatusOptions& options = {});

/// The Job finished: Finished=True with reason (Succeeded, Failed, FailedToStart,
/// OwnerNotFound, ...) and message. nullopt when the Workload is already Finished.
StatusPatch finished_patch(const client::Object& workload, std::string_view reason, std::string_view message,
                           core::Time now);
StatusPatch finished_patch(const client::Object& workload, const JobFinish& finish, core::Time now);

/// Kueue's generatePodsReadyCondition for waitForPodsReady: PodsReady=True (Started, or
/// Recovered after a failure) when `pods_ready`, else False (WaitForStart, or
/// WaitForRecovery once it had been ready).
client::Condition pods_ready_condition(const client::Object& workload, bool pods_ready);

/// The PodsReady condition written when its (status, reason) changed, else nullopt.
StatusPatch pods_ready_patch(const client::Object& workload, bool pods_ready, core::Time now);

}  // namespace kueuepp::kube::jobs
