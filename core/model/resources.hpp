#pragma once

// Resource lists and the per-pod request computation Kubernetes uses (containers, init
// containers with sidecars, pod overhead, pod-level resources, limits standing in for
// missing requests).

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/quantity.hpp"

namespace kueuepp::core {

using ResourceList = std::map<std::string, Quantity, std::less<>>;

struct ContainerResources {
  ResourceList requests;
  ResourceList limits;
  /// An init container with restartPolicy: Always (a sidecar) runs for the pod's lifetime.
  bool restart_always = false;
};

struct PodResources {
  std::vector<ContainerResources> containers;
  std::vector<ContainerResources> init_containers;
  ResourceList overhead;
  /// spec.resources (pod-level requests and limits), when set.
  std::optional<ContainerResources> pod_level;
};

/// The requests of one pod as kube-scheduler and Kueue compute them: the sum over
/// regular containers and sidecars, or the largest init-container phase if larger,
/// plus overhead; pod-level requests override the container aggregate for the
/// resources they name. Limits stand in for missing requests.
ResourceList pod_requests(const PodResources& pod);

/// requests[r] > limits[r] for some resource: the first such resource name.
std::optional<std::string> request_exceeding_limit(const ContainerResources& c);

}  // namespace kueuepp::core
