#pragma once

// The standalone mode's TrainJob runner: what the Kubeflow trainer (v2) does to a TrainJob
// on a real cluster, far enough for a user to see its whole life. An unsuspended TrainJob
// gets its JobSet, built from its runtime as the trainer builds it (kube/jobs/trainjob_jobset:
// the runtime's template, the TrainJob's runtime patches, numNodes, the trainer's image,
// command, args and resources), named as it and owned by it; the JobSet runner runs it. The
// TrainJob's status follows the JobSet's: jobsStatus from its replicatedJobsStatus, Complete
// or Failed when it is Completed or Failed. Suspended again (an eviction), its JobSet is
// suspended, as the trainer does (the JobSet runner deletes its Jobs); resumed, the JobSet is
// rebuilt from the TrainJob as it is then and resumed. A TrainJob whose runtime does not exist
// waits for it. Not played: the trainer's ML plugins (environment, MPI's SSH keys, torchrun
// settings), initializers' settings, runtime snapshots, pod groups, deadlines, TTL.

#include <memory>
#include <optional>
#include <vector>

#include "kube/client/object.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::client {
class Client;
}

namespace kueuepp::cmd {

/// What the trainer does next for a TrainJob, given its runtime and its JobSet.
struct TrainJobStep {
  std::optional<kube::client::Object> create_jobset;
  std::optional<json::value> jobset_patch;  ///< a merge patch of the JobSet (suspend, or a rebuilt spec)
  std::optional<json::value> status;        ///< the TrainJob's new status (a merge patch of it), if it changed
};

/// The next step. `runtime` and `jobset` are null when they do not exist.
TrainJobStep trainjob_step(const kube::client::Object& trainjob, const kube::client::Object* runtime,
                           const kube::client::Object* jobset, std::string_view now_rfc3339);

class TrainJobRunner {
 public:
  static std::unique_ptr<TrainJobRunner> start(kube::client::Client& client);
  ~TrainJobRunner();
  void stop();

  struct Impl;

 private:
  explicit TrainJobRunner(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

}  // namespace kueuepp::cmd
