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
#include <string>
#include <vector>

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
  /// Feature gate ValidateRayAndSparkJobUpdates (beta, on by default since Kueue 0.18): a
  /// RayJob, RayCluster or RayService update is checked while the old object had a queue
  /// name too, so that dropping the name cannot leave it running unmanaged.
  bool validate_ray_updates = true;
  /// integrations.frameworks: the kinds whose webhooks act (the others' allow everything
  /// unchanged, as Kueue's no-op webhooks), and whose children are left alone.
  std::vector<std::string> frameworks = {"batch/job"};
};

/// The selector Kueue's Configuration defaults managedJobsNamespaceSelector to.
core::LabelSelector default_managed_jobs_namespace_selector(std::string_view kueue_namespace);

/// Whether a Job of `labels` in `ns` is managed by Kueue's rule (WorkloadShouldBeSuspended):
/// it has a queue name, or manageJobsWithoutQueueName holds and its namespace matches.
/// Namespace labels not known yet (a namespace the watch has not delivered) are taken as
/// the one label every namespace has, kubernetes.io/metadata.name.
bool job_is_managed(const json::value& job, std::string_view ns, const JobWebhookPolicy& policy,
                    const ClusterFacts& facts);

/// Whether the object's controller is a kind of job in policy.frameworks (Kueue's
/// IsOwnerManagedByKueue): a JobSet's child Job is neither suspended nor queued itself.
bool owner_managed_by_kueue(const json::value& object, const JobWebhookPolicy& policy);

/// mjob: the patch for a Job being created (allowed, possibly with no patch). The same
/// defaults (jobframework's) serve every kind without its own (mjobset).
AdmissionResponse default_job(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                              const ClusterFacts& facts);

/// mjobset: default_job when JobSets are integrated, else allowed unchanged.
AdmissionResponse default_jobset(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                 const ClusterFacts& facts);

/// vjobset (jobframework.ValidateJobOnCreate and ValidateJobOnUpdate): the queue-name,
/// prebuilt-workload and max-exec-time labels well formed, the queue name and max exec
/// time frozen while the JobSet runs, the priority class neither added while running nor
/// removed. Empty when valid.
FieldErrors validate_jobset(const AdmissionRequest& request, const ClusterFacts& facts);

/// vjobset: allowed, or refused (403) with the aggregate of validate_jobset's errors.
AdmissionResponse review_jobset(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                const ClusterFacts& facts);

/// mpytorchjob, mtfjob, mxgboostjob, mpaddlejob, mjaxjob, mmpijob: default_job's defaults
/// with spec.runPolicy.suspend as the suspend flag, when the object's kind is integrated;
/// else allowed unchanged (Kueue's no-op webhook).
AdmissionResponse default_kubeflow_job(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                       const ClusterFacts& facts);

/// vpytorchjob, ... (jobframework.ValidateJobOnCreate and ValidateJobOnUpdate, as for
/// JobSets, "running" read from spec.runPolicy.suspend). Kueue's topology annotation
/// checks of these kinds are not made. Empty when valid.
FieldErrors validate_kubeflow_job(const AdmissionRequest& request, const ClusterFacts& facts);

/// vpytorchjob, ...: allowed, or refused (403) with validate_kubeflow_job's errors; allowed
/// unchanged when the object's kind is not integrated.
AdmissionResponse review_kubeflow_job(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                      const ClusterFacts& facts);

/// mrayjob: default_job's defaults (spec.suspend) when RayJobs are integrated, else
/// allowed unchanged.
AdmissionResponse default_rayjob(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                 const ClusterFacts& facts);

/// vrayjob (Kueue's rayjob_webhook): for a managed RayJob (a queue name, or
/// manageJobsWithoutQueueName), no clusterSelector beside a rayClusterSpec, a
/// rayClusterSpec unless it runs on an existing cluster, shutdownAfterJobFinishes, no
/// in-tree autoscaling (Kueue allows it only with workload slicing, which kueuepp has
/// not), at most 18 pod sets, no worker group named "head"; then jobframework's create
/// and update checks. An unmanaged RayJob's updates are not checked. Kueue's topology
/// annotation checks are not made. Empty when valid.
FieldErrors validate_rayjob(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                            const ClusterFacts& facts);

