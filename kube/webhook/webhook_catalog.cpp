#include "kube/webhook/webhook_catalog.hpp"

#include <array>

namespace kueuepp::kube::webhook {

namespace {

constexpr std::string_view kCreate[] = {"CREATE"};
constexpr std::string_view kCreateUpdate[] = {"CREATE", "UPDATE"};
constexpr std::string_view kJobs[] = {"jobs"};
constexpr std::string_view kJobSets[] = {"jobsets"};
constexpr std::string_view kJobSetGroup = "jobset.x-k8s.io";
constexpr std::string_view kClusterQueues[] = {"clusterqueues"};
constexpr std::string_view kCohorts[] = {"cohorts"};
constexpr std::string_view kResourceFlavors[] = {"resourceflavors"};
constexpr std::string_view kWorkloads[] = {"workloads"};
constexpr std::string_view kWorkloadsAndStatus[] = {"workloads", "workloads/status"};
constexpr std::string_view kKueue = "kueue.x-k8s.io";
constexpr std::string_view kV1beta2 = "v1beta2";

using enum FailurePolicy;
using enum ObjectFilter;

const std::array<WebhookSpec, 13> kCatalog{{
    {WebhookKind::MutateJob, "mjob.kb.io", "/mutate-batch-v1-job", true, "batch", "v1", kJobs, kCreate, Fail,
     QueueNameSet, true, true},
    {WebhookKind::MutateJob, "mjob-unlabelled.kueuepp.x-k8s.io", "/mutate-batch-v1-job", true, "batch", "v1", kJobs,
     kCreate, Ignore, QueueNameUnset, true, true},
    // JobSets as Jobs (the same failure policies, by the same reasoning).
    {WebhookKind::MutateJobSet, "mjobset.kb.io", "/mutate-jobset-x-k8s-io-v1alpha2-jobset", true, kJobSetGroup,
     "v1alpha2", kJobSets, kCreate, Fail, QueueNameSet, true, true},
    {WebhookKind::MutateJobSet, "mjobset-unlabelled.kueuepp.x-k8s.io", "/mutate-jobset-x-k8s-io-v1alpha2-jobset", true,
     kJobSetGroup, "v1alpha2", kJobSets, kCreate, Ignore, QueueNameUnset, true, true},
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
