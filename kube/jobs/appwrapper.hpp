#pragma once

// AppWrapper (workload.codeflare.dev/v1beta2) as a Kueue job integration
// ("workload.codeflare.dev/appwrapper", Kueue's pkg/controller/jobs/appwrapper over the
// AppWrapper project's utils package):
//
// - suspended and resumed as a whole through spec.suspend;
// - pod sets: every component's, in order. A component's pod sets are those the AppWrapper
//   controller recorded in status.componentStatus (once it has for every component), else
//   its declared spec.components[].podSets, else those inferred for the kinds the
//   AppWrapper project knows (batch/v1 Job, JobSet, PyTorchJob, RayCluster, RayJob, Pod,
//   Deployment, StatefulSet). Each is named "<appwrapper>-<index>", of `replicas` pods (1
//   when absent); its template is the pod template at the pod set's path reduced to what
//   Kueue compares, with kube-apiserver's defaults filled in (GetPodTemplateSpec);
// - the admitted flavors are not injected into the wrapped templates: at start each
//   component's spec.components[].podSetInfos gets its pod sets' infos (node selector,
//   tolerations, labels, annotations, scheduling gates), which the AppWrapper controller
//   applies when it creates the component; at stop they are cleared, in the same write
//   as the suspend;
// - active while its QuotaReserved condition is True (the AppWrapper controller's word
//   for "its resources may exist"); finished when status.phase is Succeeded, or Failed
//   once ResourcesDeployed is no longer True; pods ready with its PodsReady condition;
// - priority from the WorkloadPriorityClass label, else the first pod set's template
//   naming a PriorityClass.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kube/jobs/integration.hpp"
#include "kube/jobs/job_pod_sets.hpp"

namespace kueuepp::kube::jobs {

/// Kueue's name for the integration.
inline constexpr std::string_view kAppWrapperFramework = "workload.codeflare.dev/appwrapper";

const JobIntegration& appwrapper_integration();

/// One pod set of an AppWrapper and where it is (AppWrapperPodSet).
struct AppWrapperPodSet {
  std::size_t component = 0;  ///< index in spec.components
  std::string path;           ///< within the component: "template.spec.template"
  std::int64_t replicas = 1;
  client::StringMap annotations;
};

/// The AppWrapper's pod sets in Kueue's order. Fails (naming the AppWrapper, the component
/// and what to fix) when a component has no template, declares no pod sets for a kind
/// whose pod sets cannot be inferred, or has a pod set whose path leads to no pod template.
Expected<std::vector<AppWrapperPodSet>> appwrapper_pod_set_places(const client::Object& appwrapper);

/// The value at an AppWrapper path ("template.spec.replicatedJobs[0].template") within a
/// component ({template: ...}), or null when the path does not lead anywhere.
const json::value* appwrapper_path_value(const json::value& component, std::string_view path);
json::value* appwrapper_path_value(json::value& component, std::string_view path);

/// The pod sets of the AppWrapper's Workload, in the Workload API's JSON shape.
Expected<json::array> appwrapper_pod_sets(const client::Object& appwrapper, const PodSetOptions& options = {});

/// What Kueue's BaseWebhook checks on create and update for an AppWrapper
/// (jobframework.ValidateJobOnCreate): the queue-name label and max-exec-time-seconds
/// well formed. Empty when valid.
Status validate_appwrapper(const client::Object& appwrapper);

}  // namespace kueuepp::kube::jobs
