#pragma once

// The views of a batch/v1 Job that Kueue's reconciler acts on (job.Job in Kueue's
// pkg/controller/jobs/job): finished or not and how, whether its pods are ready
// (waitForPodsReady), whether pods still run (quota is released only after they stop),
// whether it is suspended in Kueue's sense, and how many pods it no longer needs.

#include <cstdint>
#include <optional>
#include <string>

#include "kube/client/object.hpp"

namespace kueuepp::kube::jobs {

struct JobFinish {
  bool succeeded = true;
  std::string message;  ///< the Complete/Failed condition's message, as Kueue copies it
  /// Finished=True reason for the Workload: "Succeeded" or "Failed".
  std::string_view workload_reason() const { return succeeded ? "Succeeded" : "Failed"; }
};

/// Kueue's Finished(): the first Complete or Failed condition with status True.
std::optional<JobFinish> job_finished(const client::Object& job);

/// Kueue's PodsReady(): succeeded + ready + uncounted succeeded pods >= the pod count.
bool job_pods_ready(const client::Object& job);

/// Pods counted towards PodsReady (succeeded + status.ready + uncountedTerminatedPods.succeeded).
std::int64_t job_ready_or_succeeded_pods(const client::Object& job);

/// Kueue's IsActive(): status.active != 0.
bool job_active(const client::Object& job);

/// Kueue's IsSuspended(): spec.suspend is true and Kueue is not in the middle of stopping
/// it (the kueue.x-k8s.io/stopping annotation is not "true").
bool job_suspended(const client::Object& job);

/// Kueue's ReclaimablePods() for pod set "main": pods the Job will never need again once
/// fewer completions remain than its parallelism (0: none). Indexed Jobs count completed
/// and failed indexes.
std::int64_t job_reclaimable_pods(const client::Object& job);

}  // namespace kueuepp::kube::jobs
