#pragma once

// Cohort-tree actor -> ClusterQueue actor: the queue's state after a round, for its
// status, its LocalQueues' status and metrics. (The queue in order, with each workload's
// reason, is rendered by the tree on request: /debug/clusterqueues/NAME.)

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/engine/queue_views.hpp"
#include "messages/watch_events.hpp"

namespace kueuepp::messages {

struct LocalQueueCounts {
  std::string ns;
  std::string name;
  ObjectPtr object;  ///< the LocalQueue as last seen (its conditions, stopPolicy)
  core::LocalQueueView counts;  ///< pending/reserving/admitted and their usage
};

struct ClusterQueueSnapshot {
  core::ClusterQueueView view;
  ObjectPtr object;  ///< the ClusterQueue as last seen (its conditions, resource groups)
  std::vector<LocalQueueCounts> local_queues;
  std::int64_t generation = 0;  ///< the ClusterQueue's metadata.generation (observedGeneration)
  std::string root_cohort;      ///< the root of its cohort tree ("" without a cohort)
  std::vector<std::string> cohort_path;  ///< its cohort, then that cohort's parents up to the root
  /// Pending workloads per QuotaReserved=False reason.
  std::map<std::string, std::int64_t> pending_reasons;
  std::int64_t finished = 0;  ///< finished workloads still present
  /// False on a replica that does not hold the tree's shard: metrics and introspection
  /// only, no status writes. `shard` fences the writes that are made.
  bool write_status = true;
  std::optional<std::uint32_t> shard;
};

/// A ClusterQueue actor's own timer: a status write that failed is tried again from the
/// latest snapshot (with nothing changing in its tree, no newer snapshot would come).
struct RetryQueueStatus {};

}  // namespace kueuepp::messages
