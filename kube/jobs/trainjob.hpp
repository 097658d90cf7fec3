#pragma once

// TrainJob (Kubeflow Trainer v2, trainer.kubeflow.org/v1alpha1) as a Kueue job integration
// ("trainer.kubeflow.org/trainjob", Kueue's pkg/controller/jobs/trainjob). A TrainJob runs
// as a JobSet the trainer builds from the runtime it names (trainjob_jobset.hpp), so:
//
// - suspended and resumed as a whole through spec.suspend;
// - its pod sets are that JobSet's (one per replicated job, replicas x pods), derived from
//   the TrainingRuntime (in its namespace) or ClusterTrainingRuntime of spec.runtimeRef;
//   without the runtime no Workload is built ("runtime 'NAME' not found", Kueue's words),
//   and an existing Workload is kept as it is (Kueue errors out and changes nothing);
// - the admitted flavors are injected, as Kueue does, not into the runtime but into the
//   TrainJob's runtime patch of manager kueue.x-k8s.io/manager: one replicated job patch
//   per pod set (pod labels and annotations, nodeSelector, tolerations, scheduling gates),
//   written with spec.suspend=false in one write (the trainer allows patches to change when
//   the TrainJob is suspended before or after the write);
// - stopped in two writes, as Kueue's Stop: spec.suspend=true, then, once no child Job is
//   active (the trainer refuses patch changes while one is), that patch's replicated jobs
//   cleared;
// - finished from its Complete or Failed condition, active while status.jobsStatus counts
//   an active Job, pods ready when every replica's Job is ready or succeeded;
// - priority from the WorkloadPriorityClass label, else the first pod set naming a
//   PriorityClass.
//
// The adapter reads runtimes through the lookup it is made with; trainjob_integration() has
// none (every runtime missing) and serves what needs no runtime (its framework and resource).

#include <memory>

#include "kube/jobs/integration.hpp"
#include "kube/jobs/job_pod_sets.hpp"
#include "kube/jobs/trainjob_jobset.hpp"

namespace kueuepp::kube::jobs {

/// Kueue's name for the integration.
inline constexpr std::string_view kTrainJobFramework = "trainer.kubeflow.org/trainjob";

/// The integration without runtimes (find_integration's).
const JobIntegration& trainjob_integration();

/// The integration reading runtimes through `runtimes`, which must outlive it.
std::unique_ptr<const JobIntegration> make_trainjob_integration(TrainingRuntimeLookup runtimes);

/// The TrainJob's pod sets, in the Workload API's JSON shape: its JobSet's. Fails when the
/// runtime is missing ("runtime 'NAME' not found") or cannot build a JobSet.
Expected<json::array> trainjob_pod_sets(const client::Object& trainjob, const TrainingRuntimeLookup& runtimes,
                                        const PodSetOptions& options = {});

/// Kueue's TrainJob webhook checks on create and update (ValidateJobOnCreate): the
/// queue-name label and max-exec-time-seconds well formed. Empty when valid.
Status validate_trainjob(const client::Object& trainjob);

/// The runtime patch Kueue's mutating webhook appends to a TrainJob it manages (manager
/// kueue.x-k8s.io/manager, an empty JobSet spec patch).
json::value kueue_runtime_patch();

}  // namespace kueuepp::kube::jobs
