#pragma once

// One actor per cohort tree: it owns the admission engine for the tree's ClusterQueues,
// cohorts, LocalQueues and Workloads (plus the cluster-wide objects every tree needs).
// Changes arrive in batches between rounds, so a round always sees one consistent
// state and its decisions are carried out as one unit: admissions are assumed in the
// engine at once and written asynchronously by the tree's write path (tree_writes.hpp:
// each write conditional on the version it was decided on; only a write known not to
// have landed is rolled back). Trees never share state, so their rounds run concurrently
// on the actor scheduler's threads.

#include <functional>
#include <string>

#include "core/engine/engine_config.hpp"
#include "messages/actor_handles.hpp"

namespace caf {
class actor_system;
}

namespace kueuepp::actors {

struct CohortTreeOptions {
  core::EngineConfig engine;
  /// Cycles per round before yielding to the mailbox (the round continues next tick).
  std::size_t max_cycles_per_round = 50000;
  /// How often ClusterQueue snapshots (status, metrics) are published at most.
  std::chrono::milliseconds status_interval{1000};
  /// A workload's pending explanation is rewritten at most this often (its first one at
  /// once); 0 writes every change, as Kueue does. See ExplanationPacer.
  std::chrono::milliseconds explanation_interval{0};
  /// Clock for status timestamps (rounds get their time from the scheduler).
  std::function<core::Time()> clock;
};

struct CohortTreeLinks {
  messages::writer_actor writer;
  messages::scheduler_actor scheduler;
  messages::introspection_actor introspection;
  messages::metrics_actor metrics;  ///< may be null (no metrics)
  messages::event_recorder_actor events;  ///< may be null (no Events)
};

messages::cohort_tree_actor spawn_cohort_tree(caf::actor_system& system, std::string tree, CohortTreeOptions options,
                                              CohortTreeLinks links);

}  // namespace kueuepp::actors
