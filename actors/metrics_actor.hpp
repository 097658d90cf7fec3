#pragma once

// The metrics actor owns Kueue's metrics (core/metrics): the tree actors report
// admissions, evictions, finishes and scheduling cycles, the ClusterQueue actors their
// gauges; GET /metrics asks it for the exposition. Nothing else touches the registry, so
// it needs no locks.

#include "core/metrics/kueue_metrics.hpp"
#include "messages/actor_handles.hpp"

namespace caf {
class actor_system;
}

namespace kueuepp::actors {

messages::metrics_actor spawn_metrics(caf::actor_system& system, metrics::KueueMetricsOptions options,
                                      messages::introspection_actor introspection);

}  // namespace kueuepp::actors
