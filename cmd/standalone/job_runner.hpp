#pragma once

// The standalone mode's job runner: what the Job controller and the kubelets would do
// to a Job on a real cluster, reduced to its status. An unsuspended Job goes running
// (startTime, active and ready pods), then completes after the duration its container
// asks for (`sleep N` in its command or args) or a default; a Job suspended again (an
// eviction) stops at once and starts over when resumed. Timers run on the client's io
// threads; nothing blocks.

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "kube/client/object.hpp"

namespace kueuepp::kube::client {
class Client;
}

namespace kueuepp::cmd {

struct JobRunnerOptions {
  std::chrono::milliseconds default_duration{10'000};
  /// Durations are divided by this (tests run jobs faster).
  double time_scale = 1.0;

  /// How long a run lasts: what the job asks for (else the default) under time_scale.
  std::chrono::milliseconds run_time(std::optional<std::chrono::milliseconds> requested) const;
};

/// The run time a Job's first container asks for ("sleep 30", "sleep 1.5", "sleep 2m"
/// in command or args, also inside `sh -c "..."`), if any.
std::optional<std::chrono::milliseconds> requested_duration(const kube::client::Object& job);

/// The same for a pod template ({metadata, spec}): its first container's `sleep N`.
std::optional<std::chrono::milliseconds> requested_duration_of_template(const json::value& pod_template);

class JobRunner {
 public:
  static std::unique_ptr<JobRunner> start(kube::client::Client& client, JobRunnerOptions options);
  ~JobRunner();
  void stop();

  struct Impl;

 private:
  explicit JobRunner(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

}  // namespace kueuepp::cmd
