#include "kube/client/resource.hpp"

#include <array>

namespace kueuepp::kube::client {

std::string ResourceDescriptor::api_version() const {
  if (group.empty()) return std::string(version);
  return std::string(group) + "/" + std::string(version);
}

namespace resources {
const ResourceDescriptor kResourceFlavor{"kueue.x-k8s.io", "v1beta2", "resourceflavors",
                                         "ResourceFlavor", false};
const ResourceDescriptor kClusterQueue{"kueue.x-k8s.io", "v1beta2", "clusterqueues",
                                       "ClusterQueue", false};
const ResourceDescriptor kLocalQueue{"kueue.x-k8s.io", "v1beta2", "localqueues", "LocalQueue",
                                     true};
const ResourceDescriptor kCohort{"kueue.x-k8s.io", "v1beta2", "cohorts", "Cohort", false};
const ResourceDescriptor kWorkload{"kueue.x-k8s.io", "v1beta2", "workloads", "Workload", true};
const ResourceDescriptor kWorkloadPriorityClass{"kueue.x-k8s.io", "v1beta2",
                                                "workloadpriorityclasses",
                                                "WorkloadPriorityClass", false};
const ResourceDescriptor kAdmissionCheck{"kueue.x-k8s.io", "v1beta2", "admissionchecks", "AdmissionCheck", false};
const ResourceDescriptor kJob{"batch", "v1", "jobs", "Job", true};
const ResourceDescriptor kJobSet{"jobset.x-k8s.io", "v1alpha2", "jobsets", "JobSet", true};
const ResourceDescriptor kPyTorchJob{"kubeflow.org", "v1", "pytorchjobs", "PyTorchJob", true};
const ResourceDescriptor kTFJob{"kubeflow.org", "v1", "tfjobs", "TFJob", true};
const ResourceDescriptor kXGBoostJob{"kubeflow.org", "v1", "xgboostjobs", "XGBoostJob", true};
const ResourceDescriptor kPaddleJob{"kubeflow.org", "v1", "paddlejobs", "PaddleJob", true};
const ResourceDescriptor kJAXJob{"kubeflow.org", "v1", "jaxjobs", "JAXJob", true};
const ResourceDescriptor kMPIJob{"kubeflow.org", "v2beta1", "mpijobs", "MPIJob", true};
const ResourceDescriptor kRayJob{"ray.io", "v1", "rayjobs", "RayJob", true};
const ResourceDescriptor kRayCluster{"ray.io", "v1", "rayclusters", "RayCluster", true};
const ResourceDescriptor kRayService{"ray.io", "v1", "rayservices", "RayService", true};
const ResourceDescriptor kTrainJob{"trainer.kubeflow.org", "v1alpha1", "trainjobs", "TrainJob", true};
const ResourceDescriptor kTrainingRuntime{"trainer.kubeflow.org", "v1alpha1", "trainingruntimes", "TrainingRuntime", true};
const ResourceDescriptor kClusterTrainingRuntime{"trainer.kubeflow.org", "v1alpha1", "clustertrainingruntimes",
                                                 "ClusterTrainingRuntime", false};
const ResourceDescriptor kAppWrapper{"workload.codeflare.dev", "v1beta2", "appwrappers", "AppWrapper", true};
const ResourceDescriptor kNamespace{"", "v1", "namespaces", "Namespace", false};
const ResourceDescriptor kPod{"", "v1", "pods", "Pod", true};
const ResourceDescriptor kConfigMap{"", "v1", "configmaps", "ConfigMap", true};
const ResourceDescriptor kEvent{"", "v1", "events", "Event", true};
const ResourceDescriptor kEventsV1Event{"events.k8s.io", "v1", "events", "Event", true};
const ResourceDescriptor kLease{"coordination.k8s.io", "v1", "leases", "Lease", true};
const ResourceDescriptor kPriorityClass{"scheduling.k8s.io", "v1", "priorityclasses",
                                        "PriorityClass", false};
}  // namespace resources

std::span<const ResourceDescriptor* const> known_resources() {
  using namespace resources;
  static const std::array<const ResourceDescriptor*, 29> all = {
      &kResourceFlavor, &kClusterQueue, &kLocalQueue, &kCohort, &kWorkload,
      &kWorkloadPriorityClass, &kAdmissionCheck, &kJob, &kJobSet, &kPyTorchJob, &kTFJob, &kXGBoostJob, &kPaddleJob, &kJAXJob, &kMPIJob, &kRayJob, &kRayCluster, &kRayService,
      &kTrainJob, &kTrainingRuntime, &kClusterTrainingRuntime, &kAppWrapper,
      &kNamespace, &kPod, &kConfigMap,
      &kEvent, &kEventsV1Event, &kLease, &kPriorityClass};
  return all;
}

const ResourceDescriptor* find_resource(std::string_view api_version, std::string_view kind) {
  for (const ResourceDescriptor* r : known_resources()) {
    if (r->kind == kind && r->api_version() == api_version) return r;
  }
  return nullptr;
}

}  // namespace kueuepp::kube::client
