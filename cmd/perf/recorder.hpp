#pragma once

// What the perf runner saw, and the figures Kueue's checker computes from it
// (test/performance/scheduler/runner/recorder and checker). Pure: the caller stamps
// every observation with the runner's own clock (milliseconds since the run started,
// taken when the watch event is received) and serializes the calls.
//
// Per workload (Kueue's WLState): the first event's time; the time to admission,
// measured from the first event to the latest false->true transition of Admitted (a
// workload admitted again after an eviction counts its last admission, as Kueue's
// recorder does); the time to Finished; how often it was evicted.
//
// Per ClusterQueue (Kueue's CQState): the integral of status.flavorsUsage cpu over time,
// a step function sampled at watch events (usage * dt accumulated when the next event
// arrives, in milli-cpu * ms), the first and last event times, and the counters of the
// last event.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>

namespace kueuepp::cmd::perf {

/// Milliseconds on the runner's clock (steady, since the run started).
using Millis = std::int64_t;

struct WorkloadObservation {
  Millis at = 0;
  std::string uid;
  std::string ns;
  std::string name;
  std::string class_name;
  bool admitted = false;
  bool evicted = false;
  bool finished = false;
};

struct ClusterQueueObservation {
  Millis at = 0;
  std::string name;
  std::string class_name;
  std::int64_t cpu_usage_milli = 0;    ///< status.flavorsUsage, resource cpu (all flavors)
  std::int64_t cpu_nominal_milli = 0;  ///< spec.resourceGroups nominalQuota, resource cpu
  std::int64_t pending = 0;
  std::int64_t reserving = 0;
  std::int64_t admitted = 0;
  bool active = false;  ///< condition Active=True
};

struct WorkloadRecord {
  std::string ns;
  std::string name;
  std::string class_name;
  Millis first_event = 0;
  /// Kueue's TimeToAdmitMs: latest admission - first event.
  std::optional<Millis> time_to_admit;
  /// The first admission - first event (differs after evictions).
  std::optional<Millis> time_to_first_admit;
  std::optional<Millis> time_to_finish;
  std::int32_t evictions = 0;
  // The flags of the last event.
  bool admitted = false;
  bool evicted = false;
  bool finished = false;
};

struct ClusterQueueRecord {
  std::string name;
  std::string class_name;
  Millis first_event = 0;
  /// milli-cpu * ms: sum over events of (previous usage) * (time since previous event).
  std::int64_t cpu_used = 0;
  std::int64_t cpu_max_usage = 0;
  std::int64_t events = 0;
  ClusterQueueObservation last;
};

class Recorder {
 public:
  void observe(const WorkloadObservation& ev);
  void observe(const ClusterQueueObservation& ev);

  /// By uid.
  const std::unordered_map<std::string, WorkloadRecord>& workloads() const { return workloads_; }
  /// By name.
  const std::map<std::string, ClusterQueueRecord>& cluster_queues() const { return queues_; }

  std::int64_t seen() const { return static_cast<std::int64_t>(workloads_.size()); }
  std::int64_t ever_admitted() const { return ever_admitted_; }
  std::int64_t finished() const { return finished_; }
  std::int64_t evictions() const { return evictions_; }
  /// Workloads whose last event shows them admitted and not finished.
  std::int64_t running() const { return running_; }

  /// Kueue's stop condition (the negation of expectMoreEvents): no active ClusterQueue
  /// reports pending or reserving workloads in its last event.
  bool queues_idle() const;
  /// ClusterQueues that still report pending or reserving workloads (for messages).
  std::int64_t busy_queues() const;
  /// The time of the latest event recorded (0 before any).
  Millis last_event() const { return last_event_; }

 private:
  std::unordered_map<std::string, WorkloadRecord> workloads_;
  std::map<std::string, ClusterQueueRecord> queues_;
  std::int64_t ever_admitted_ = 0;
  std::int64_t finished_ = 0;
  std::int64_t evictions_ = 0;
  std::int64_t running_ = 0;
  Millis last_event_ = 0;
};

/// Kueue's CQGroupSummary plus the checker's usage figure.
struct ClusterQueueClassSummary {
  std::int64_t queues = 0;
  std::int64_t cpu_used = 0;       ///< milli-cpu * ms, summed over the class
  std::int64_t nominal_quota = 0;  ///< milli-cpu, summed over the class
  std::int64_t cpu_max_usage = 0;  ///< the highest usage one queue reported, milli-cpu
  Millis first_event = 0;          ///< earliest first event of the class's queues
  Millis last_event = 0;           ///< latest last event of the class's queues

  Millis monitoring_ms() const { return last_event - first_event; }
  /// cpu_used / monitoring time: the class's average usage in milli-cpu (Kueue's cpuAverageUsage).
  std::int64_t cpu_average_usage() const;
  /// The checker's figure: cpu_used * 100 / (nominal_quota * (last_event - first_event)).
  double usage_percent() const;
};

/// Kueue's WorkloadsClassSummary, plus spread figures.
struct WorkloadClassSummary {
  std::int64_t count = 0;
  std::int64_t admitted = 0;  ///< with an admission recorded
  std::int64_t finished = 0;
  std::int64_t total_evictions = 0;
  std::int64_t total_time_to_admission_ms = 0;
  std::int64_t total_time_to_finish_ms = 0;
  /// total / count, integer division, as Kueue (a never-admitted workload counts 0).
  std::int64_t average_time_to_admission_ms = 0;
  std::int64_t average_time_to_finish_ms = 0;
  /// Over admitted workloads, Kueue's time to admission.
  std::int64_t p50_time_to_admission_ms = 0;
  std::int64_t p90_time_to_admission_ms = 0;
  std::int64_t max_time_to_admission_ms = 0;
  /// The average measured to the first admission instead of the last.
  std::int64_t average_time_to_first_admission_ms = 0;
};

struct Summary {
  std::map<std::string, ClusterQueueClassSummary> cluster_queue_classes;
  std::map<std::string, WorkloadClassSummary> workload_classes;
};

Summary summarize(const Recorder& recorder);

}  // namespace kueuepp::cmd::perf
