#include "kube/webhook/webhook_dispatch.hpp"

#include "kube/webhook/kueue_kind_webhooks.hpp"

namespace kueuepp::kube::webhook {

AdmissionResponse decide(WebhookKind kind, const AdmissionRequest& request, const JobWebhookPolicy& policy,
                         const ClusterFacts& facts) {
  switch (kind) {
    case WebhookKind::MutateJob: return default_job(request, policy, facts);
    case WebhookKind::ValidateJob: return review_job(request, facts);
    case WebhookKind::MutateJobSet: return default_jobset(request, policy, facts);
    case WebhookKind::ValidateJobSet: return review_jobset(request, policy, facts);
    case WebhookKind::MutateKubeflowJob: return default_kubeflow_job(request, policy, facts);
    case WebhookKind::ValidateKubeflowJob: return review_kubeflow_job(request, policy, facts);
    case WebhookKind::MutateRayJob: return default_rayjob(request, policy, facts);
    case WebhookKind::ValidateRayJob: return review_rayjob(request, policy, facts);
    case WebhookKind::MutateRayCluster: return default_raycluster(request, policy, facts);
    case WebhookKind::ValidateRayCluster: return review_raycluster(request, policy, facts);
    case WebhookKind::MutateRayService: return default_rayservice(request, policy, facts);
    case WebhookKind::ValidateRayService: return review_rayservice(request, policy, facts);
    case WebhookKind::MutateTrainJob: return default_trainjob(request, policy, facts);
    case WebhookKind::ValidateTrainJob: return review_trainjob(request, policy, facts);
    case WebhookKind::MutateAppWrapper: return default_appwrapper(request, policy, facts);
    case WebhookKind::ValidateAppWrapper: return review_appwrapper(request, policy, facts);
    case WebhookKind::MutateClusterQueue:
    case WebhookKind::MutateResourceFlavor: return default_with_resource_in_use_finalizer(request);
    case WebhookKind::ValidateClusterQueue: return review_cluster_queue(request);
    case WebhookKind::ValidateCohort: return review_cohort(request);
    case WebhookKind::ValidateResourceFlavor: return review_resource_flavor(request);
    case WebhookKind::MutateWorkload: return allowed(request.uid);
    case WebhookKind::ValidateWorkload: return review_workload(request);
  }
  return allowed(request.uid);
}

}  // namespace kueuepp::kube::webhook
