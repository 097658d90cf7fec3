#pragma once

// The introspection registry: every actor announces itself; HTTP queries of the
// introspection endpoint arrive as HttpQuery messages and are answered by fanning out
// requests (each with a timeout and an error handler) and aggregating the replies.
//
//   GET /debug/actors                        every actor: kind, name, mailbox, handled, state
//   GET /debug/clusterqueues/NAME            the queue in order, with each workload's reason
//   GET /debug/workloads/NAMESPACE/NAME      why it is pending, or why it was preempted

#include <chrono>

#include "messages/actor_handles.hpp"

namespace caf {
class actor_system;
}

namespace kueuepp::actors {

messages::introspection_actor spawn_introspection(caf::actor_system& system,
                                                  std::chrono::milliseconds timeout = std::chrono::seconds(2));

}  // namespace kueuepp::actors
