#pragma once

// The standalone mode's AppWrapper runner: what the AppWrapper controller does to an
// AppWrapper on a real cluster, far enough for a user to see its whole life. An
// unsuspended AppWrapper gets its components created (each wrapped object, named by its
// template, owned by the AppWrapper, with the podSetInfos Kueue wrote merged into its pod
// templates); the other runners run them (a batch/v1 Job by the Job runner, a PyTorchJob
// by the Kubeflow runner, ...). Its status follows them: phase Resuming while components
// are being created, Running (QuotaReserved, ResourcesDeployed and, once every component
// exists, PodsReady True) while they run, Succeeded once every component succeeded,
// Failed once one failed (its components then deleted). Suspended (from creation or by
// an eviction), its components are deleted (phase Suspending) and it is Suspended with
// QuotaReserved False once they are gone; resumed, they are created again from the
// templates and podSetInfos of then. Not played: the kinds this runner cannot create
// (only the kinds kueuepp's client knows: batch/v1 Job, JobSet, the Kubeflow jobs, RayJob,
// RayCluster, AppWrapper), pods and their health, retries and the grace periods of the
// workload.codeflare.dev.appwrapper/* annotations, success TTLs.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/client/object.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::client {
class Client;
}

namespace kueuepp::cmd {

/// The label the AppWrapper controller puts on its components and their pods.
inline constexpr std::string_view kAppWrapperLabel = "workload.codeflare.dev/appwrapper";

/// What the AppWrapper controller does next for an AppWrapper and what it controls.
struct AppWrapperStep {
  std::vector<kube::client::Object> create;  ///< components to create
  std::vector<kube::client::Object> remove;  ///< controlled objects to delete
  std::optional<json::value> status;         ///< the AppWrapper's new status (a merge patch of it), if it changed
  std::vector<std::string> problems;         ///< what cannot be played, for the log
};

/// The component `index` as the AppWrapper controller creates it, or why it cannot.
Expected<kube::client::Object> appwrapper_component(const kube::client::Object& appwrapper, std::size_t index);

/// The next step for `appwrapper` given the objects it controls (of any kind, any order).
AppWrapperStep appwrapper_step(const kube::client::Object& appwrapper,
                               const std::vector<kube::client::Object>& children, std::string_view now_rfc3339);

class AppWrapperRunner {
 public:
  static std::unique_ptr<AppWrapperRunner> start(kube::client::Client& client);
  ~AppWrapperRunner();
  void stop();

  struct Impl;

 private:
  explicit AppWrapperRunner(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

}  // namespace kueuepp::cmd
