#pragma once

// What the engine shows of its queues to those that report them (queue status, metrics,
// introspection): plain values, so that the actors' protocols carry views of the engine
// and never the engine itself.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kueuepp::core {

/// Quota a workload holds in one flavor of one resource, by name.
struct UsageItem {
  std::string_view flavor;
  std::string_view resource;
  std::int64_t milli = 0;
};

/// The workloads of one LocalQueue that one ClusterQueue holds (queued in it or holding
/// its quota, not finished), as the queue statuses count them. The views point into the
/// engine and are valid during the visit only.
struct LocalQueueTally {
  std::string_view cluster_queue;
  std::string_view ns;
  std::string_view local_queue;
  std::int64_t pending = 0;    ///< not holding quota
  std::int64_t reserving = 0;  ///< holding quota
  std::int64_t admitted = 0;   ///< of those, admitted
  std::vector<UsageItem> reserved;  ///< the quota the reserving ones hold, per flavor and resource
  std::vector<UsageItem> used;      ///< of it, what the admitted ones hold
};

/// How many finished workloads a LocalQueue of a namespace had admitted by a ClusterQueue
/// (Kueue counts a finished workload in the queue that admitted it).
struct FinishedTally {
  std::string_view cluster_queue;
  std::string_view ns;
  std::string_view local_queue;
  std::size_t count = 0;
};

struct ClusterQueueView {
  std::string name;
  bool active = false;
  std::string inactive_reason;
  std::string inactive_message;
  std::size_t pending = 0;
  std::size_t pending_active = 0;
  std::size_t pending_inadmissible = 0;
  std::size_t reserving = 0;
  std::size_t admitted = 0;
  /// Per flavor, per resource: (reserved total, borrowed).
  struct Usage {
    std::string flavor;
    std::string resource;
    std::int64_t total_milli = 0;
    std::int64_t borrowed_milli = 0;
  };
  std::vector<Usage> reservation;
  std::vector<Usage> usage;  ///< admitted workloads only
  std::optional<std::int64_t> weighted_share;  ///< with fair sharing
};

/// What a controller counts for one LocalQueue, summed over the ClusterQueues that hold
/// its workloads.
struct LocalQueueView {
  std::int64_t pending = 0;
  std::int64_t reserving = 0;
  std::int64_t admitted = 0;
  std::int64_t finished = 0;  ///< finished workloads still present (metrics only)
  /// milli-units per (flavor, resource) held by the queue's reserving / admitted workloads.
  std::map<std::pair<std::string, std::string>, std::int64_t> reserved;
  std::map<std::pair<std::string, std::string>, std::int64_t> used;
};

/// A pending workload of a ClusterQueue as the visibility API lists it; the views point
/// into the engine and are valid until it next changes.
struct PendingWorkloadRef {
  std::string_view key;          ///< ns/name
  std::string_view local_queue;  ///< spec.queueName
  std::int32_t priority = 0;     ///< spec.priority, as Kueue's visibility reports it
};

/// Adds what the engine counted of one LocalQueue's workloads in one ClusterQueue: the
/// counts, the quota its reserving workloads hold to `reserved`, and its admitted ones' to `used`.
void add_tally(LocalQueueView& view, const LocalQueueTally& tally);

}  // namespace kueuepp::core
