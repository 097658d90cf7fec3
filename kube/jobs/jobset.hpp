#pragma once

// JobSet (jobset.x-k8s.io/v1alpha2) as a Kueue job integration ("jobset.x-k8s.io/jobset",
// Kueue's pkg/controller/jobs/jobset): one pod set per replicated job, named after it,
// of replicas x pods per replica (a Job's podsCount: parallelism capped by completions);
// the JobSet suspended and resumed as a whole through spec.suspend; the admitted
// flavors' scheduling directives injected into every replicated job's pod template at
// start and restored from the Workload's pod sets at stop, in the same write; finished
// from its Completed or Failed condition; active while a child Job has active pods.

#include <cstdint>

#include "kube/jobs/integration.hpp"
#include "kube/jobs/job_pod_sets.hpp"

namespace kueuepp::kube::jobs {

/// Kueue's name for the integration.
inline constexpr std::string_view kJobSetFramework = "jobset.x-k8s.io/jobset";
/// The label the JobSet controller puts on its child Jobs' pods: which replica they are.
inline constexpr std::string_view kJobSetJobIndexLabel = "jobset.sigs.k8s.io/job-index";

const JobIntegration& jobset_integration();

/// PodsCountPerReplica: a replicated job's parallelism (1 when absent), capped by its
/// completions.
std::int64_t jobset_pods_per_replica(const json::value& replicated_job);

/// The JobSet's pod sets, in the Workload API's JSON shape (one per replicated job).
/// Fails when a replicated job has no pod template or a topology annotation does not parse.
Expected<json::array> jobset_pod_sets(const client::Object& jobset, const PodSetOptions& options = {});

/// Kueue's JobSet webhook checks on create and update (ValidateJobOnCreate): the
/// queue-name label and max-exec-time-seconds well formed. Empty when valid.
Status validate_jobset(const client::Object& jobset);

}  // namespace kueuepp::kube::jobs
