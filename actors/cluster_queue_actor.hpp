#pragma once

// One actor per ClusterQueue: it keeps the queue's latest snapshot (pending workloads
// in order with their reasons, usage, counts), writes the ClusterQueue's and its
// LocalQueues' status when they change (coalesced through the writer), and answers
// introspection.

#include <functional>
#include <string>

#include "messages/actor_handles.hpp"

namespace caf {
class actor_system;
}

namespace kueuepp::actors {

struct ClusterQueueLinks {
  messages::writer_actor writer;
  messages::introspection_actor introspection;
  messages::metrics_actor metrics;  ///< may be null (no metrics)
};

messages::cluster_queue_actor spawn_cluster_queue(caf::actor_system& system, std::string name,
                                                  ClusterQueueLinks links, std::function<core::Time()> clock);

}  // namespace kueuepp::actors
