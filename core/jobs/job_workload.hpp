#pragma once

// Kueue's batch Job integration contract: the Workload a Job with the
// kueue.x-k8s.io/queue-name label gets (one pod set "main", count min(parallelism,
// completions), minCount from kueue.x-k8s.io/job-min-parallelism, priority from the
// kueue.x-k8s.io/priority-class label or the pod's priorityClassName).

#include <optional>
#include <string>

#include "core/expected.hpp"
#include "core/model/job.hpp"
#include "core/model/workload.hpp"

namespace kueuepp::core {

inline constexpr const char* kQueueNameLabel = "kueue.x-k8s.io/queue-name";
inline constexpr const char* kPriorityClassLabel = "kueue.x-k8s.io/priority-class";
inline constexpr const char* kMinParallelismAnnotation = "kueue.x-k8s.io/job-min-parallelism";
inline constexpr const char* kJobUidLabel = "kueue.x-k8s.io/job-uid";

/// Pods the Job runs at once: parallelism, capped by completions.
std::int32_t job_pod_count(const BatchJob& job);

struct JobWorkloadOptions {
  /// The Workload's name (Kueue: job-<name>-<hash>; scenarios use the Job's name).
  std::string workload_name;
  /// Queue to use when the Job has no queue-name label (manageJobsWithoutQueueName with
  /// a LocalQueue named "default"); empty: such Jobs get no Workload.
  std::string default_queue;
  /// manageJobsWithoutQueueName without a LocalQueue named "default": the Job is managed
  /// all the same, its Workload has no queue and waits for one.
  bool managed_without_queue = false;
  bool partial_admission = true;
};

/// The Workload for a Job, or an error saying why the Job cannot be queued (no queue
/// name, an invalid min-parallelism annotation).
Expected<Workload> workload_for_job(const BatchJob& job, const JobWorkloadOptions& options);

}  // namespace kueuepp::core
