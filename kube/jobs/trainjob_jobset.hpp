#pragma once

// The JobSet the Kubeflow trainer (v2, trainer.kubeflow.org/v1alpha1) builds for a TrainJob
// from its training runtime, as far as Kueue reads it: Kueue's TrainJob integration derives
// its pod sets from that JobSet (it runs the trainer's own runtime code), and the standalone
// runner creates it. From the runtime's spec.template:
//
// - the TrainJob's spec.runtimePatches applied in order, each a strategic merge of its
//   trainingRuntimeSpec.template.spec into the JobSet spec (replicated jobs merged by name,
//   the runtime's order kept), and of its metadata labels and annotations into the JobSet's;
// - each replicated job's pod count: its parallelism (1 when absent), for the trainer's job
//   (label trainer.kubeflow.org/trainjob-ancestor-step: trainer) mlPolicy.numNodes when the
//   runtime has an mlPolicy, then the TrainJob's spec.trainer.numNodes (with an MPI policy
//   it counts the job named "node", less the launcher under runLauncherAsNode); parallelism
//   and completions both set to it;
// - replicas 1 for the trainer's and the initializers' jobs (the runtime's, else 1, for
//   the others);
// - spec.trainer's image, command, args and resourcesPerNode (merged per resource) on the
//   trainer job's container named "node".
//
// Not derived: environment variables, volumes and ports the trainer's ML plugins add, the
// initializers' settings, pod group labels. None changes a pod count or a request.

#include <functional>
#include <string>
#include <string_view>

#include "core/expected.hpp"
#include "kube/client/object.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::jobs {

/// The label that says which step of a TrainJob a replicated job is.
inline constexpr std::string_view kTrainJobAncestorLabel = "trainer.kubeflow.org/trainjob-ancestor-step";
/// The runtime patch Kueue's webhook adds and its start and stop rewrite.
inline constexpr std::string_view kKueueRuntimePatchManager = "kueue.x-k8s.io/manager";

/// The runtime a TrainJob names. `ns` is empty for a ClusterTrainingRuntime.
struct TrainingRuntimeRef {
  std::string kind;  ///< "TrainingRuntime" or "ClusterTrainingRuntime"
  std::string ns;
  std::string name;
};

/// spec.runtimeRef (kind ClusterTrainingRuntime and apiGroup trainer.kubeflow.org when
/// absent, as the CRD defaults them). Fails for another group or kind, as the trainer's
/// "unsupported runtime".
Expected<TrainingRuntimeRef> training_runtime_ref(const client::Object& trainjob);

/// A training runtime, or null when it does not exist. The caller owns it.
using TrainingRuntimeLookup = std::function<const client::Object*(const TrainingRuntimeRef&)>;

/// The JobSet spec the trainer builds for `trainjob` from `runtime` (see above). Fails when
/// the runtime has no spec.template.spec.replicatedJobs.
Expected<json::value> trainjob_jobset_spec(const client::Object& trainjob, const client::Object& runtime);

/// The whole JobSet: the TrainJob's name and namespace, the runtime template's and the
/// patches' labels and annotations, controlled by the TrainJob, suspended as it is.
Expected<client::Object> trainjob_jobset(const client::Object& trainjob, const client::Object& runtime);

/// Kubernetes' strategic merge of `patch` into `target` for the fields a JobSet spec holds:
/// objects merged member by member (null removes one), lists of containers, env, volumes,
/// replicated jobs and the like merged by their key, every other list replaced. `field` is
/// the name `target` has in its parent.
void strategic_merge(json::value& target, const json::value& patch, std::string_view field = {});

}  // namespace kueuepp::kube::jobs
