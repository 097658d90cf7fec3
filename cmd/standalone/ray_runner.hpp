#pragma once

// The standalone mode's Ray runner: what KubeRay does to a RayJob on a real cluster,
// reduced to the RayJob's status, as the Kubeflow runner (kubeflow_runner.hpp) reduces a
// training job. An unsuspended RayJob is Running (its cluster "ready", its Ray job
// RUNNING) and Complete with jobStatus SUCCEEDED after the default duration (under
// --job-time-scale; the entrypoint is a Ray program, not a pod command, so there is no
// `sleep N` to read). Suspended (from creation, or an eviction), it is Suspended at once,
// its cluster gone, and starts over when resumed. A RayCluster is "ready" while
// unsuspended and "suspended" otherwise (it serves until deleted). A RayService serves
// (Ready, serviceStatus Running, one serve endpoint, its active cluster "ready") while its
// spec.rayClusterConfig is unsuspended, and is not Ready with no endpoint otherwise; it
// never ends. Not played: the RayCluster of a RayJob or RayService, pods, the submitter
// Job, Serve applications and upgrades, failures, retries, deadlines, autoscaling, TTL.

#include <memory>
#include <string_view>

#include "cmd/standalone/job_runner.hpp"
#include "kube/client/object.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::client {
class Client;
}

namespace kueuepp::cmd {

/// How far the runner has played a RayJob.
enum class RayJobPhase { Running, Suspended, Complete };

/// The status fields KubeRay writes for `phase` (a merge patch of the status: cleared
/// fields are null), `now` in RFC 3339.
json::object rayjob_status(const kube::client::Object& rayjob, RayJobPhase phase, std::string_view now);

/// The status fields KubeRay writes for a RayService that serves (`serving`) or whose
/// cluster is suspended: a merge patch of the status (cleared fields are null), `now` in
/// RFC 3339 for the Ready condition's transition.
json::object rayservice_status(const kube::client::Object& service, bool serving, std::string_view now);

class RayRunner {
 public:
  static std::unique_ptr<RayRunner> start(kube::client::Client& client, JobRunnerOptions options);
  ~RayRunner();
  void stop();

  struct Impl;

 private:
  explicit RayRunner(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

}  // namespace kueuepp::cmd
