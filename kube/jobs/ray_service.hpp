#pragma once

// RayService (ray.io/v1) as a Kueue job integration ("ray.io/rayservice", Kueue's
// pkg/controller/jobs/rayservice). A RayService runs a Ray cluster that serves until the
// RayService is deleted; Kueue queues that cluster:
//
// - suspended and resumed through spec.rayClusterConfig.suspend (the cluster's flag, which
//   KubeRay copies into the RayCluster it creates), not the RayService's own spec.suspend;
// - pod sets those of spec.rayClusterConfig (ray_cluster_spec.hpp: the head, then each
//   worker group; the autoscaler sidecar counted in the head with in-tree autoscaling), the
//   flavors injected into their templates at start and restored at stop in the same write;
// - active and pods ready while the Ready condition is True;
// - never finished: Kueue's Finished answers "Running" and false, so the Workload holds
//   its quota until the RayService is deleted (or it is preempted);
// - priority from the WorkloadPriorityClass label, else the first template naming a
//   PriorityClass; Workload name rayservice-<name>-<hash>.
//
// The RayCluster KubeRay creates for it is controlled by the RayService and so not queued
// itself while ray.io/rayservice is integrated: the reconciler's and the webhook's parent
// rule (Kueue's IsOwnerManagedByKueue), as for a RayJob's cluster.

#include "kube/jobs/integration.hpp"
#include "kube/jobs/job_pod_sets.hpp"

namespace kueuepp::kube::jobs {

/// Kueue's name for the integration.
inline constexpr std::string_view kRayServiceFramework = "ray.io/rayservice";

const JobIntegration& rayservice_integration();

/// The RayService's pod sets (those of spec.rayClusterConfig), in the Workload API's JSON
/// shape. Fails when the head or a worker group has no template.
Expected<json::array> rayservice_pod_sets(const client::Object& service, const PodSetOptions& options = {});

}  // namespace kueuepp::kube::jobs
