#pragma once

// "What if I submit this?": the engine's answer for a workload that does not exist yet,
// taken from the live state without changing it (Engine::what_if). The answer is what
// the next admission cycle would do with it if nothing else changed: admit it (on which
// flavors), preempt (whom, by which rule) or leave it pending (Kueue's reason and
// message, its place in the queues), and for a pending one when it would start if the
// running workloads ended as the hints say.

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/engine/workload_record.hpp"
#include "core/model/time.hpp"
#include "core/model/workload.hpp"

namespace kueuepp::core {

using Duration = std::chrono::microseconds;

/// How long running workloads are taken to run, for the start estimate. The engine
/// receives these (it keeps no clock and no history).
struct RuntimeHints {
  /// A workload's spec.maximumExecutionTimeSeconds, by key (nullopt: not set).
  std::function<std::optional<Duration>(std::string_view key)> maximum_execution_time;
  /// The average runtime of the workloads each ClusterQueue ran, by name.
  std::map<std::string, Duration, std::less<>> average_runtime;
  /// How many workloads may finish in the estimate before it gives up.
  std::size_t max_completions = 2000;
};

/// A workload the new one would preempt, as its Preempted condition would say.
struct WhatIfVictim {
  std::string workload;  ///< ns/name
  std::string cluster_queue;
  std::string reason;   ///< InClusterQueue, InCohortReclamation, InCohortFairSharing, ...
  std::string message;  ///< "Preempted to accommodate a workload ..."
  friend bool operator==(const WhatIfVictim&, const WhatIfVictim&) = default;
};

/// When a pending workload would start if every running workload ended at its maximum
/// execution time, or else at its ClusterQueue's average runtime, and nothing new came.
struct StartEstimate {
  Time at{};
  bool used_maximum_execution_time = false;  ///< some workload's end was its limit
  bool used_average_runtime = false;         ///< some workload's end was its queue's average
  std::size_t completions = 0;               ///< workloads that had to end first
};

struct WhatIfAnswer {
  enum class Outcome { Admitted, Preempting, Pending };
  std::string workload;       ///< ns/name
  std::string cluster_queue;  ///< where it would queue ("" when no ClusterQueue takes it)
  Outcome outcome = Outcome::Pending;
  /// Admitted: its admission (flavors per pod set and resource). Preempting: the
  /// admission it gets once its victims have stopped, if the cycle after gives it.
  std::optional<Admission> admission;
  /// Admitted: every admission check it needs is Ready already (Admitted=True).
  bool checks_ready = false;
  std::vector<WhatIfVictim> victims;  ///< Preempting: whom, in the order they are evicted
  /// Pending and Preempting: QuotaReserved=False as it would be written.
  PendingStatus pending;
  int position_in_cluster_queue = -1;  ///< 0-based; -1 when not queued
  int position_in_local_queue = -1;
  std::optional<StartEstimate> estimate;  ///< Pending only
  std::string estimate_note;  ///< why there is no estimate, when there is none
};

std::string_view outcome_name(WhatIfAnswer::Outcome o);

}  // namespace kueuepp::core
