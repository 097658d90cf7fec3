#include "kube/webhook/webhook_catalog.hpp"

#include <array>

namespace kueuepp::kube::webhook {

namespace {

constexpr std::string_view kCreate[] = {"CREATE"};
constexpr std::string_view kCreateUpdate[] = {"CREATE", "UPDATE"};
constexpr std::string_view kJobs[] = {"jobs"};
constexpr std::string_view kJobSets[] = {"jobsets"};
constexpr std::string_view kJobSetGroup = "jobset.x-k8s.io";
constexpr std::string_view kKubeflowGroup = "kubeflow.org";
constexpr std::string_view kPytorchjobs[] = {"pytorchjobs"};
constexpr std::string_view kTfjobs[] = {"tfjobs"};
constexpr std::string_view kXgboostjobs[] = {"xgboostjobs"};
constexpr std::string_view kPaddlejobs[] = {"paddlejobs"};
constexpr std::string_view kJaxjobs[] = {"jaxjobs"};
constexpr std::string_view kMpijobs[] = {"mpijobs"};
constexpr std::string_view kRayGroup = "ray.io";
constexpr std::string_view kRayjobs[] = {"rayjobs"};
constexpr std::string_view kRayclusters[] = {"rayclusters"};
constexpr std::string_view kRayservices[] = {"rayservices"};
constexpr std::string_view kTrainerGroup = "trainer.kubeflow.org";
constexpr std::string_view kTrainjobs[] = {"trainjobs"};
constexpr std::string_view kAppWrapperGroup = "workload.codeflare.dev";
constexpr std::string_view kAppwrappers[] = {"appwrappers"};
constexpr std::string_view kClusterQueues[] = {"clusterqueues"};
constexpr std::string_view kCohorts[] = {"cohorts"};
constexpr std::string_view kResourceFlavors[] = {"resourceflavors"};
constexpr std::string_view kWorkloads[] = {"workloads"};
constexpr std::string_view kWorkloadsAndStatus[] = {"workloads", "workloads/status"};
constexpr std::string_view kKueue = "kueue.x-k8s.io";
constexpr std::string_view kV1beta2 = "v1beta2";

using enum FailurePolicy;
using enum ObjectFilter;

const std::array<WebhookSpec, 46> kCatalog{{
    {WebhookKind::MutateJob, "mjob.kb.io", "/mutate-batch-v1-job", true, "batch", "v1", kJobs, kCreate, Fail,
     QueueNameSet, true, true},
    {WebhookKind::MutateJob, "mjob-unlabelled.kueuepp.x-k8s.io", "/mutate-batch-v1-job", true, "batch", "v1", kJobs,
     kCreate, Ignore, QueueNameUnset, true, true},
    // JobSets as Jobs (the same failure policies, by the same reasoning).
    {WebhookKind::MutateJobSet, "mjobset.kb.io", "/mutate-jobset-x-k8s-io-v1alpha2-jobset", true, kJobSetGroup,
     "v1alpha2", kJobSets, kCreate, Fail, QueueNameSet, true, true},
    {WebhookKind::MutateJobSet, "mjobset-unlabelled.kueuepp.x-k8s.io", "/mutate-jobset-x-k8s-io-v1alpha2-jobset", true,
     kJobSetGroup, "v1alpha2", kJobSets, kCreate, Ignore, QueueNameUnset, true, true},
    // The Kubeflow jobs and MPIJob as JobSets.
    {WebhookKind::MutateKubeflowJob, "mpytorchjob.kb.io", "/mutate-kubeflow-org-v1-pytorchjob", true, kKubeflowGroup, "v1",
     kPytorchjobs, kCreate, Fail, QueueNameSet, true, true},
    {WebhookKind::MutateKubeflowJob, "mpytorchjob-unlabelled.kueuepp.x-k8s.io", "/mutate-kubeflow-org-v1-pytorchjob", true,
     kKubeflowGroup, "v1", kPytorchjobs, kCreate, Ignore, QueueNameUnset, true, true},
    {WebhookKind::MutateKubeflowJob, "mtfjob.kb.io", "/mutate-kubeflow-org-v1-tfjob", true, kKubeflowGroup, "v1",
     kTfjobs, kCreate, Fail, QueueNameSet, true, true},
    {WebhookKind::MutateKubeflowJob, "mtfjob-unlabelled.kueuepp.x-k8s.io", "/mutate-kubeflow-org-v1-tfjob", true,
     kKubeflowGroup, "v1", kTfjobs, kCreate, Ignore, QueueNameUnset, true, true},
    {WebhookKind::MutateKubeflowJob, "mxgboostjob.kb.io", "/mutate-kubeflow-org-v1-xgboostjob", true, kKubeflowGroup, "v1",
     kXgboostjobs, kCreate, Fail, QueueNameSet, true, true},
    {WebhookKind::MutateKubeflowJob, "mxgboostjob-unlabelled.kueuepp.x-k8s.io", "/mutate-kubeflow-org-v1-xgboostjob", true,
     kKubeflowGroup, "v1", kXgboostjobs, kCreate, Ignore, QueueNameUnset, true, true},
    {WebhookKind::MutateKubeflowJob, "mpaddlejob.kb.io", "/mutate-kubeflow-org-v1-paddlejob", true, kKubeflowGroup, "v1",
     kPaddlejobs, kCreate, Fail, QueueNameSet, true, true},
    {WebhookKind::MutateKubeflowJob, "mpaddlejob-unlabelled.kueuepp.x-k8s.io", "/mutate-kubeflow-org-v1-paddlejob", true,
     kKubeflowGroup, "v1", kPaddlejobs, kCreate, Ignore, QueueNameUnset, true, true},
    {WebhookKind::MutateKubeflowJob, "mjaxjob.kb.io", "/mutate-kubeflow-org-v1-jaxjob", true, kKubeflowGroup, "v1",
     kJaxjobs, kCreate, Fail, QueueNameSet, true, true},
    {WebhookKind::MutateKubeflowJob, "mjaxjob-unlabelled.kueuepp.x-k8s.io", "/mutate-kubeflow-org-v1-jaxjob", true,
     kKubeflowGroup, "v1", kJaxjobs, kCreate, Ignore, QueueNameUnset, true, true},
    {WebhookKind::MutateKubeflowJob, "mmpijob.kb.io", "/mutate-kubeflow-org-v2beta1-mpijob", true, kKubeflowGroup, "v2beta1",
     kMpijobs, kCreate, Fail, QueueNameSet, true, true},
    {WebhookKind::MutateKubeflowJob, "mmpijob-unlabelled.kueuepp.x-k8s.io", "/mutate-kubeflow-org-v2beta1-mpijob", true,
     kKubeflowGroup, "v2beta1", kMpijobs, kCreate, Ignore, QueueNameUnset, true, true},
    {WebhookKind::MutateRayJob, "mrayjob.kb.io", "/mutate-ray-io-v1-rayjob", true, kRayGroup, "v1", kRayjobs, kCreate,
     Fail, QueueNameSet, true, true},
    {WebhookKind::MutateRayJob, "mrayjob-unlabelled.kueuepp.x-k8s.io", "/mutate-ray-io-v1-rayjob", true, kRayGroup, "v1",
     kRayjobs, kCreate, Ignore, QueueNameUnset, true, true},
    {WebhookKind::MutateRayCluster, "mraycluster.kb.io", "/mutate-ray-io-v1-raycluster", true, kRayGroup, "v1",
     kRayclusters, kCreate, Fail, QueueNameSet, true, true},
    {WebhookKind::MutateRayCluster, "mraycluster-unlabelled.kueuepp.x-k8s.io", "/mutate-ray-io-v1-raycluster", true,
     kRayGroup, "v1", kRayclusters, kCreate, Ignore, QueueNameUnset, true, true},
    {WebhookKind::MutateRayService, "mrayservice.kb.io", "/mutate-ray-io-v1-rayservice", true, kRayGroup, "v1",
     kRayservices, kCreate, Fail, QueueNameSet, true, true},
    {WebhookKind::MutateRayService, "mrayservice-unlabelled.kueuepp.x-k8s.io", "/mutate-ray-io-v1-rayservice", true,
     kRayGroup, "v1", kRayservices, kCreate, Ignore, QueueNameUnset, true, true},
    {WebhookKind::MutateTrainJob, "mtrainjob.kb.io", "/mutate-trainer-kubeflow-org-v1alpha1-trainjob", true,
     kTrainerGroup, "v1alpha1", kTrainjobs, kCreate, Fail, QueueNameSet, true, true},
    {WebhookKind::MutateTrainJob, "mtrainjob-unlabelled.kueuepp.x-k8s.io", "/mutate-trainer-kubeflow-org-v1alpha1-trainjob",
     true, kTrainerGroup, "v1alpha1", kTrainjobs, kCreate, Ignore, QueueNameUnset, true, true},
    {WebhookKind::MutateAppWrapper, "mappwrapper.kb.io", "/mutate-workload-codeflare-dev-v1beta2-appwrapper", true,
     kAppWrapperGroup, kV1beta2, kAppwrappers, kCreate, Fail, QueueNameSet, true, true},
    {WebhookKind::MutateAppWrapper, "mappwrapper-unlabelled.kueuepp.x-k8s.io",
     "/mutate-workload-codeflare-dev-v1beta2-appwrapper", true, kAppWrapperGroup, kV1beta2, kAppwrappers, kCreate,
     Ignore, QueueNameUnset, true, true},
    {WebhookKind::MutateClusterQueue, "mclusterqueue.kb.io", "/mutate-kueue-x-k8s-io-v1beta2-clusterqueue", true, kKueue,
     kV1beta2, kClusterQueues, kCreate, Fail, Any, false, true},
    {WebhookKind::MutateResourceFlavor, "mresourceflavor.kb.io", "/mutate-kueue-x-k8s-io-v1beta2-resourceflavor", true,
     kKueue, kV1beta2, kResourceFlavors, kCreate, Fail, Any, false, true},
    {WebhookKind::MutateWorkload, "mworkload.kb.io", "/mutate-kueue-x-k8s-io-v1beta2-workload", true, kKueue, kV1beta2,
     kWorkloads, kCreate, Fail, Any, true, false},
    {WebhookKind::ValidateJob, "vjob.kb.io", "/validate-batch-v1-job", false, "batch", "v1", kJobs, kCreateUpdate, Fail,
     QueueNameSet, true, true},
    {WebhookKind::ValidateJobSet, "vjobset.kb.io", "/validate-jobset-x-k8s-io-v1alpha2-jobset", false, kJobSetGroup,
     "v1alpha2", kJobSets, kCreateUpdate, Fail, QueueNameSet, true, true},
    {WebhookKind::ValidateKubeflowJob, "vpytorchjob.kb.io", "/validate-kubeflow-org-v1-pytorchjob", false, kKubeflowGroup, "v1",
     kPytorchjobs, kCreateUpdate, Fail, QueueNameSet, true, true},
    {WebhookKind::ValidateKubeflowJob, "vtfjob.kb.io", "/validate-kubeflow-org-v1-tfjob", false, kKubeflowGroup, "v1",
     kTfjobs, kCreateUpdate, Fail, QueueNameSet, true, true},
    {WebhookKind::ValidateKubeflowJob, "vxgboostjob.kb.io", "/validate-kubeflow-org-v1-xgboostjob", false, kKubeflowGroup, "v1",
     kXgboostjobs, kCreateUpdate, Fail, QueueNameSet, true, true},
    {WebhookKind::ValidateKubeflowJob, "vpaddlejob.kb.io", "/validate-kubeflow-org-v1-paddlejob", false, kKubeflowGroup, "v1",
     kPaddlejobs, kCreateUpdate, Fail, QueueNameSet, true, true},
    {WebhookKind::ValidateKubeflowJob, "vjaxjob.kb.io", "/validate-kubeflow-org-v1-jaxjob", false, kKubeflowGroup, "v1",
     kJaxjobs, kCreateUpdate, Fail, QueueNameSet, true, true},
    {WebhookKind::ValidateKubeflowJob, "vmpijob.kb.io", "/validate-kubeflow-org-v2beta1-mpijob", false, kKubeflowGroup, "v2beta1",
     kMpijobs, kCreateUpdate, Fail, QueueNameSet, true, true},
    {WebhookKind::ValidateRayJob, "vrayjob.kb.io", "/validate-ray-io-v1-rayjob", false, kRayGroup, "v1", kRayjobs,
     kCreateUpdate, Fail, QueueNameSet, true, true},
    {WebhookKind::ValidateRayCluster, "vraycluster.kb.io", "/validate-ray-io-v1-raycluster", false, kRayGroup, "v1",
     kRayclusters, kCreateUpdate, Fail, QueueNameSet, true, true},
    {WebhookKind::ValidateRayService, "vrayservice.kb.io", "/validate-ray-io-v1-rayservice", false, kRayGroup, "v1",
     kRayservices, kCreateUpdate, Fail, QueueNameSet, true, true},
    {WebhookKind::ValidateTrainJob, "vtrainjob.kb.io", "/validate-trainer-kubeflow-org-v1alpha1-trainjob", false,
     kTrainerGroup, "v1alpha1", kTrainjobs, kCreateUpdate, Fail, QueueNameSet, true, true},
    {WebhookKind::ValidateAppWrapper, "vappwrapper.kb.io", "/validate-workload-codeflare-dev-v1beta2-appwrapper", false,
     kAppWrapperGroup, kV1beta2, kAppwrappers, kCreateUpdate, Fail, QueueNameSet, true, true},
    {WebhookKind::ValidateClusterQueue, "vclusterqueue.kb.io", "/validate-kueue-x-k8s-io-v1beta2-clusterqueue", false,
     kKueue, kV1beta2, kClusterQueues, kCreateUpdate, Fail, Any, false, true},
    {WebhookKind::ValidateCohort, "vcohort.kb.io", "/validate-kueue-x-k8s-io-v1beta2-cohort", false, kKueue, kV1beta2,
     kCohorts, kCreateUpdate, Fail, Any, false, true},
    {WebhookKind::ValidateResourceFlavor, "vresourceflavor.kb.io", "/validate-kueue-x-k8s-io-v1beta2-resourceflavor",
     false, kKueue, kV1beta2, kResourceFlavors, kCreateUpdate, Fail, Any, false, true},
    {WebhookKind::ValidateWorkload, "vworkload.kb.io", "/validate-kueue-x-k8s-io-v1beta2-workload", false, kKueue,
     kV1beta2, kWorkloadsAndStatus, kCreateUpdate, Fail, Any, true, false},
}};
}  // namespace

std::string_view to_string(FailurePolicy policy) { return policy == FailurePolicy::Fail ? "Fail" : "Ignore"; }

std::span<const WebhookSpec> webhook_catalog() { return kCatalog; }

const WebhookSpec* find_webhook(std::string_view path) {
  for (const auto& w : kCatalog) {
    if (w.path == path) return &w;
  }
  return nullptr;
}

const WebhookSpec& webhook_spec(WebhookKind kind) {
  for (const auto& w : kCatalog) {
    if (w.kind == kind) return w;
  }
  return kCatalog.front();
}

}  // namespace kueuepp::kube::webhook
