#pragma once

// What Kueue's Ray integrations share (Kueue's pkg/controller/jobs/raycluster, used by the
// RayJob, RayCluster and RayService adapters): the pod sets of a rayClusterSpec (the head, then one per
// worker group in spec order) and the injection into, and restore of, their templates.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kube/jobs/job_pod_sets.hpp"
#include "kube/jobs/pod_set_info.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::jobs {

/// Kueue's name of the head group's pod set; no worker group may take it.
inline constexpr std::string_view kRayHeadPodSet = "head";
/// The container KubeRay adds to run `ray job submit` (in the submitter Job or the head).
inline constexpr std::string_view kRaySubmitterContainer = "ray-job-submitter";

/// jobframework.MaxPodSets: the most pod sets a Workload may have.
inline constexpr std::size_t kMaxPodSets = 18;

/// A worker group's pod count: replicas (1 when absent) times numOfHosts when above 1.
/// minReplicas and maxReplicas do not count: Kueue queues the requested replicas.
std::int64_t ray_worker_group_pods(const json::value& worker_group);

/// The worker groups of a rayClusterSpec (empty when it has none).
const json::array& ray_worker_groups(const json::value& cluster_spec);

/// ExpectedPodSetsCount: the head and one per worker group.
std::size_t ray_cluster_pod_set_count(const json::value& cluster_spec);

/// BuildPodSets: the head pod set (count 1; the autoscaler sidecar KubeRay adds counted in
/// its template when enableInTreeAutoscaling), then one per worker group named after its
/// groupName in lower case. `what` names the owner in errors ("RayJob ns/name"). Fails
/// when a group has no template or a topology annotation does not parse.
Expected<json::array> ray_cluster_pod_sets(const json::value& cluster_spec, const client::Object& owner,
                                           std::string_view what, const PodSetOptions& options);

/// A Ray template's topologyRequest as Kueue's builder makes it (no pod index label:
/// KubeRay labels no pod with an index); nullopt when the template asks for nothing.
Expected<std::optional<json::object>> ray_topology_request(const client::Object& owner, const json::value& pod_template);

/// The PriorityClass the cluster's pods ask for: the head's template's, else the first
/// worker group's that names one; with the field it was read from (`path` is where the
/// cluster spec is, "spec" or "spec.rayClusterConfig"), for errors. Empty: none names one.
std::pair<std::string, std::string> ray_cluster_priority_class(const json::value& cluster_spec, std::string_view path);

/// UpdateRayClusterSpecToRunWithPodSetsInfo: infos[0] into the head template, infos[i+1]
/// into worker group i's. `infos` has at least ray_cluster_pod_set_count entries.
Expected<void, InjectionError> ray_cluster_inject(json::value& cluster_spec, const std::vector<PodSetInfo>& infos,
                                                  std::string_view what);

/// RestorePodSetsInfo, same pairing (the caller checks the count).
void ray_cluster_restore(json::value& cluster_spec, const std::vector<PodSetInfo>& infos);

}  // namespace kueuepp::kube::jobs
