#pragma once

// Kueue's Workload controller: the part that moves a Workload out of and back into its
// queue on its own clock (../shared/reference/kueue-semantics.md section 2.9).
//  - waitForPodsReady: an admitted Workload whose pods are not ready by the deadline is
//    evicted (PodsReadyTimeout) with an exponential requeue backoff in
//    status.requeueState, or marked for deactivation once backoffLimitCount is used up;
//  - requeue gating: Requeued=False turns True when the backoff ends (BackoffFinished) or
//    the Workload is reactivated (Reactivated);
//  - maximum execution time: an admitted Workload past spec.maximumExecutionTimeSeconds
//    is marked for deactivation (MaximumExecutionTimeExceeded);
//  - deactivation: a DeactivationTarget sets spec.active=false, and an inactive Workload
//    holding quota is evicted (Deactivated, or DeactivatedDueTo<cause>).
//
// Pure functions over the cached Workload and a time they are given. Each returns at most
// one write; when nothing is due yet it says when to look again.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "core/model/time.hpp"
#include "kube/client/object.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::jobs {

/// Configuration waitForPodsReady with its requeuingStrategy.
struct RequeuingPolicy {
  std::chrono::seconds timeout{30 * 60};
  /// How long a Workload that was ready may wait to be ready again (0: no limit).
  std::chrono::seconds recovery_timeout{30 * 60};
  /// Evictions allowed before the Workload is deactivated (nullopt: unlimited).
  std::optional<std::int32_t> backoff_limit_count;
  std::int32_t backoff_base_seconds = 60;
  std::int32_t backoff_max_seconds = 3600;
};

struct RequeueStep {
  enum class Target { None, Status, Spec } target = Target::None;
  /// A merge patch for the status subresource or for the object (spec.active).
  json::value patch;
  std::string what;  ///< for logs
  /// An Event on the Workload (empty reason: none).
  std::string event_reason;
  std::string event_message;
  bool event_warning = false;
  /// The write evicts the workload: kueue_evicted_workloads_total's reason and
  /// underlying_cause, counted once the write lands (empty reason: not an eviction).
  std::string evicted_reason;
  std::string evicted_cause;
  /// Nothing to write yet: call again at this time.
  std::optional<core::Time> recheck_at;

  bool has_write() const { return target != Target::None; }
};

/// waitForPodsReady for an admitted, active, not evicted Workload: nothing while its
/// pods are ready; the time its deadline passes (admission + timeout for WaitForStart,
/// PodsReady's last transition + recoveryTimeout for WaitForRecovery) while it is not;
/// past it, Evicted=True PodsReadyTimeout with requeueState {count+1, requeueAt = now +
/// min(base * 2^count, max)}, or DeactivationTarget=True RequeuingLimitExceeded when the
/// count would exceed backoffLimitCount.
RequeueStep pods_ready_timeout_step(const client::Object& workload, const RequeuingPolicy& policy, core::Time now);

/// Requeued=False on a Workload holding no quota: True BackoffFinished once
/// requeueState.requeueAt has passed (requeueAt cleared), after PodsReadyTimeout and
/// AdmissionCheck evictions; True Reactivated after a deactivation once it is active again.
RequeueStep requeue_gate_step(const client::Object& workload, core::Time now);

/// spec.active: a DeactivationTarget condition deactivates the Workload; an inactive
/// Workload holding quota is evicted (reason Deactivated, or DeactivatedDueTo<cause>
/// with "The workload is deactivated due to <message>"), its DeactivationTarget removed
/// and requeueState cleared; one holding none just has them cleared.
RequeueStep deactivation_step(const client::Object& workload, core::Time now);

/// spec.maximumExecutionTimeSeconds for an admitted Workload: the time counted is
/// status.accumulatedPastExecutionTimeSeconds (earlier admissions) plus the time since the
/// Admitted condition turned True. Before the limit, the time to look again; past it,
/// DeactivationTarget=True MaximumExecutionTimeExceeded with the accumulated time cleared
/// (deactivation_step then deactivates and evicts it, never to be requeued).
RequeueStep max_execution_time_step(const client::Object& workload, core::Time now);

/// The backoff before the n-th requeue (n >= 1): base * 2^(n-1) seconds, at most max.
std::chrono::seconds requeue_backoff(const RequeuingPolicy& policy, std::int32_t n);

}  // namespace kueuepp::kube::jobs
