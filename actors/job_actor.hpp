#pragma once

// The job actor carries out one of Kueue's job integrations (job_reconciler.hpp; batch/v1
// Job by default) from the job, Workload, ResourceFlavor, LocalQueue and priority-class watches: nothing is
// decided before every one of those watches has delivered its first list (a restart must
// not mistake "not listed yet" for "missing"); one step per Job at a time, the next step
// computed from the objects the writes returned; failed writes retried; Events recorded.
// It also keeps Workloads' priority in step with their WorkloadPriorityClass and drops
// Kueue's finalizer from Workloads whose Job is gone.

#include <functional>
#include <string>

#include "actors/controller.hpp"
#include "messages/actor_handles.hpp"
#include "messages/object_kind.hpp"

namespace caf {
class actor_system;
}
namespace kueuepp::kube::jobs {
class JobIntegration;
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

/// The kind of job an actor reconciles: its integration and the tag its watch events and
/// writes carry. The default is batch/v1 Job.
struct JobKind {
  const kube::jobs::JobIntegration* integration = nullptr;  ///< null: batch/v1 Job
  messages::ObjectKind tag = messages::ObjectKind::Job;
  /// The actor's name in introspection: "job" for batch/v1 Jobs, else the kind's.
  std::string name() const {
    return tag == messages::ObjectKind::Job ? std::string("job") : std::string(messages::to_string(tag));
  }
};

/// `sharded`: handle no Job until the snapshot actor says which LocalQueues are this
/// replica's (JobShards). One actor per kind of job: each keeps only its own kind's
/// jobs and the Workloads they control.
messages::job_actor spawn_job_actor(caf::actor_system& system, JobIntegrationOptions options, JobLinks links,
                                    std::function<core::Time()> clock, bool sharded = false, JobKind kind = {});

}  // namespace kueuepp::actors
