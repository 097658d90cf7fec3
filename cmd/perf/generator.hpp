#pragma once

// Creates the perf test's objects over the API with the timing of Kueue's runner
// (runner/generator/generator.go):
//   1. the ResourceFlavor;
//   2. then every cohort at once (its Cohort object first), and within a cohort every
//      ClusterQueue at once; each queue creates its ClusterQueue, Namespace and
//      LocalQueue one after the other;
//   3. then each of the queue's workload sets runs concurrently: for every repetition and
//      template it waits creationIntervalMs, then creates the Workload and waits for the
//      answer before the next wait (so the period is the interval plus the create
//      latency, as in Kueue's loop).
// With a WorkloadMix, every Nth workload of a set is a JobSet instead (after the
// WorkloadPriorityClasses its priorities need, created with the ResourceFlavor).
// Everything is asynchronous on the client's io threads; a creation error stops the
// generation and is reported.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "cmd/perf/generator_config.hpp"
#include "cmd/perf/recorder.hpp"

namespace kueuepp::kube::client {
class Client;
}

namespace kueuepp::cmd::perf {

struct GeneratorStatus {
  bool done = false;          ///< every object created (or stopped by an error)
  std::string error;          ///< the first creation failure
  std::int64_t workloads_created = 0;  ///< JobSets included
  std::int64_t jobsets_created = 0;
  std::int64_t objects_created = 0;  ///< everything, workloads included
  Millis started_at = 0;      ///< when the first create request was sent
  Millis finished_at = 0;     ///< when the last create answer arrived
};

/// What the generator creates in place of raw Workloads.
struct WorkloadMix {
  /// Every `jobset_every`-th workload of each workload set (the last of each N) is a
  /// JobSet of two pod sets (object_builders.hpp); 0: none.
  std::int64_t jobset_every = 0;

  bool is_jobset(std::int64_t index_in_set) const {
    return jobset_every > 0 && index_in_set % jobset_every == jobset_every - 1;
  }
};

class Generator {
 public:
  using Clock = std::function<Millis()>;

  /// Starts creating at once. `config` is copied; the client must outlive the generator's
  /// activity (stop() it or shut the client down first).
  static std::shared_ptr<Generator> start(kube::client::Client& client, const GeneratorConfig& config, Clock clock,
                                          std::size_t max_in_flight = 32, WorkloadMix mix = {});

  GeneratorStatus status() const;
  /// Stops scheduling creations (requests already sent complete).
  void stop();

  struct State;
  explicit Generator(std::shared_ptr<State> state) : state_(std::move(state)) {}

 private:
  std::shared_ptr<State> state_;
};

}  // namespace kueuepp::cmd::perf
