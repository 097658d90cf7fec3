#pragma once

// The job actor carries out Kueue's batch/v1 Job integration (job_reconciler.hpp) from
// the Job, Workload, ResourceFlavor, LocalQueue and priority-class watches: one
// reconcile per changed Job, never two writes in flight for the same Job, the cache
// refreshed from every write's answer, failed writes retried.

#include <functional>

#include "actors/controller.hpp"
#include "messages/actor_handles.hpp"

namespace caf {
class actor_system;
}

namespace kueuepp::actors {

struct JobLinks {
  messages::writer_actor writer;
  messages::introspection_actor introspection;
};

messages::job_actor spawn_job_actor(caf::actor_system& system, JobIntegrationOptions options, JobLinks links,
                                    std::function<core::Time()> clock);

}  // namespace kueuepp::actors
