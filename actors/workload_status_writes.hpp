#pragma once

// The status writes that carry out the engine's decisions on Workload objects and the
// ClusterQueue/LocalQueue status, in Kueue's exact shapes (built by kube/jobs).

#include "core/engine/decisions.hpp"
#include "kube/client/conditions.hpp"
#include "kube/client/object.hpp"
#include "kube/json/json.hpp"
#include "messages/status_protocol.hpp"

namespace kueuepp::actors {

/// status.admission in the Workload API's shape.
json::value admission_json(const core::Admission& admission);

/// The object's status.conditions with `changes` applied (Kubernetes semantics: the
/// transition time moves only when the status flips), as a whole list: merge patches
/// replace lists whole.
json::value conditions_after(const kube::client::Object& object,
                             std::initializer_list<kube::client::Condition> changes, core::Time now);

/// Merge-patch documents for the Workload status subresource.
json::value admission_status_patch(const kube::client::Object& workload, const core::AdmissionDecision& d,
                                   core::Time now);
json::value pending_status_patch(const kube::client::Object& workload, const core::PendingDecision& d,
                                 core::Time now);
json::value eviction_status_patch(const kube::client::Object& workload, const core::EvictionDecision& d,
                                  core::Time now);

/// The `status` of a ClusterQueue (for a merge patch of the status subresource).
json::value cluster_queue_status(const messages::ClusterQueueSnapshot& snapshot,
                                 const json::value* current_status, core::Time now);
/// The `status` of a LocalQueue.
json::value local_queue_status(const messages::LocalQueueCounts& counts, const messages::ClusterQueueSnapshot& cq,
                               const json::value* current_status, core::Time now);

}  // namespace kueuepp::actors
