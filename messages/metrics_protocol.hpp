#pragma once

// Any actor -> metrics actor: what happened (workload lifecycle, scheduling cycles) and
// how the queues look now. Fire and forget: the metrics actor owns Kueue's metrics and
// renders them for /metrics; nothing waits on it.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/metrics/kueue_metrics.hpp"

namespace kueuepp::messages {

/// One step of a workload's life, counted once (after its write landed).
struct WorkloadMetricEvent {
  enum class What { Admitted, Evicted, Finished };
  What what = What::Admitted;
  std::string cluster_queue;
  std::string lq_namespace;
  std::string lq_name;
  std::string priority_class;
  /// Admitted: seconds since creation or the last requeue. Finished: execution seconds
  /// (negative: unknown).
  double seconds = 0;
  /// Evicted: Kueue's eviction reason and underlying cause.
  std::string reason;
  std::string underlying_cause;
  /// Evicted by preemption: the preemptor's ClusterQueue and the preemption reason.
  std::string preempting_cluster_queue;
  std::string preemption_reason;
  /// Admitted: the ClusterQueue's cohorts, parent first, up to the root.
  std::vector<std::string> cohort_ancestors;
  /// Admitted: whether the event reserved quota (the scheduler's admission; false when
  /// admission checks turned Ready later) and whether it admitted (false while admission
  /// checks are pending).
  bool reserved = true;
  bool admitted = true;
  /// Admitted with admission checks: seconds from the reservation to the admission.
  std::optional<double> checks_wait_seconds;
};

/// Scheduling cycles' outcomes and durations, in order (of the rounds a tree ran since
/// it last reported; see MetricReports).
struct AdmissionAttempts {
  struct Cycle {
    bool admitted = false;
    double seconds = 0;
  };
  std::vector<Cycle> cycles;
};

/// A cohort tree's reports since its last ones, in order: the workload steps that landed
/// and its rounds' scheduling cycles (one message per report was most of the metrics
/// actor's mailbox traffic).
struct MetricReports {
  std::vector<WorkloadMetricEvent> workloads;
  AdmissionAttempts attempts;
};

/// A ClusterQueue's gauges (and its LocalQueues'), as of its latest snapshot.
struct QueueGauges {
  std::string cluster_queue;
  metrics::ClusterQueueGauges gauges;
  struct LocalQueue {
    std::string ns;
    std::string name;
    metrics::LocalQueueGauges gauges;
  };
  std::vector<LocalQueue> local_queues;
  /// LocalQueues that left the ClusterQueue (or were deleted) since the last report.
  std::vector<std::pair<std::string, std::string>> removed_local_queues;
};

/// A ClusterQueue was deleted: its series disappear.
struct ClusterQueueGone {
  std::string cluster_queue;
};

/// Renders the exposition for one GET /metrics (called exactly once, from the metrics
/// actor's thread).
struct ScrapeMetrics {
  std::function<void(std::string content_type, std::string body)> respond;
};

}  // namespace kueuepp::messages