/// vrayjob: allowed, or refused (403) with validate_rayjob's errors; allowed unchanged
/// when RayJobs are not integrated.
AdmissionResponse review_rayjob(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                const ClusterFacts& facts);

/// mraycluster: default_job's defaults (spec.suspend; nothing for a RayCluster a managed
/// RayJob controls) when RayClusters are integrated, else allowed unchanged.
AdmissionResponse default_raycluster(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                     const ClusterFacts& facts);

/// vraycluster (Kueue's raycluster_webhook): for a managed RayCluster, no in-tree
/// autoscaling (Kueue's elastic-job message), at most 18 pod sets, no worker group named
/// "head"; then jobframework's create and update checks. Empty when valid.
FieldErrors validate_raycluster(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                const ClusterFacts& facts);

/// vraycluster: allowed, or refused (403) with validate_raycluster's errors.
AdmissionResponse review_raycluster(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                    const ClusterFacts& facts);

/// mrayservice: default_job's defaults with spec.rayClusterConfig.suspend as the suspend
/// flag (Kueue suspends the service's cluster) when RayServices are integrated, else
/// allowed unchanged.
AdmissionResponse default_rayservice(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                     const ClusterFacts& facts);

/// vrayservice (Kueue's rayservice_webhook): for a managed RayService, its
/// rayClusterConfig as vrayjob checks a rayClusterSpec (no in-tree autoscaling, at most 18
/// pod sets, no worker group named "head"; the errors name spec.rayClusterSpec, as
/// Kueue's do); then jobframework's create and update checks, an update checked while the
/// new or the old RayService has a queue name (ValidateRayAndSparkJobUpdates, on by
/// default). Kueue's topology annotation checks are not made. Empty when valid.
FieldErrors validate_rayservice(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                const ClusterFacts& facts);

/// vrayservice: allowed, or refused (403) with validate_rayservice's errors; allowed
/// unchanged when RayServices are not integrated.
AdmissionResponse review_rayservice(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                    const ClusterFacts& facts);

/// mtrainjob: default_job's defaults (spec.suspend) when TrainJobs are integrated, and
/// Kueue's runtime patch (manager kueue.x-k8s.io/manager) appended unless present; else
/// allowed unchanged.
AdmissionResponse default_trainjob(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                   const ClusterFacts& facts);

/// vtrainjob (Kueue's trainjob_webhook): jobframework's create and update checks. Kueue's
/// topology annotation checks of the runtime's templates, and with them its refusal of a
/// TrainJob whose runtime does not exist, are not made: the webhook does not read
/// runtimes (the controller says so on the TrainJob instead). Empty when valid.
FieldErrors validate_trainjob(const AdmissionRequest& request, const ClusterFacts& facts);

/// vtrainjob: allowed, or refused (403) with validate_trainjob's errors; allowed unchanged
/// when TrainJobs are not integrated.
AdmissionResponse review_trainjob(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                  const ClusterFacts& facts);

/// mappwrapper: default_job's defaults (spec.suspend) when AppWrappers are integrated, else
/// allowed unchanged (Kueue's BaseWebhook for AppWrapper).
AdmissionResponse default_appwrapper(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                     const ClusterFacts& facts);

/// vappwrapper (BaseWebhook: jobframework.ValidateJobOnCreate and ValidateJobOnUpdate, as
/// for JobSets; Kueue has no AppWrapper-specific checks). Empty when valid.
FieldErrors validate_appwrapper(const AdmissionRequest& request, const ClusterFacts& facts);

/// vappwrapper: allowed, or refused (403) with validate_appwrapper's errors; allowed
/// unchanged when AppWrappers are not integrated.
AdmissionResponse review_appwrapper(const AdmissionRequest& request, const JobWebhookPolicy& policy,
                                    const ClusterFacts& facts);

/// vjob's checks; empty when the Job is valid.
FieldErrors validate_job(const AdmissionRequest& request, const ClusterFacts& facts);

/// vjob: allowed, or refused (403) with the aggregate of validate_job's errors.
AdmissionResponse review_job(const AdmissionRequest& request, const ClusterFacts& facts);

}  // namespace kueuepp::kube::webhook
