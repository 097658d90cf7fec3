#include "actors/watched_kinds.hpp"

#include <array>

#include "kube/jobs/appwrapper.hpp"
#include "kube/jobs/batch_job.hpp"
#include "kube/jobs/jobset.hpp"
#include "kube/jobs/kubeflow_job.hpp"
#include "kube/jobs/ray_cluster.hpp"
#include "kube/jobs/ray_job.hpp"
#include "kube/jobs/ray_service.hpp"
#include "kube/jobs/trainjob.hpp"

namespace kueuepp::actors {

const kube::client::ResourceDescriptor& resource_of(messages::ObjectKind kind) {
  return *messages::kind_traits(kind).resource;
}

std::span<const JobKindEntry> job_kinds() {
  static const std::array<JobKindEntry, 13> kKinds{{
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
      {kube::jobs::kRayServiceFramework, messages::ObjectKind::RayService, &kube::jobs::rayservice_integration, true},
      {kube::jobs::kTrainJobFramework, messages::ObjectKind::TrainJob, &kube::jobs::trainjob_integration, true},
      {kube::jobs::kAppWrapperFramework, messages::ObjectKind::AppWrapper, &kube::jobs::appwrapper_integration, true},
  }};
  return kKinds;
}

std::optional<JobKindEntry> find_job_kind(std::string_view framework) {
  for (const JobKindEntry& e : job_kinds()) {
    if (e.framework == framework) return e;
  }
  return std::nullopt;
}

std::span<const messages::ObjectKind> related_kinds(messages::ObjectKind job_kind) {
  static constexpr std::array<messages::ObjectKind, 2> kRuntimes{messages::ObjectKind::TrainingRuntime,
                                                                 messages::ObjectKind::ClusterTrainingRuntime};
  if (job_kind == messages::ObjectKind::TrainJob) return kRuntimes;
  return {};
}

std::unique_ptr<const kube::jobs::JobIntegration> bind_integration(messages::ObjectKind job_kind,
                                                                   RelatedObjects related) {
  if (job_kind != messages::ObjectKind::TrainJob) return nullptr;
  return kube::jobs::make_trainjob_integration(
      [related = std::move(related)](const kube::jobs::TrainingRuntimeRef& ref) -> const kube::client::Object* {
        const auto kind = ref.ns.empty() ? messages::ObjectKind::ClusterTrainingRuntime
                                         : messages::ObjectKind::TrainingRuntime;
        return related(kind, ref.ns, ref.name);
      });
}

}  // namespace kueuepp::actors
