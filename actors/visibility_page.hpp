#pragma once

// A tree's answer to the visibility API: a page of one of its ClusterQueues' (or
// LocalQueues') pending workloads in the engine's queue order, each with the metadata
// Kueue's PendingWorkload carries (name, namespace, owner references, creation time)
// read from the cached Workload. Pure, tested without CAF.

#include <functional>
#include <string_view>

#include "core/engine/engine.hpp"
#include "kube/visibility/visibility_handler.hpp"

namespace kueuepp::actors {

/// The stored Workload's JSON text by key ("" when not cached).
using WorkloadText = std::function<std::string_view(std::string_view key)>;

kube::visibility::PendingWorkloadsResult visibility_page(const core::Engine& engine,
                                                         const kube::visibility::PendingWorkloadsQuery& query,
                                                         const WorkloadText& text_of);

}  // namespace kueuepp::actors
