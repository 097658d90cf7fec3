#include "actors/watched_kinds.hpp"

#include <array>

#include "kube/jobs/batch_job.hpp"
#include "kube/jobs/jobset.hpp"
#include "kube/jobs/kubeflow_job.hpp"
#include "kube/jobs/ray_cluster.hpp"
#include "kube/jobs/ray_job.hpp"

namespace kueuepp::actors {

const kube::client::ResourceDescriptor& resource_of(messages::ObjectKind kind) {
  return *messages::kind_traits(kind).resource;
}

std::span<const JobKindEntry> job_kinds() {
  static const std::array<JobKindEntry, 10> kKinds{{
      {"batch/job", messages::ObjectKind::Job, &kube::jobs::batch_job_integration, false},
      {kube::jobs::kJobSetFramework, messages::ObjectKind::JobSet, &kube::jobs::jobset_integration, true},
      {"kubeflow.org/pytorchjob", messages::ObjectKind::PyTorchJob, &kube::jobs::pytorchjob_integration, true},
      {"kubeflow.org/tfjob", messages::ObjectKind::TFJob, &kube::jobs::tfjob_integration, true},
      {"kubeflow.org/xgboostjob", messages::ObjectKind::XGBoostJob, &kube::jobs::xgboostjob_integration, true},
      {"kubeflow.org/paddlejob", messages::ObjectKind::PaddleJob, &kube::jobs::paddlejob_integration, true},
      {"kubeflow.org/jaxjob", messages::ObjectKind::JAXJob, &kube::jobs::jaxjob_integration, true},
      {"kubeflow.org/mpijob", messages::ObjectKind::MPIJob, &kube::jobs::mpijob_integration, true},
      {kube::jobs::kRayJobFramework, messages::ObjectKind::RayJob, &kube::jobs::rayjob_integration, true},
      {kube::jobs::kRayClusterFramework, messages::ObjectKind::RayCluster, &kube::jobs::raycluster_integration, true},
  }};
  return kKinds;
}

std::optional<JobKindEntry> find_job_kind(std::string_view framework) {
  for (const JobKindEntry& e : job_kinds()) {
    if (e.framework == framework) return e;
  }
  return std::nullopt;
}

}  // namespace kueuepp::actors
