#pragma once

// ClusterQueue and LocalQueue status as Kueue's queue reconcilers write it
// (../shared/reference/kueue-semantics.md sections 4.1 and 4.2), from the engine's view.
//
// Each builder returns the desired `status` object: every field Kueue owns, with null
// for a field Kueue omits (so the object is also a merge patch that clears stale values),
// and the Active condition merged into the current conditions (lastTransitionTime moves
// only when the status flips). status_unchanged() tells the caller when to skip the write.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "core/engine/queue_views.hpp"
#include "core/model/time.hpp"
#include "core/model/workload.hpp"
#include "kube/client/object.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::jobs {

/// The ClusterQueue's status: pendingWorkloads, reservingWorkloads, admittedWorkloads,
/// flavorsReservation and flavorsUsage (every flavor and covered resource of the queue's
/// resource groups; borrowed is 0 for a queue without a cohort), fairSharing when the
/// engine computes a weighted share, and condition Active (True Ready "Can admit new
/// workloads", or False with the engine's reason and message). `cluster_queue` is the
/// current object (its conditions, generation and cohort).
json::value cluster_queue_status(const core::ClusterQueueView& view, const client::Object& cluster_queue,
                                 core::Time now);

using core::LocalQueueView;

/// The LocalQueue's status: the counters, flavorsReservation and flavorsUsage in the shape
/// of its ClusterQueue's resource groups (name and total), and condition Active: False
/// Stopped ("LocalQueue is stopped", pending not counted) under a stopPolicy, False
/// ClusterQueueDoesNotExist when `cluster_queue` is null (no usage), False
/// ClusterQueueIsInactive ("Can't submit new workloads to clusterQueue"), else True Ready
/// ("Can submit new workloads to localQueue").
json::value local_queue_status(const client::Object& local_queue, const LocalQueueView& view,
                               const core::ClusterQueueView* cluster_queue, core::Time now);

/// True when writing `desired` would not change `current_status` (quantities compared by
/// amount, omitted fields equal to empty ones).
bool status_unchanged(const json::value* current_status, const json::value& desired);

/// {"status": desired}, or nullopt when status_unchanged().
std::optional<json::value> queue_status_patch(const client::Object& queue, const json::value& desired);

}  // namespace kueuepp::kube::jobs
