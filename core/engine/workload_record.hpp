#pragma once

// The engine's view of one Workload: what admission needs, in interned form, plus the
// bookkeeping of its life in a queue (Kueue's workload.Info and the cache's entry).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/engine/copying_ptr.hpp"
#include "core/engine/ids.hpp"
#include "core/engine/local_queue_tallies.hpp"
#include "core/engine/pending_queue.hpp"
#include "core/model/scheduling.hpp"
#include "core/model/time.hpp"
#include "core/model/workload.hpp"

namespace kueuepp::core {

using ResourceAmounts = std::vector<std::pair<ResourceId, std::int64_t>>;

struct PodSetRequest {
  std::string name;
  std::int32_t count = 1;
  std::optional<std::int32_t> min_count;
  /// Requests of one pod, in resource-name order.
  ResourceAmounts per_pod;
  std::shared_ptr<const PodPlacement> placement;
  std::uint64_t placement_hash = 0;
};

/// Kueue's AssignmentClusterQueueState: where the flavor scan of each pod set resource
/// stopped, so that the next cycle resumes after it.
struct FlavorScanState {
  std::vector<std::vector<std::pair<ResourceId, int>>> last_tried;  ///< per pod set
  std::int64_t cq_generation = 0;
  std::int64_t cycle = 0;
  std::uint64_t hash = 0;

  bool pending_flavors() const {
    for (const auto& ps : last_tried) {
      for (const auto& [r, idx] : ps) {
        if (idx != -1) return true;
      }
    }
    return false;
  }
  int next_flavor(std::size_t pod_set, ResourceId r) const {
    if (pod_set >= last_tried.size()) return 0;
    for (const auto& [res, idx] : last_tried[pod_set]) {
      if (res == r) return idx + 1;
    }
    return 0;
  }
};

/// The quota a workload holds, per pod set.
struct AdmittedPodSet {
  std::int32_t count = 0;
  std::vector<std::pair<ResourceId, FlavorId>> flavors;
  ResourceAmounts usage;  ///< totals for the pod set
};

/// Why a flavor could not take a resource (see assignment.hpp), per pod set index.
struct FitReason;
using AssignmentReasons = std::vector<std::pair<std::size_t, std::vector<FitReason>>>;

/// Why a workload is not admitted, kept structured: Kueue's QuotaReserved=False reason,
/// the per-pod-set flavor reasons (rendered as "couldn't assign flavors to pod set ...")
/// and a fixed text (appended to them, or alone).
struct PendingExplanation {
  std::string reason;  ///< WaitingForQuota, NoMatchingFlavor, ExceedsMaxQuota, ...
  std::string text;
  AssignmentReasons details;
  /// Names this content: copies share it, so that comparing the explanations of a
  /// parked class's members (thousands, at every evaluation of the class) is O(1).
  /// 0: not stamped, compared by content. Never edit the fields of a stamped one.
  std::uint64_t stamp = 0;

  bool operator==(const PendingExplanation& o) const;  ///< by content
  /// Equal content, answered by the stamps when both carry the same one.
  bool same_as(const PendingExplanation& o) const { return (stamp != 0 && stamp == o.stamp) || *this == o; }
};

/// A rendered explanation, as written to QuotaReserved=False.
struct PendingStatus {
  std::string reason;
  std::string message;
};

/// Who evicted a workload and why.
struct PreemptionRecord {
  std::string preemptor_key;
  std::string preemptor_uid;
  std::string reason;   ///< InClusterQueue, InCohortReclamation, InCohortFairSharing, ...
  std::string message;  ///< Kueue's "Preempted to accommodate a workload ..." text
  Time at{};
};

/// What few workloads carry: kept out of line so that the common pending workload
/// stays small (the engine holds tens of thousands of them).
struct WorkloadExtras {
  std::string job_uid;  ///< kueue.x-k8s.io/job-uid label, for preemption messages
  std::optional<PriorityClassRef> priority_class_ref;
  std::optional<std::string> invalid_requests;
  std::optional<std::string> unsupported;  ///< what it asks for that kueuepp does not do
  std::optional<PreemptionRecord> preempted;  ///< the last preemption of this workload
  std::string eviction_reason;  ///< Preempted, ClusterQueueStopped, ...
  /// status.admissionChecks as last seen, and as this engine's decisions changed them.
  std::vector<AdmissionCheckState> checks;
  bool deactivation_target = false;  ///< DeactivationTarget=True on the object
  /// Evicted by a Retry check: when it may compete again (requeueAfterSeconds).
  std::optional<Time> check_requeue_at;
};

struct WorkloadRecord {
  int id = -1;
  std::string key;  ///< ns/name
  std::string uid;
  std::string queue_name;
  Time creation{};
  std::int32_t base_priority = 0;
  std::int32_t boost = 0;
  bool active = true;
  bool gated = false;  ///< admission gates present
  std::vector<PodSetRequest> pod_sets;
  std::uint64_t hash = 0;

