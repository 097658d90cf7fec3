#pragma once

// The pod sets Kueue derives from a batch/v1 Job (job.PodSets + jobframework.SanitizePodSets),
// in the Workload API's JSON shape: one pod set "main" whose count is min(parallelism,
// completions), whose minCount is the kueue.x-k8s.io/job-min-parallelism annotation, whose
// template is the Job's pod template without the labels the Job controller manages, with
// duplicate container env vars collapsed, and (with topology-aware scheduling) a
// topologyRequest naming the completion-index label. The Workload builder and the
// equivalence check both use it, so a Workload and its Job compare like for like.

#include <cstdint>
#include <optional>

#include "core/expected.hpp"
#include "kube/client/object.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::jobs {

struct PodSetOptions {
  /// Kueue's PartialAdmission feature gate (on by default): minCount is kept.
  bool partial_admission = true;
  /// Kueue's TopologyAwareScheduling feature gate (on by default): topologyRequest is set.
  bool topology_aware_scheduling = true;
};

/// Kueue's podsCount: spec.parallelism (1 when absent), capped by spec.completions.
std::int64_t job_pods_count(const client::Object& job);

/// Kueue's minPodsCount: the job-min-parallelism annotation when it is an integer.
/// Partial admission is "on" for a Job exactly when this has a value.
std::optional<std::int64_t> job_min_pods_count(const client::Object& job);

/// The job-completions-equal-parallelism annotation parsed as Go's strconv.ParseBool.
bool job_completions_follow_parallelism(const client::Object& job);

/// Go's strconv.ParseBool: 1 t T TRUE true True / 0 f F FALSE false False.
std::optional<bool> parse_go_bool(std::string_view text);

/// Kueue's SanitizePodSets for one pod spec: each container's env with one entry per name
/// (the last definition wins).
void sanitize_containers(json::value& pod_spec);

/// jobframework.NewPodSetTopologyRequest(template metadata).PodIndexLabel(the Job
/// completion index).Build(): the pod set's topologyRequest from the template's
/// annotations. Fails (naming `owner`) when an annotation does not parse.
Expected<json::object> topology_request(const client::Object& owner, const json::value& pod_template);

/// The Job's pod sets (a one-element array). Fails when the Job has no pod template or a
/// topology annotation does not parse.
Expected<json::array> job_pod_sets(const client::Object& job, const PodSetOptions& options = {});

}  // namespace kueuepp::kube::jobs
