#pragma once

// The standalone mode's JobSet runner: what the JobSet controller does to a JobSet on a
// real cluster, far enough for a user to see its whole life. An unsuspended JobSet gets
// its child Jobs, `<jobset>-<replicated job>-<index>` for each replica, owned by it, with
// the replicated job's template as it is then (the admitted flavors' node selectors
// included); the Job runner (job_runner.hpp) runs them. Its status follows them
// (replicatedJobsStatus), and it is Completed once every child Job completed, Failed
// once one failed. Suspended (an eviction), its child Jobs are deleted; resumed, they
// are created again from the templates of then. Not played: success and failure
// policies, restarts, startup order, networking (the headless Service), in-place
// restarts.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kube/client/object.hpp"

namespace kueuepp::kube::client {
class Client;
}

namespace kueuepp::cmd {

/// The labels the JobSet controller puts on its child Jobs and their pods.
inline constexpr std::string_view kJobSetNameLabel = "jobset.sigs.k8s.io/jobset-name";
inline constexpr std::string_view kReplicatedJobNameLabel = "jobset.sigs.k8s.io/replicatedjob-name";
inline constexpr std::string_view kJobIndexLabel = "jobset.sigs.k8s.io/job-index";

/// What the JobSet controller does next for a JobSet and its child Jobs.
struct JobSetStep {
  std::vector<kube::client::Object> create;  ///< child Jobs to create
  std::vector<std::string> remove;           ///< names of child Jobs to delete
  std::optional<json::value> status;         ///< the JobSet's new status (a merge patch of it), if it changed
};

/// The next step for `jobset` given the Jobs it controls (in any order).
JobSetStep jobset_step(const kube::client::Object& jobset, const std::vector<kube::client::Object>& children,
                       std::string_view now_rfc3339);

class JobSetRunner {
 public:
  static std::unique_ptr<JobSetRunner> start(kube::client::Client& client);
  ~JobSetRunner();
  void stop();

  struct Impl;

 private:
  explicit JobSetRunner(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

}  // namespace kueuepp::cmd
