#pragma once

// Kueue's batch/v1 Job webhooks (pkg/controller/jobs/job/job_webhook.go and
// jobframework's defaults and validation) as pure decisions: the object under review and
// the cluster facts in, the patch or the refusal out.
//
// mjob (/mutate-batch-v1-job, CREATE): the default LocalQueue label, the default
// WorkloadPriorityClass label, and spec.suspend=true for a managed Job.
// vjob (/validate-batch-v1-job, CREATE and UPDATE): label and annotation formats, the
// queue name frozen while the Job runs, partial admission and max execution time.

#include <optional>

#include "core/model/labels.hpp"
#include "kube/webhook/admission_review.hpp"
#include "kube/webhook/cluster_facts.hpp"
#include "kube/webhook/field_errors.hpp"

namespace kueuepp::kube::webhook {

/// The Configuration fields the Job webhooks follow.
struct JobWebhookPolicy {
  /// manageJobsWithoutQueueName.
  bool manage_jobs_without_queue_name = false;
  /// managedJobsNamespaceSelector (Kueue defaults it to kubernetes.io/metadata.name NotIn
  /// [kube-system, <kueue namespace>]); nullopt matches every namespace.
  std::optional<core::LabelSelector> managed_jobs_namespace_selector;
  /// Feature gate WorkloadPriorityClassDefaulting (beta, on by default since Kueue 0.20).
  bool workload_priority_class_defaulting = true;
};

/// The selector Kueue's Configuration defaults managedJobsNamespaceSelector to.
core::LabelSelector default_managed_jobs_namespace_selector(std::string_view kueue_namespace);

/// Whether a Job of `labels` in `ns` is managed by Kueue's rule (WorkloadShouldBeSuspended):
/// it has a queue name, or manageJobsWithoutQueueName holds and its namespace matches.
/// Namespace labels not known yet (a namespace the watch has not delivered) are taken as
/// the one label every namespace has, kubernetes.io/metadata.name.
bool job_is_managed(const json::value& job, std::string_view ns, const JobWebhookPolicy& policy,
                    const ClusterFacts& facts);

/// mjob: the patch for a Job being created (allowed, possibly with no patch).
AdmissionResponse default_job(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                              const ClusterFacts& facts);

/// vjob's checks; empty when the Job is valid.
FieldErrors validate_job(const AdmissionRequest& request, const ClusterFacts& facts);

/// vjob: allowed, or refused (403) with the aggregate of validate_job's errors.
AdmissionResponse review_job(const AdmissionRequest& request, const ClusterFacts& facts);

}  // namespace kueuepp::kube::webhook
