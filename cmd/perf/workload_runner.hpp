#pragma once

// The perf runner's stand-in for a job integration, for raw Workloads (Kueue's
// runner/controller/controller.go), plus the recorder's event feed:
//   - watches the test's Workloads and ClusterQueues (informers, label
//     kueue.x-k8s.io/performance-scheduler-class) and records every event with the
//     runner's clock at receipt;
//   - notes when each Workload became Admitted (at receipt of the event showing it);
//   - once runtimeMs (label kueue.x-k8s.io/performance-scheduler-running-ms) has passed
//     since then, marks it Finished=True (reason ByTest, "By test runner");
//   - completes evictions as the controller's job integration does when the Job has
//     stopped: kube/jobs eviction_completed_patch (QuotaReserved=False, admission
//     cleared, Requeued), so a preempted Workload queues again.
//   A Workload the controller made for a JobSet (--jobsets-every) is left to the
//   controller for its eviction, and is finished by marking the JobSet Completed, as the
//   JobSet controller would once its jobs succeeded; the controller then finishes it.
// Status writes are merge patches of the status subresource conditioned on the
// resourceVersion they were computed from; a conflict re-evaluates on the newest state.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cmd/perf/recorder.hpp"

namespace kueuepp::kube::client {
class Client;
class Object;
}  // namespace kueuepp::kube::client

namespace kueuepp::cmd::perf {

/// What the runner does with one Workload now.
struct RunnerAction {
  enum class Kind {
    None,              ///< nothing to do (pending, finished, evicted without reservation)
    CompleteEviction,  ///< Evicted=True while QuotaReserved=True: release the quota
    Finish,            ///< admitted for at least its running time: write Finished
    FinishLater,       ///< admitted; finish at `at`
    CompleteJobSet,    ///< a JobSet's Workload admitted for its running time: mark the JobSet Completed
  };
  Kind kind = Kind::None;
  Millis at = 0;
};

/// The running time label, in ms (0 when absent or unreadable, as Kueue's Atoi failure).
std::int64_t running_time_ms(const kube::client::Object& workload);

/// The name of the JobSet that owns the Workload, if one does.
std::optional<std::string> owning_jobset(const kube::client::Object& workload);

/// Kueue's runner reconciler for one Workload: `admitted_at` is when the runner saw it
/// admitted (nullopt: not admitted in the runner's view).
RunnerAction decide(const kube::client::Object& workload, std::optional<Millis> admitted_at, Millis now);

/// The recorder's view of a ClusterQueue event.
ClusterQueueObservation observe_cluster_queue(const kube::client::Object& cq, Millis at);
/// The recorder's view of a Workload event.
WorkloadObservation observe_workload(const kube::client::Object& wl, Millis at);

struct RunnerProgress {
  bool synced = false;
  std::int64_t seen = 0;
  std::int64_t admitted = 0;  ///< ever admitted
  std::int64_t running = 0;
  std::int64_t finished = 0;
  std::int64_t evictions = 0;
  std::int64_t finish_writes = 0;  ///< JobSets marked Completed included
  std::int64_t eviction_writes = 0;
  std::int64_t conflicts = 0;
  std::int64_t write_errors = 0;
  std::int64_t busy_queues = 0;
  std::string last_write_error;
  /// When every expected workload was Finished and the queues were idle (the end of
  /// the run, as Kueue's recorder ends); nullopt before.
  std::optional<Millis> completed_at;
  /// When every expected workload was first seen Finished.
  std::optional<Millis> all_finished_at;
};

class WorkloadRunner {
 public:
  using Clock = std::function<Millis()>;

  /// Starts the informers at once. The client must outlive the runner's activity.
  static std::shared_ptr<WorkloadRunner> start(kube::client::Client& client, Clock clock, std::size_t max_in_flight = 32);

  /// The generator is done: `total` workloads exist; the run completes once all are
  /// Finished and no active ClusterQueue reports pending or reserving workloads.
  void expect(std::int64_t total);

  RunnerProgress progress() const;
  Summary summary() const;
  /// A copy of everything recorded.
  Recorder recorder() const;
  /// Up to `max` workloads not yet Finished, as `ns/name (state)`.
  std::vector<std::string> unfinished(std::size_t max) const;

  /// Stops the informers and timers; waiting writes are dropped.
  void stop();

  struct State;
  explicit WorkloadRunner(std::shared_ptr<State> state) : state_(std::move(state)) {}

 private:
  std::shared_ptr<State> state_;
};

}  // namespace kueuepp::cmd::perf
