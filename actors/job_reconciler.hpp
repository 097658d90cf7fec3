#pragma once

// Kueue's batch/v1 Job integration as a pure function (no CAF, no I/O): given a Job,
// its Workload (if any) and what the cluster says about flavors and priority classes,
// the writes that move the pair one step towards Kueue's contract
// (../shared/reference/kueue-semantics.md section 3):
// - a managed Job gets a Workload owned by it (Kueue's name, podset "main");
// - a managed Job runs only while its Workload is admitted: suspended otherwise;
// - admission starts it: flavor node labels and tolerations injected into the pod
//   template, parallelism lowered on partial admission, unsuspended, in one write;
// - eviction stops it: suspended and the template restored; once stopped, the
//   Workload's quota is released (admission cleared, Requeued);
// - a finished Job finishes its Workload.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "actors/controller.hpp"
#include "core/model/time.hpp"
#include "kube/client/object.hpp"
#include "messages/object_kind.hpp"

namespace kueuepp::actors {

struct JobWrite {
  messages::ObjectKind kind = messages::ObjectKind::Job;
  enum class Verb { Create, MergePatch, MergePatchStatus } verb = Verb::MergePatch;
  std::string ns;
  std::string name;
  json::value body;
  std::string precondition_rv;
  std::string what;  ///< for logs and events: "created workload", "started", ...
};

struct JobContext {
  /// Node labels and tolerations (JSON array) of a ResourceFlavor, if it exists.
  std::function<const kube::client::Object*(const std::string& flavor)> flavor;
  /// The value of a WorkloadPriorityClass / PriorityClass, if it exists.
  std::function<std::optional<std::int32_t>(const std::string& name)> workload_priority_class;
  std::function<std::optional<std::int32_t>(const std::string& name)> priority_class;
  /// True when LocalQueue ns/name exists (manageJobsWithoutQueueName's "default").
  std::function<bool(const std::string& ns, const std::string& name)> local_queue_exists;
  JobIntegrationOptions options;
  core::Time now{};
};

/// Kueue's Workload name for a Job: job-<name>-<first 5 hex of sha1(kind, group, name, uid)>.
std::string workload_name_for_job(const std::string& job_name, const std::string& job_uid);

/// The queue a Job is submitted to, or nullopt when Kueue does not manage it.
std::optional<std::string> managed_queue(const kube::client::Object& job, const JobContext& ctx);

/// The Workload Kueue creates for a Job (error: why the Job cannot be queued).
Expected<kube::client::Object> build_workload(const kube::client::Object& job, const std::string& queue,
                                             const JobContext& ctx);

/// The next writes for a Job and its Workload (empty: nothing to do).
std::vector<JobWrite> reconcile_job(const kube::client::Object& job, const kube::client::Object* workload,
                                    const JobContext& ctx);

}  // namespace kueuepp::actors
