#pragma once

// The snapshot actor: the single consumer of the Kueue object watches. It keeps the
// cluster's queueing objects (TreeRouter), spawns one cohort-tree actor per tree, and
// delivers to each tree, in watch order, exactly the changes it needs, so every tree
// decides its rounds on one consistent view of its own queues. It also knows which tree
// holds what, for introspection.

#include "actors/cohort_tree_actor.hpp"
#include "messages/actor_handles.hpp"

namespace caf {
class actor_system;
}

namespace kueuepp::actors {

/// `jobs` (may be null) is told which LocalQueues' Jobs this replica handles once
/// sharding is on (the first ShardOwnership arrives).
messages::snapshot_actor spawn_snapshot(caf::actor_system& system, CohortTreeOptions tree_options,
                                        CohortTreeLinks links, messages::job_actor jobs = {});

}  // namespace kueuepp::actors
