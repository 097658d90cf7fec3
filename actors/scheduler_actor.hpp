#pragma once

// The scheduler paces admission rounds. Trees report that something changed; after a
// batching window (if any) the scheduler starts a round in every changed tree that is not
// already running one (so trees run concurrently, each at most one round at a time),
// and wakes trees whose requeue backoffs expire. Time comes from the clock it is given
// and is handed to the engines (core/ reads no clock).

#include <chrono>
#include <functional>

#include "core/model/time.hpp"
#include "messages/actor_handles.hpp"

namespace caf {
class actor_system;
}

namespace kueuepp::actors {

struct SchedulerOptions {
  /// Changes arriving within this window share one round.
  std::chrono::milliseconds batching_window{2};
  std::function<core::Time()> clock;
  /// Called after every round (metrics).
  std::function<void(const messages::RoundDone&)> on_round;
};

messages::scheduler_actor spawn_scheduler(caf::actor_system& system, SchedulerOptions options,
                                          messages::introspection_actor introspection);

}  // namespace kueuepp::actors
