#pragma once

// What the engine decided, for the caller to carry out (write to the API server, or, in
// a scenario replay, apply at once).

#include <optional>
#include <string>
#include <vector>

#include "core/model/workload.hpp"

namespace kueuepp::core {

/// A workload got quota: write status.admission and QuotaReserved=True (and Admitted=True
/// when `admitted`, i.e. every admission check it needs is Ready: none, usually).
struct AdmissionDecision {
  std::string workload;  ///< ns/name
  Admission admission;
  bool admitted = true;
  /// The admission checks its ClusterQueue requires for the flavors assigned, by name:
  /// status.admissionChecks lists exactly these (entries already there kept as they are,
  /// new ones Pending).
  std::vector<std::string> admission_checks;
  /// It fits only in quota that workloads being preempted (victims claimed in the same
  /// cycle, whose evictions are not complete) still hold: written before their evictions
  /// land, it would show the quota taken twice. A writer holds it until they have.
  bool after_preemptions = false;
  Time at{};
};

/// A workload holding quota must stop: write Evicted=True with `reason` (and
/// Preempted=True with `preemption_reason` for preemptions). Its quota stays held until
/// the job has stopped and complete_eviction() is called.
struct EvictionDecision {
  std::string workload;  ///< ns/name
  std::string cluster_queue;
  std::string reason;             ///< Preempted, ClusterQueueStopped, LocalQueueStopped, Deactivated
  std::string preemption_reason;  ///< InClusterQueue, InCohortReclamation, ... (preemptions only)
  std::string preemptor;          ///< ns/name of the preemptor (preemptions only)
  std::string message;
  /// Counted apart in metrics and schedulingStats (WaitForStart, WaitForRecovery, ...);
  /// for "DeactivatedDueTo<cause>" reasons the cause is taken from the reason.
  std::string underlying_cause;
  /// AdmissionCheck evictions: when the workload may compete again (the latest
  /// lastTransitionTime + requeueAfterSeconds of its Retry checks, when in the future),
  /// written to status.requeueState.requeueAt.
  std::optional<Time> requeue_at;
  Time at{};
};

/// Kueue's Workload controller acting on the admission checks of a workload that holds
/// quota (../shared/reference/kueue-semantics.md section 2.9). A check in Retry evicts
/// the workload: that is an EvictionDecision with reason AdmissionCheck.
struct AdmissionCheckDecision {
  enum class Kind {
    /// status.admissionChecks must list exactly `checks` (entries already there kept as
    /// they are, new ones Pending, the others dropped).
    SyncChecks,
    /// Every check is Ready: write Admitted=True (the Job may start).
    Admit,
    /// A check rejected the workload: write DeactivationTarget=True (reason
    /// AdmissionCheck, `message`) and the AdmissionCheckRejected event; the workload is
    /// then deactivated (spec.active=false) and evicted, and not requeued.
    Deactivate,
  };
  Kind kind = Kind::SyncChecks;
  std::string workload;  ///< ns/name
  std::string cluster_queue;
  std::vector<std::string> checks;  ///< SyncChecks: the names, sorted
  std::string message;              ///< Deactivate: "AdmissionCheck in Rejected state: ..."
  Time at{};
};

/// A pending workload's reason for not being admitted changed: write QuotaReserved=False
/// with this reason and message (an empty reason leaves QuotaReserved as it is).
struct PendingDecision {
  std::string workload;
  std::string reason;
  std::string message;
  /// Set when a restarted queue lets back a workload its stop policy evicted: write
  /// Requeued=True with this reason (ClusterQueueRestarted, LocalQueueRestarted) and
  /// message, as Kueue's workload controller does.
  std::string requeued_reason;
  std::string requeued_message;
};

struct Decisions {
  std::vector<AdmissionDecision> admissions;
  std::vector<EvictionDecision> evictions;
  std::vector<PendingDecision> pending;
  std::vector<AdmissionCheckDecision> checks;

  bool empty() const { return admissions.empty() && evictions.empty() && pending.empty() && checks.empty(); }
};

}  // namespace kueuepp::core
