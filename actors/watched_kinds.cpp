#include "actors/watched_kinds.hpp"

namespace kueuepp::actors {

namespace {
// kube/client has no descriptor for AdmissionChecks (the controller only reads them).
const kube::client::ResourceDescriptor kAdmissionCheck{"kueue.x-k8s.io", "v1beta2", "admissionchecks",
                                                       "AdmissionCheck", false};
}  // namespace

const kube::client::ResourceDescriptor& resource_of(messages::ObjectKind kind) {
  namespace r = kube::client::resources;
  using messages::ObjectKind;
  switch (kind) {
    case ObjectKind::ResourceFlavor: return r::kResourceFlavor;
    case ObjectKind::ClusterQueue: return r::kClusterQueue;
    case ObjectKind::Cohort: return r::kCohort;
    case ObjectKind::LocalQueue: return r::kLocalQueue;
    case ObjectKind::WorkloadPriorityClass: return r::kWorkloadPriorityClass;
    case ObjectKind::PriorityClass: return r::kPriorityClass;
    case ObjectKind::Namespace: return r::kNamespace;
    case ObjectKind::AdmissionCheck: return kAdmissionCheck;
    case ObjectKind::Workload: return r::kWorkload;
    case ObjectKind::Job: return r::kJob;
    case ObjectKind::Event: return r::kEvent;
  }
  return r::kWorkload;
}

}  // namespace kueuepp::actors
