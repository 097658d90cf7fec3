#pragma once

// The introspection registry: every actor announces itself; HTTP queries of the
// introspection endpoint arrive as HttpQuery messages and are answered by fanning out
// requests (each with a timeout and an error handler) and aggregating the replies.
//
//   GET /debug/actors                        every actor: kind, name, mailbox, handled,
//                                            messages per second since the last query, state
//   GET /debug/cohorts                       the cohort trees: each ClusterQueue's counts and,
//                                            per flavor and resource, nominal, reserved, used,
//                                            borrowed and lent quota (see cohort_view.hpp)
//   GET /debug/clusterqueues/NAME?offset=&limit=
//                                            one page of the queue in order, with each
//                                            workload's reason (limit 1..2000, default 500)
//   GET /debug/clusterqueues/NAME/history    the queue's counts and usage over the last hour
//   GET /debug/workloads/NAMESPACE/NAME      why it is pending, or why it was preempted; its
//                                            conditions and what the controller said of it

#include <chrono>
#include <functional>

#include "messages/actor_handles.hpp"

namespace caf {
class actor_system;
}

namespace kueuepp::actors {

/// `clock` times the message rates of /debug/actors (the steady clock when empty).
messages::introspection_actor spawn_introspection(
    caf::actor_system& system, std::chrono::milliseconds timeout = std::chrono::seconds(2),
    std::function<std::chrono::steady_clock::time_point()> clock = {});

}  // namespace kueuepp::actors
