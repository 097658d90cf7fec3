#pragma once

// The standalone mode's Kubeflow runner: what the training operator (and the MPI
// operator) does to a PyTorchJob, TFJob, XGBoostJob, PaddleJob, JAXJob or MPIJob on a real
// cluster, reduced to the job's status, as the Job runner (job_runner.hpp) reduces a Job.
// An unsuspended job goes Created and Running, every replica type counting its replicas
// as active pods, and succeeds (condition Succeeded, replicas counted succeeded) after the
// longest `sleep N` its replicas' first containers ask for, or the default duration.
// Suspended (an eviction), it stops at once (Running False, Suspended True, no active
// pods) and starts over when resumed. Not played: pods, restarts and restart policies,
// failures, elastic scaling, clean-pod and TTL policies, the launcher's wait for workers.

#include <chrono>
#include <memory>
#include <optional>
#include <string_view>

#include "cmd/standalone/job_runner.hpp"
#include "kube/client/object.hpp"
#include "kube/jobs/kubeflow_job.hpp"

namespace kueuepp::kube::client {
class Client;
}

namespace kueuepp::cmd {

/// How far the runner has played a job.
enum class KubeflowPhase { Running, Suspended, Succeeded };

/// The job's whole new status for `phase` (conditions kept and updated as the operator
/// does, replicaStatuses per replica type), `now` in RFC 3339.
json::object kubeflow_status(const kube::jobs::KubeflowKind& kind, const kube::client::Object& job,
                             KubeflowPhase phase, std::string_view now);

/// The longest run time its replicas ask for (`sleep N`), if any does.
std::optional<std::chrono::milliseconds> kubeflow_requested_duration(const kube::jobs::KubeflowKind& kind,
                                                                     const kube::client::Object& job);

class KubeflowRunner {
 public:
  static std::unique_ptr<KubeflowRunner> start(kube::client::Client& client, JobRunnerOptions options);
  ~KubeflowRunner();
  void stop();

  struct Impl;

 private:
  explicit KubeflowRunner(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

}  // namespace kueuepp::cmd
