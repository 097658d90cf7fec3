#pragma once

// Cohort-tree actor -> ClusterQueue actor: the queue's state after a round, for its
// status, its LocalQueues' status, metrics and introspection.

#include <cstdint>
#include <string>
#include <vector>

#include "core/engine/engine.hpp"
#include "kube/jobs/queue_status.hpp"
#include "messages/watch_events.hpp"

namespace kueuepp::messages {

struct PendingEntry {
  std::string key;  ///< ns/name
  std::string local_queue;
  std::int32_t priority = 0;
  std::string reason;
  std::string message;
};

struct LocalQueueCounts {
  std::string ns;
  std::string name;
  ObjectPtr object;  ///< the LocalQueue as last seen (its conditions, stopPolicy)
  kube::jobs::LocalQueueView counts;  ///< pending/reserving/admitted and their usage
};

struct ClusterQueueSnapshot {
  core::ClusterQueueView view;
  ObjectPtr object;  ///< the ClusterQueue as last seen (its conditions, resource groups)
  std::vector<PendingEntry> pending;  ///< in queue order
  std::vector<LocalQueueCounts> local_queues;
  std::int64_t generation = 0;  ///< the ClusterQueue's metadata.generation (observedGeneration)
};

}  // namespace kueuepp::messages
