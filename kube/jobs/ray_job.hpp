#pragma once

// RayJob (ray.io/v1) as a Kueue job integration ("ray.io/rayjob", Kueue's
// pkg/controller/jobs/rayjob):
//
// - suspended and resumed as a whole through spec.suspend;
// - pod sets: the RayCluster's (ray_cluster_spec.hpp: head, then each worker group),
//   then "submitter" (1 pod) when submissionMode is K8sJobMode (the CRD's default): its
//   template spec.submitterPodTemplate, else KubeRay's default submitter (the head's
//   image, 500m CPU and 200Mi requested). In SidecarMode the submitter container KubeRay
//   adds to the head is counted in the head's template;
// - the admitted flavors injected into every template at start (the default submitter
//   template written into spec.submitterPodTemplate, as Kueue does), restored at stop in
//   the same write as the suspend;
// - active unless status.jobDeploymentStatus is Suspended or New; finished when it is
//   Complete or Failed, succeeded when status.jobStatus is SUCCEEDED, with
//   status.message; pods ready when status.rayClusterStatus.state is "ready";
// - priority from the WorkloadPriorityClass label, else the first pod set's template
//   naming a PriorityClass.

#include "kube/jobs/integration.hpp"
#include "kube/jobs/job_pod_sets.hpp"

namespace kueuepp::kube::jobs {

/// Kueue's name for the integration.
inline constexpr std::string_view kRayJobFramework = "ray.io/rayjob";

const JobIntegration& rayjob_integration();

/// The RayJob's pod sets, in the Workload API's JSON shape. Fails when it has no
/// spec.rayClusterSpec, a group has no template or a topology annotation does not parse.
Expected<json::array> rayjob_pod_sets(const client::Object& rayjob, const PodSetOptions& options = {});

}  // namespace kueuepp::kube::jobs
