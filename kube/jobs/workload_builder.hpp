#pragma once

// The Workload Kueue creates for a batch/v1 Job (jobframework.ConstructWorkload plus
// prepareWorkload): named by workload_name_for_job, in the Job's namespace, controlled by
// the Job (garbage-collected with it), protected by Kueue's resource-in-use finalizer,
// labelled with the Job's uid, queued to the Job's LocalQueue, with the Job's pod set
// "main" and its priority resolved from the WorkloadPriorityClass label or the pod's
// PriorityClass. The Job is validated as Kueue's job webhook validates it first, and every
// error names the Job and the field.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/expected.hpp"
#include "kube/client/kinds/workload.hpp"
#include "kube/client/object.hpp"
#include "kube/client/resource.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::jobs {

/// A priority class's value by name; nullopt when it does not exist.
using PriorityLookup = std::function<std::optional<std::int32_t>(std::string_view name)>;

struct BuildOptions {
  /// The LocalQueue for Jobs without the queue-name label (manageJobsWithoutQueueName with
  /// a default LocalQueue). Empty: such Jobs are not managed and building fails.
  std::string default_queue;
  /// A Job managed without a queue (see core::JobWorkloadOptions::managed_without_queue).
  bool managed_without_queue = false;
  /// Kueue feature gates, with Kueue's defaults.
  bool partial_admission = true;
  bool topology_aware_scheduling = true;
  bool short_workload_names = false;
  bool admission_gated_by = true;
  /// Configuration labelKeysToCopy: Job labels copied onto the Workload.
  std::vector<std::string> label_keys_to_copy;
  /// WorkloadPriorityClass values (kueue.x-k8s.io/priority-class label).
  PriorityLookup workload_priority_class;
  /// PriorityClass values (the pod template's priorityClassName). The built-in
  /// system-cluster-critical and system-node-critical are known without it.
  PriorityLookup priority_class;
  /// The PriorityClass with globalDefault=true (the lowest-valued one if several), used
  /// when neither the label nor the pod names a class.
  std::optional<std::pair<std::string, std::int32_t>> default_priority_class;
};

/// What Kueue's job webhook rejects on create: an invalid queue-name label,
/// max-exec-time-seconds that is not a positive integer, a job-min-parallelism that is not
/// an integer in (0, pod count), job-completions-equal-parallelism that is not a boolean or
/// is true for a NonIndexed Job or one whose completions differ from parallelism.
Status validate_job(const client::Object& job);

/// What Kueue's webhooks check on every kind (ValidateJobOnCreate): the queue-name label
/// a DNS-1123 subdomain, max-exec-time-seconds a positive integer. `kind` names the owner.
Status validate_owner_labels(const client::Object& owner, std::string_view kind);

struct WorkloadPriority {
  std::optional<client::PriorityClassRef> ref;
  std::int32_t value = 0;
};

/// Kueue's ExtractPriority for a Job. Fails when the named class does not exist.
Expected<WorkloadPriority> job_priority(const client::Object& job, const BuildOptions& options);

/// The Workload object to create for `job`.
Expected<client::Object> build_workload(const client::Object& job, const BuildOptions& options);

// The parts every kind of job shares (jobframework.ConstructWorkload), for the adapters
// of the other kinds (jobset.hpp, ...).

/// Kueue's ExtractPriority for any kind: the WorkloadPriorityClass label, else the pods'
/// PriorityClass (`pod_priority_class`, read from `pod_field` for the error), else the
/// default PriorityClass. `kind` names the owner in errors ("JobSet").
Expected<WorkloadPriority> owner_priority(const client::Object& owner, std::string_view kind,
                                          std::string_view pod_priority_class, std::string_view pod_field,
                                          const BuildOptions& options);

/// The LocalQueue the owner's Workload is queued to: its queue-name label, else the
/// default queue; empty only when managed without a queue. Fails when unmanaged.
Expected<std::string> owner_queue(const client::Object& owner, std::string_view kind, const BuildOptions& options);

/// The Workload for an owner of kind `owner_resource`: Kueue's name (prefix and hash of
/// the owner's GVK, name and uid), controlled by the owner, Kueue's finalizer, labels
/// and annotations, the given queue, pod sets and priority, and the maximum execution time.
client::Object assemble_workload(const client::Object& owner, const client::ResourceDescriptor& owner_resource,
                                 std::string_view queue, json::array pod_sets, const WorkloadPriority& priority,
                                 const BuildOptions& options);

}  // namespace kueuepp::kube::jobs
