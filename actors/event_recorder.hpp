#pragma once

// The event recorder writes core/v1 Events about Jobs, Workloads and queues, as Kueue's
// recorders do (source component "kueue-admission"), through the writer's normal lane:
// rate limited and aggregated per object by an EventCorrelator, so Events never compete
// with admissions for the API budget.

#include <functional>

#include "core/model/time.hpp"
#include "messages/actor_handles.hpp"

namespace caf {
class actor_system;
}

namespace kueuepp::actors {

messages::event_recorder_actor spawn_event_recorder(caf::actor_system& system, messages::writer_actor writer,
                                                    messages::introspection_actor introspection,
                                                    std::function<core::Time()> clock);

}  // namespace kueuepp::actors
