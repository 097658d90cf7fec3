#pragma once

// The job actor carries out Kueue's batch/v1 Job integration (job_reconciler.hpp) from
// the Job, Workload, ResourceFlavor, LocalQueue and priority-class watches: nothing is
// decided before every one of those watches has delivered its first list (a restart must
// not mistake "not listed yet" for "missing"); one step per Job at a time, the next step
// computed from the objects the writes returned; failed writes retried; Events recorded.
// It also keeps Workloads' priority in step with their WorkloadPriorityClass and drops
// Kueue's finalizer from Workloads whose Job is gone.

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
  messages::event_recorder_actor events;
  /// Evictions by the Workload controller (PodsReady timeout, deactivation) are counted
  /// here; may be null (tests).
  messages::metrics_actor metrics;
};

/// `sharded`: handle no Job until the snapshot actor says which LocalQueues are this
/// replica's (JobShards).
messages::job_actor spawn_job_actor(caf::actor_system& system, JobIntegrationOptions options, JobLinks links,
                                    std::function<core::Time()> clock, bool sharded = false);

}  // namespace kueuepp::actors