  std::int64_t priority() const { return static_cast<std::int64_t>(base_priority) + boost; }
  std::string_view ns() const { return std::string_view(key).substr(0, key.find('/')); }
  std::string_view name() const { return std::string_view(key).substr(key.find('/') + 1); }

  CopyingPtr<WorkloadExtras> extras;
  WorkloadExtras& extra() {
    if (!extras) extras = std::make_unique<WorkloadExtras>();
    return *extras;
  }
  const std::string& job_uid() const { static const std::string empty; return extras ? extras->job_uid : empty; }
  const std::optional<PriorityClassRef>& priority_class_ref() const {
    static const std::optional<PriorityClassRef> none;
    return extras ? extras->priority_class_ref : none;
  }
  const std::optional<std::string>& invalid_requests() const {
    static const std::optional<std::string> none;
    return extras ? extras->invalid_requests : none;
  }
  const std::optional<std::string>& unsupported() const {
    static const std::optional<std::string> none;
    return extras ? extras->unsupported : none;
  }
  const std::string& eviction_reason() const { static const std::string empty; return extras ? extras->eviction_reason : empty; }

  // -- where it is ----------------------------------------------------------------
  int cq = -1;  ///< the ClusterQueue it is queued in or admitted to (-1: none)
  QueueSlot slot;  ///< its place in the queue of `cq`

  // -- quota ----------------------------------------------------------------------
  bool reserved = false;  ///< holds quota (QuotaReserved=True)
  std::string reserved_cq_name;  ///< the ClusterQueue named in its admission
  bool admitted = false;  ///< reserved and every admission check Ready
  std::vector<AdmittedPodSet> admission;
  Amounts usage;
  Time reserved_at{};
  std::int64_t reserved_cycle = -1;
  bool assumed = false;  ///< admitted by this engine, not yet confirmed by an applied object
  /// Its admission write was refused because the object had changed: it waits for the
  /// newer object before competing again (retrying on the stale one would only be
  /// refused again, as fast as the API server answers).
  bool awaiting_object = false;
  bool evicted = false;  ///< eviction issued, quota still held until it completes
  bool finished = false;
  bool pods_ready = false;  ///< PodsReady=True (waitForPodsReady)
  TallyShare tally;  ///< what it adds to its LocalQueue's tally (see Engine::retally)

  // -- requeueing -----------------------------------------------------------------
  bool requeued_false = false;  ///< Requeued=False holds it out of the queue
  std::optional<Time> requeue_at;
  std::optional<Time> evicted_by_timeout_at;  ///< PodsReadyTimeout / AdmissionCheck eviction time

  // -- scheduling state -----------------------------------------------------------
  CopyingPtr<FlavorScanState> scan;  ///< only while flavors remain to resume from
  PendingExplanation pending;
  std::int64_t last_evaluated_cycle = -1;
  /// Requeue bookkeeping of the current cycle.
  RequeueReason requeue_reason = RequeueReason::Generic;
};

}  // namespace kueuepp::core
