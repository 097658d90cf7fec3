#pragma once

// What Kueue injects into (and restores from) a pod template: Kueue's podset.PodSetInfo.
// At start it is built from the Workload's admission (the assigned ResourceFlavors' node
// labels and tolerations, the admitted count, Kueue's pod labels and annotations, the
// admission checks' podSetUpdates) and merged into the Job's template; at stop it is the
// Workload's own spec.podSets (the template as the Job had it before any injection) and
// replaces the template's scheduling fields.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.hpp"
#include "kube/client/object.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::jobs {

struct PodSetInfo {
  std::string name;
  std::int64_t count = 0;
  client::StringMap annotations;
  client::StringMap labels;
  client::StringMap node_selector;
  json::array tolerations;       ///< as JSON, so fields this code does not know survive
  json::array scheduling_gates;  ///< [{name}]
};

/// A ResourceFlavor by name (nullptr: it does not exist). The caller owns the objects.
using FlavorLookup = std::function<const client::Object*(std::string_view name)>;

struct InjectionOptions {
  /// Kueue's AssignQueueLabelsForPods (on by default): local-queue-name and
  /// cluster-queue-name pod labels.
  bool assign_queue_labels = true;
  /// Kueue's TopologyAwareScheduling (on by default): the kueue.x-k8s.io/workload
  /// annotation, and the topology gate for pod sets with a topology assignment.
  bool topology_aware_scheduling = true;
};

/// Why pod set info could not be built or merged. `permanent` errors (a pod set count
/// mismatch, conflicting labels or node selectors) will not go away by retrying: Kueue
/// finishes the Workload with reason FailedToStart. Others (a missing ResourceFlavor) are
/// retried.
struct InjectionError {
  std::string message;
  bool permanent = false;
};

/// Kueue's getPodSetsInfoFromStatus: one info per status.admission.podSetAssignments
/// entry (empty when the Workload has no admission).
Expected<std::vector<PodSetInfo>, InjectionError> pod_set_infos_from_admission(
    const client::Object& workload, const FlavorLookup& flavors, const InjectionOptions& options = {});

/// Kueue's podset.FromPodSet over spec.podSets: what stopping a Job restores.
std::vector<PodSetInfo> pod_set_infos_from_spec(const client::Object& workload);

/// PodSetInfo.Merge: maps are unioned (a key already present with another value is a
/// permanent error naming the field), tolerations and gates appended unless present.
Expected<void, InjectionError> merge_info(PodSetInfo& into, const PodSetInfo& from);

/// podset.Merge: `info` merged into a pod template ({metadata, spec}).
Expected<void, InjectionError> merge_into_template(json::value& pod_template, const PodSetInfo& info);

/// podset.RestorePodSpec: the template's annotations, labels, nodeSelector, tolerations
/// and schedulingGates replaced by `info`'s where they differ. True when anything changed.
bool restore_template(json::value& pod_template, const PodSetInfo& info);

/// Kubernetes' Toleration equality as Kueue uses it: key, operator ("" is Equal), value and
/// effect (tolerationSeconds is not compared).
bool same_toleration(const json::value& a, const json::value& b);

}  // namespace kueuepp::kube::jobs
