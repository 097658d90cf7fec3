#pragma once

// The engine's model of one Kubernetes object, decoded once by the snapshot actor and
// shared (immutable) with the cohort-tree actor that needs it.

#include <cstddef>
#include <variant>

#include "core/model/cluster_queue.hpp"
#include "core/model/resource_flavor.hpp"
#include "core/model/workload.hpp"
#include "messages/object_kind.hpp"

namespace kueuepp::messages {

using ModelObject = std::variant<core::ResourceFlavor, core::ClusterQueue, core::Cohort, core::LocalQueue,
                                 core::WorkloadPriorityClass, core::PriorityClass, core::Namespace,
                                 core::AdmissionCheck, core::Workload>;

// One model per kind the trees hold: a kind routed to the trees without a model (or a
// model no kind is routed as) fails here rather than in a switch's default.
static_assert([] {
  std::size_t routed = 0;
  for (const auto& t : kKindTraits) routed += routed_to_trees(t.kind) ? 1 : 0;
  return routed == std::variant_size_v<ModelObject>;
}());

}  // namespace kueuepp::messages
