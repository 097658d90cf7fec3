#pragma once

// The snapshot actor: the single consumer of the Kueue object watches. It keeps the
// cluster's queueing objects (TreeRouter), spawns one cohort-tree actor per tree, and
// delivers to each tree, in watch order, exactly the changes it needs, so every tree
// decides its rounds on one consistent view of its own queues. It also knows which tree
// holds what, for introspection.

#include <cstdint>
#include <optional>
#include <vector>

#include "actors/cohort_tree_actor.hpp"
#include "messages/actor_handles.hpp"

namespace caf {
class actor_system;
}

namespace kueuepp::actors {

/// With `shard_count`, sharding is on: every tree starts inactive until a ShardOwnership
/// says this replica holds its shard, and `jobs` (one job actor per kind of job; may be
/// empty) are told which LocalQueues' jobs this replica handles. Without, every tree acts and nothing is told.
messages::snapshot_actor spawn_snapshot(caf::actor_system& system, CohortTreeOptions tree_options,
                                        CohortTreeLinks links, std::vector<messages::job_actor> jobs = {},
                                        std::optional<std::uint32_t> shard_count = std::nullopt);

}  // namespace kueuepp::actors
