#pragma once

// RayCluster (ray.io/v1) as a Kueue job integration ("ray.io/raycluster", Kueue's
// pkg/controller/jobs/raycluster): suspended and resumed through spec.suspend; pod sets
// the head and each worker group (ray_cluster_spec.hpp), the flavors injected into their
// templates at start and restored at stop in the same write; active and pods ready while
// status.state is "ready"; never finished (a cluster runs until deleted). A RayCluster
// controlled by a RayJob that Kueue manages is not queued itself (the RayJob's Workload
// holds its quota): the reconciler's parent rule, as for a JobSet's Jobs.

#include "kube/jobs/integration.hpp"
#include "kube/jobs/job_pod_sets.hpp"

namespace kueuepp::kube::jobs {

/// Kueue's name for the integration.
inline constexpr std::string_view kRayClusterFramework = "ray.io/raycluster";

const JobIntegration& raycluster_integration();

/// The RayCluster's pod sets, in the Workload API's JSON shape.
Expected<json::array> raycluster_pod_sets(const client::Object& cluster, const PodSetOptions& options = {});

}  // namespace kueuepp::kube::jobs
