#pragma once

// The Kubeflow training jobs as Kueue job integrations (Kueue's
// pkg/controller/jobs/kubeflow/kubeflowjob and pkg/controller/jobs/mpijob): PyTorchJob,
// TFJob, XGBoostJob, PaddleJob and JAXJob (kubeflow.org/v1) and MPIJob
// (kubeflow.org/v2beta1) share one shape, so one adapter serves them, parameterised by
// a table entry per kind (its replica specs field and Kueue's order of replica types).
//
// - suspended through spec.runPolicy.suspend, resumed as a whole;
// - one pod set per replica type present, in Kueue's order, named as Kueue names it (the
//   replica type in lower case: "master", "worker", "ps", ...), of `replicas` pods (1
//   when absent); no minCount: Kueue has no partial admission for these kinds;
// - the admitted flavors' scheduling directives injected into every replica's template
//   at start, restored from the Workload's pod sets at stop, in the same write as the
//   suspend (the training operator lets templates change while suspended);
// - finished from the first True Succeeded or Failed condition, pods ready while the
//   Running condition is True, active while a replica status counts active pods;
// - priority from the WorkloadPriorityClass label, else runPolicy.schedulingPolicy's
//   priorityClass, else the first replica template (in Kueue's order) naming one.

#include <span>
#include <string_view>

#include "kube/jobs/integration.hpp"
#include "kube/jobs/job_pod_sets.hpp"

namespace kueuepp::kube::jobs {

/// The label the training operators put on a replica's pods: its index within its type.
inline constexpr std::string_view kKubeflowReplicaIndexLabel = "training.kubeflow.org/replica-index";

/// What tells one Kubeflow kind from another.
struct KubeflowKind {
  std::string_view framework;            ///< Kueue's name: "kubeflow.org/pytorchjob"
  const client::ResourceDescriptor* resource;
  std::string_view replica_specs_field;  ///< under spec: "pytorchReplicaSpecs"
  /// Kueue's OrderedReplicaTypes: the pod sets' order (types absent from the job skipped).
  std::span<const std::string_view> replica_types;
};

/// Every Kubeflow kind kueuepp integrates (TrainJob is not one of them: see docs).
std::span<const KubeflowKind> kubeflow_kinds();

/// The Kubeflow kind of Kueue's framework name, or null.
const KubeflowKind* find_kubeflow_kind(std::string_view framework);

const JobIntegration& pytorchjob_integration();
const JobIntegration& tfjob_integration();
const JobIntegration& xgboostjob_integration();
const JobIntegration& paddlejob_integration();
const JobIntegration& jaxjob_integration();
const JobIntegration& mpijob_integration();

/// The job's pod sets, in the Workload API's JSON shape (one per replica type present).
/// Fails when no replica type Kueue knows is present or a replica has no template.
Expected<json::array> kubeflow_pod_sets(const KubeflowKind& kind, const client::Object& job,
                                        const PodSetOptions& options = {});

/// Kueue's webhook checks on create and update for these kinds: the queue-name label and
/// max-exec-time-seconds well formed. Empty when valid.
Status validate_kubeflow_job(const KubeflowKind& kind, const client::Object& job);

}  // namespace kueuepp::kube::jobs
