#pragma once

// The engine's model of one Kubernetes object, decoded once by the snapshot actor and
// shared (immutable) with the cohort-tree actor that needs it.

#include <variant>

#include "core/model/cluster_queue.hpp"
#include "core/model/resource_flavor.hpp"
#include "core/model/workload.hpp"

namespace kueuepp::messages {

using ModelObject = std::variant<core::ResourceFlavor, core::ClusterQueue, core::Cohort, core::LocalQueue,
                                 core::WorkloadPriorityClass, core::PriorityClass, core::Namespace,
                                 core::AdmissionCheck, core::Workload>;

}  // namespace kueuepp::messages
