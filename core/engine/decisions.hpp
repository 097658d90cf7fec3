#pragma once

// What the engine decided, for the caller to carry out (write to the API server, or, in
// a scenario replay, apply at once).

#include <string>
#include <vector>

#include "core/model/workload.hpp"

namespace kueuepp::core {

/// A workload got quota: write status.admission and QuotaReserved=True (and Admitted=True
/// when `admitted`, i.e. the queue requires no admission checks).
struct AdmissionDecision {
  std::string workload;  ///< ns/name
  Admission admission;
  bool admitted = true;
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

  bool empty() const { return admissions.empty() && evictions.empty() && pending.empty(); }
};

}  // namespace kueuepp::core
