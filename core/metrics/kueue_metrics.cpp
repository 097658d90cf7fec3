#include "core/metrics/kueue_metrics.hpp"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <limits>
#include <utility>

namespace kueuepp::metrics {

std::string_view to_string(AdmissionResult result) {
  switch (result) {
    case AdmissionResult::Success: return "success";
    case AdmissionResult::Inadmissible: return "inadmissible";
  }
  return "";
}

std::string_view to_string(PreemptionRecomputationResult result) {
  switch (result) {
    case PreemptionRecomputationResult::NewTargets: return "new_targets";
    case PreemptionRecomputationResult::DeferredFit: return "deferred_fit";
    case PreemptionRecomputationResult::Skipped: return "skipped";
  }
  return "";
}

std::string_view to_string(ClusterQueueStatus status) {
  switch (status) {
    case ClusterQueueStatus::Pending: return "pending";
    case ClusterQueueStatus::Active: return "active";
    case ClusterQueueStatus::Terminating: return "terminating";
  }
  return "";
}

std::string_view to_string(ConditionStatus status) {
  switch (status) {
    case ConditionStatus::True: return "True";
    case ConditionStatus::False: return "False";
    case ConditionStatus::Unknown: return "Unknown";
  }
  return "";
}

namespace {

constexpr std::string_view kActive = "active";
constexpr std::string_view kInadmissible = "inadmissible";

/// Kueue's generateExponentialBuckets(count): 1, then 2.5 doubling (count bounds in all).
std::vector<double> kueue_buckets(std::size_t count) {
  std::vector<double> out{1};
  for (double bound : exponential_buckets(2.5, 2, count - 1)) out.push_back(bound);
  return out;
}

// Help texts shared by several metrics (Kueue repeats them verbatim).
constexpr const char* kPendingStatusHelp =
    R"HELP('status' can have the following values:
- "active" means that the workloads are in the admission queue.
- "inadmissible" means there was a failed admission attempt for these workloads and they won't be retried until cluster conditions, which could make this workload admissible, change)HELP";

constexpr const char* kEvictionReasonsHelp =
    R"HELP(The label 'reason' can have the following values:
- "Preempted" means that the workload was evicted in order to free resources for a workload with a higher priority or reclamation of nominal quota.
- "PodsReadyTimeout" means that the eviction took place due to a PodsReady timeout.
- "AdmissionCheck" means that the workload was evicted because at least one admission check transitioned to False.
- "ClusterQueueStopped" means that the workload was evicted because the ClusterQueue is stopped.
- "LocalQueueStopped" means that the workload was evicted because the LocalQueue is stopped.
- "NodeFailures" means that the workload was evicted due to node failures when using TopologyAwareScheduling.
- "Deactivated" means that the workload was evicted because spec.active is set to false.)HELP";

constexpr const char* kUnderlyingCausesHelp =
    R"HELP(The label 'underlying_cause' can have the following values:
- "" means that the value in 'reason' label is the root cause for eviction.
- "AdmissionCheck" means that the workload was evicted by Kueue due to a rejected admission check.
- "MaximumExecutionTimeExceeded" means that the workload was evicted by Kueue due to maximum execution time exceeded.
- "RequeuingLimitExceeded" means that the workload was evicted by Kueue due to requeuing limit exceeded.)HELP";

constexpr const char* kUnderlyingCausesOnceHelp =
    R"HELP(The label 'underlying_cause' can have the following values:
- "" means that the value in 'reason' label is the root cause for eviction.
- "WaitForStart" means that the pods have not been ready since admission, or the workload is not admitted.
- "WaitForRecovery" means that the Pods were ready since the workload admission, but some pod has failed.
- "AdmissionCheck" means that the workload was evicted by Kueue due to a rejected admission check.
- "MaximumExecutionTimeExceeded" means that the workload was evicted by Kueue due to maximum execution time exceeded.
- "RequeuingLimitExceeded" means that the workload was evicted by Kueue due to requeuing limit exceeded.)HELP";

constexpr const char* kAdmissionResultHelp =
    R"HELP(The label 'result' can have the following values:
- 'success' means that at least one workload was admitted.,
- 'inadmissible' means that no workload was admitted.)HELP";

std::string join(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view part : parts) out += part;
  return out;
}

/// Sets a one-hot gauge: `label_values` with the slot at `slot_index` replaced by each of
/// `choices` in turn; the chosen one gets 1, the others 0.
template <std::size_t N, std::size_t M>
void set_one_hot(Family& family, std::array<std::string_view, N> label_values, std::size_t slot_index,
                 const std::array<std::string_view, M>& choices, std::string_view chosen) {
  for (std::string_view choice : choices) {
    label_values[slot_index] = choice;
    family.set(LabelValues(label_values.data(), N), choice == chosen ? 1 : 0);
  }
}

template <class Entry, class Pred>
bool any_of(const std::vector<Entry>& entries, Pred pred) {
  return std::any_of(entries.begin(), entries.end(), pred);
}

}  // namespace

KueueMetrics::KueueMetrics(KueueMetricsOptions options)
    : options_(std::move(options)), registry_({{"replica_role", options_.replica_role}}) {
  Registry& r = registry_;
  const std::vector<std::string> cq{"cluster_queue"};
  const std::vector<std::string> cq_status{"cluster_queue", "status"};
  const std::vector<std::string> cq_priority{"cluster_queue", "priority_class"};
  const std::vector<std::string> lq{"name", "namespace"};
  const std::vector<std::string> lq_status{"name", "namespace", "status"};
  const std::vector<std::string> lq_priority{"name", "namespace", "priority_class"};
  const std::vector<std::string> cq_resource{"cohort", "cluster_queue", "flavor", "resource"};
  const std::vector<std::string> lq_resource{"name", "namespace", "flavor", "resource"};
  const std::vector<std::string> cohort_resource{"cohort", "flavor", "resource"};

  // -- scheduler
  admission_attempts_total_ = &r.counter(
      "kueue_admission_attempts_total",
      join({"The total number of attempts to admit workloads.\n"
            "Each admission attempt might try to admit more than one workload.\n",
            kAdmissionResultHelp}),
      {"result"});
  admission_attempt_duration_ = &r.histogram("kueue_admission_attempt_duration_seconds",
                                             join({"The latency of an admission attempt.\n", kAdmissionResultHelp}),
                                             {"result"}, default_buckets());
  admission_cycle_preemption_skips_ = &r.gauge(
      "kueue_admission_cycle_preemption_skips",
      "The number of Workloads in the ClusterQueue that got preemption candidates but had to be skipped because "
      "other ClusterQueues needed the same resources in the same cycle",
      cq);
  preemption_target_recomputations_total_ = &r.counter(
      "kueue_preemption_target_recomputations_total",
      R"HELP(The total number of preemption target recomputations triggered when a workload's preemption
targets overlap with targets selected by another workload in the same scheduling cycle.
The label 'result' can have the following values:
- 'new_targets' means the recomputation resolved the overlap by selecting non-overlapping targets.
- 'deferred_fit' means the workload will fit only after earlier preemptions in the cycle complete.
- 'skipped' means recomputation produced neither a deferred fit nor a fit with non-overlapping targets, including cases where overlap is removed but the workload still fails the fit check.
Globally configured custom ClusterQueue labels are also appended to the base labels.)HELP",
      {"cluster_queue", "result"});

  // -- queue system
  build_info_ = &r.gauge(
      "kueue_build_info",
      "Kueue build information. 1 labeled by git version, git commit, build date, go version, compiler, platform",
      {"git_version", "git_commit", "build_date", "go_version", "compiler", "platform"}, ConstantLabels::Omit);
  // kueuepp's own: registered only when there is something to say, so that a normal
  // scrape holds Kueue's families alone.
  if (!options_.ignored_configuration_fields.empty()) {
    Family& ignored = r.gauge(
        "kueuepp_configuration_ignored_fields",
        "Configuration settings kueuepp does not implement and was started without (--allow-unsupported): 1 per "
        "'field'.",
        {"field"});
    for (const auto& field : options_.ignored_configuration_fields) ignored.set({field}, 1);
  }
  pending_workloads_ = &r.gauge(
      "kueue_pending_workloads",
      join({"The number of pending workloads, per 'cluster_queue' and 'status'.\n", kPendingStatusHelp}), cq_status);
  pending_scheduling_hashes_ =
      &r.gauge("kueue_pending_scheduling_hashes",
               join({"The number of unique pending scheduling equivalence hashes, per 'cluster_queue' and 'status'. "
                     "Reported only when SchedulingEquivalenceHashing is enabled.\n",
                     kPendingStatusHelp}),
               cq_status);
  finished_workloads_ = &r.gauge("kueue_finished_workloads", "The number of finished workloads per 'cluster_queue'.", cq);
  quota_reserved_workloads_total_ = &r.counter("kueue_quota_reserved_workloads_total",
                                               "The total number of quota reserved workloads per 'cluster_queue'",
                                               cq_priority);
  finished_workloads_total_ = &r.counter("kueue_finished_workloads_total",
                                         "The total number of finished workloads per 'cluster_queue'", cq_priority);
  execution_time_ = &r.histogram(
      "kueue_execution_time_seconds",
      "The total execution time of a finished admitted workload (from first admission to completion, including "
      "time across evict/readmit cycles), per 'cluster_queue'",
      cq_priority, kueue_buckets(16));
  quota_reserved_wait_time_ = &r.histogram(
      "kueue_quota_reserved_wait_time_seconds",
      "The time between a workload was created or requeued until it got quota reservation, per 'cluster_queue'",
      cq_priority, kueue_buckets(14));
  pods_ready_to_evicted_time_ = &r.histogram(
      "kueue_pods_ready_to_evicted_time_seconds",
      join({"The number of seconds between a workload's pods being ready and eviction workloads per 'cluster_queue',\n",
            kEvictionReasonsHelp, "\n", kUnderlyingCausesHelp}),
      {"cluster_queue", "reason", "underlying_cause"}, kueue_buckets(14));
  admitted_workloads_total_ = &r.counter("kueue_admitted_workloads_total",
                                         "The total number of admitted workloads per 'cluster_queue'", cq_priority);
  admission_wait_time_ = &r.histogram(
      "kueue_admission_wait_time_seconds",
      "The time between a workload was created or requeued until admission, per 'cluster_queue'", cq_priority,
      kueue_buckets(16));
  ready_wait_time_ = &r.histogram("kueue_ready_wait_time_seconds",
                                  "The time between a workload was created or requeued until ready, per 'cluster_queue'",
                                  cq_priority, kueue_buckets(14));
  admitted_until_ready_wait_time_ = &r.histogram(
      "kueue_admitted_until_ready_wait_time_seconds",
      "The time between a workload was admitted until ready, per 'cluster_queue'", cq_priority, kueue_buckets(14));
  admission_checks_wait_time_ = &r.histogram(
      "kueue_admission_checks_wait_time_seconds",
      "The time from when a workload got the quota reservation until admission, per 'cluster_queue'", cq_priority,
      kueue_buckets(14));
  evicted_workloads_total_ = &r.counter(
      "kueue_evicted_workloads_total",
      join({"The number of evicted workloads per 'cluster_queue',\n", kEvictionReasonsHelp, "\n", kUnderlyingCausesHelp}),
      {"cluster_queue", "reason", "underlying_cause", "priority_class"});
  evicted_workloads_once_total_ = &r.counter(
      "kueue_evicted_workloads_once_total",
      join({"The number of unique workload evictions per 'cluster_queue',\n", kEvictionReasonsHelp, "\n",
            kUnderlyingCausesOnceHelp}),
      {"cluster_queue", "reason", "underlying_cause", "priority_class"});
  preempted_workloads_total_ = &r.counter(
      "kueue_preempted_workloads_total",
      R"HELP(The number of preempted workloads per 'preempting_cluster_queue',
The label 'reason' can have the following values:
- "InClusterQueue" means that the workload was preempted by a workload in the same ClusterQueue.
- "InCohortReclamation" means that the workload was preempted by a workload in the same cohort due to reclamation of nominal quota.
- "InCohortFairSharing" means that the workload was preempted by a workload in the same cohort Fair Sharing.
- "InCohortReclaimWhileBorrowing" means that the workload was preempted by a workload in the same cohort due to reclamation of nominal quota while borrowing.)HELP",
      {"preempting_cluster_queue", "reason"});
  workload_eviction_latency_ = &r.histogram(
      "kueue_workload_eviction_latency_seconds",
      join({R"HELP(The time from workload eviction (WorkloadEvicted condition becomes True) until the workload returns to Pending (quota released).
Observed on status transition from admitted or quota-reserved to pending while WorkloadEvicted remains True.
Each matching update observes one latency sample (seconds) into this histogram; Prometheus aggregates samples across workloads.
Uses the eviction condition LastTransitionTime on the updated object as the start time; cluster_queue is taken from status.admission.cluster_queue on the pre-update object when set and non-empty (otherwise no sample is recorded for that update).
)HELP",
            kEvictionReasonsHelp}),
      {"cluster_queue", "reason"}, kueue_buckets(14));

  // -- cache
  reserving_active_workloads_ = &r.gauge("kueue_reserving_active_workloads",
                                         "The number of Workloads that are reserving quota, per 'cluster_queue'", cq);
  admitted_active_workloads_ = &r.gauge("kueue_admitted_active_workloads",
                                        "The number of admitted Workloads that are active, per 'cluster_queue'", cq);
  cluster_queue_status_ = &r.gauge(
      "kueue_cluster_queue_status",
      "Reports 'cluster_queue' with its 'status' (with possible values 'pending', 'active' or 'terminated').\n"
      "For a ClusterQueue, the metric only reports a value of 1 for one of the statuses.",
      cq_status);

  // -- job framework
  if (options_.workload_creation_latency) {
    workload_creation_latency_ = &r.histogram(
        "kueue_workload_creation_latency_seconds",
        "The time between a job was created until its workload was created, per 'job_kind'. Entries are only "
        "recorded for objects with generation 1.",
        {"job_kind"}, exponential_buckets(0.01, 2, 11));
  }

  if (options_.unadmitted_workloads) {
    unadmitted_workloads_ = &r.gauge(
        "kueue_unadmitted_workloads",
        "The number of unadmitted workloads, per 'cluster_queue', 'reason', and 'underlying_cause'. This metric is "
        "only emitted when UnadmittedWorkloadsObservability feature gate is enabled.",
        {"cluster_queue", "reason", "underlying_cause"});
  }

  if (options_.cluster_queue_resources) {
    cq_resource_reservation_ = &r.gauge(
        "kueue_cluster_queue_resource_reservation",
        "Reports the cluster_queue's total resource reservation within all the flavors", cq_resource);
    cq_resource_pending_ = &r.gauge(
        "kueue_cluster_queue_resource_pending",
        "Reports the cluster_queue's total pending resource requests. Unlike resource_reservation, pending workloads "
        "have not yet been assigned to flavors.",
        {"cluster_queue", "resource"});
    cq_resource_usage_ = &r.gauge("kueue_cluster_queue_resource_usage",
                                  "Reports the cluster_queue's total resource usage within all the flavors", cq_resource);
    cq_nominal_quota_ = &r.gauge("kueue_cluster_queue_nominal_quota",
                                 "Reports the cluster_queue's resource nominal quota within all the flavors", cq_resource);
    cq_borrowing_limit_ = &r.gauge(
        "kueue_cluster_queue_borrowing_limit",
        "Reports the cluster_queue's resource borrowing limit within all the flavors. If borrowingLimit is unset, "
        "this metric reports +Inf.",
        cq_resource);
    cq_lending_limit_ = &r.gauge(
        "kueue_cluster_queue_lending_limit",
        "Reports the cluster_queue's resource lending limit within all the flavors. If lendingLimit is unset, this "
        "metric reports +Inf.",
        cq_resource);
  }

  if (options_.fair_sharing) {
    cq_weighted_share_ = &r.gauge("kueue_cluster_queue_weighted_share",
                                  R"HELP(Reports a value that representing the maximum of the ratios of usage above nominal
quota to the lendable resources in the cohort, among all the resources provided by
the ClusterQueue, and divided by the weight.
If zero, it means that the usage of the ClusterQueue is below the nominal quota.
If the ClusterQueue has a weight of zero and is borrowing, this will return NaN.)HELP",
                                  {"cluster_queue", "cohort"});
    cohort_weighted_share_ = &r.gauge("kueue_cohort_weighted_share",
                                      R"HELP(Reports a value that representing the maximum of the ratios of usage above nominal
quota to the lendable resources in the Cohort, among all the resources provided by
the Cohort, and divided by the weight.
If zero, it means that the usage of the Cohort is below the nominal quota.
If the Cohort has a weight of zero and is borrowing, this will return NaN.)HELP",
                                      {"cohort"});
  }

  if (options_.cohort_metrics) {
    cohort_subtree_quota_ = &r.gauge(
        "kueue_cohort_subtree_quota",
        "Reports the cohort's nominal quota aggregated within the cohort's subtree. The values are reported per "
        "resource and flavor",
        cohort_resource);
    cohort_subtree_admitted_workloads_total_ =
        &r.counter("kueue_cohort_subtree_admitted_workloads_total",
                   "The total number of admitted workloads per cohort's subtree", {"cohort", "priority_class"});
    cohort_subtree_resource_reservations_ = &r.gauge(
        "kueue_cohort_subtree_resource_reservations",
        "Reports the cohort's resource reservations aggregated within the cohort's subtree. The values are reported "
        "per resource and flavor",
        cohort_resource);
    cohort_subtree_admitted_active_workloads_ =
        &r.gauge("kueue_cohort_subtree_admitted_active_workloads",
                 "The number of admitted Workloads that are active, per cohort's subtree", {"cohort"});
    cohort_info_ = &r.gauge(
        "kueue_cohort_info",
        "Reports Cohort hierarchy information. The metric has value 1 and can be joined using labels.",
        {"cohort", "parent_cohort", "root_cohort"});
    cluster_queue_info_ = &r.gauge(
        "kueue_cluster_queue_info",
        "Reports ClusterQueue hierarchy information. The metric has value 1 and can be joined using labels.",
        {"cluster_queue", "parent_cohort", "root_cohort"});
  }

  if (options_.local_queue_metrics) {
    lq_pending_workloads_ = &r.gauge(
        "kueue_local_queue_pending_workloads",
        join({"The number of pending workloads, per 'local_queue' and 'status'.\n", kPendingStatusHelp}), lq_status);
    lq_finished_workloads_ = &r.gauge("kueue_local_queue_finished_workloads",
                                      "The number of finished workloads, per 'local_queue'.", lq);
    lq_quota_reserved_workloads_total_ = &r.counter(
        "kueue_local_queue_quota_reserved_workloads_total",
        "The total number of quota reserved workloads per 'local_queue'", lq_priority);
    lq_finished_workloads_total_ = &r.counter("kueue_local_queue_finished_workloads_total",
                                              "The total number of finished workloads per 'local_queue'", lq_priority);
    lq_execution_time_ = &r.histogram(
        "kueue_local_queue_execution_time_seconds",
        "The total execution time of a finished admitted workload (from first admission to completion, including "
        "time across evict/readmit cycles), per 'local_queue'",
        lq_priority, kueue_buckets(16));
    lq_quota_reserved_wait_time_ = &r.histogram(
        "kueue_local_queue_quota_reserved_wait_time_seconds",
        "The time between a workload was created or requeued until it got quota reservation, per 'local_queue'",
        lq_priority, kueue_buckets(14));
    lq_admitted_workloads_total_ = &r.counter("kueue_local_queue_admitted_workloads_total",
                                              "The total number of admitted workloads per 'local_queue'", lq_priority);
    lq_admission_wait_time_ = &r.histogram(
        "kueue_local_queue_admission_wait_time_seconds",
        "The time between a workload was created or requeued until admission, per 'local_queue'", lq_priority,
        kueue_buckets(14));
    lq_admission_checks_wait_time_ = &r.histogram(
        "kueue_local_queue_admission_checks_wait_time_seconds",
        "The time from when a workload got the quota reservation until admission, per 'local_queue'", lq_priority,
        kueue_buckets(14));
    lq_ready_wait_time_ = &r.histogram(
        "kueue_local_queue_ready_wait_time_seconds",
        "The time between a workload was created or requeued until ready, per 'local_queue'", lq_priority,
        kueue_buckets(14));
    lq_admitted_until_ready_wait_time_ = &r.histogram(
        "kueue_local_queue_admitted_until_ready_wait_time_seconds",
        "The time between a workload was admitted until ready, per 'local_queue'", lq_priority, kueue_buckets(14));
    lq_evicted_workloads_total_ = &r.counter(
        "kueue_local_queue_evicted_workloads_total",
        join({"The number of evicted workloads per 'local_queue',\n", kEvictionReasonsHelp, "\n", kUnderlyingCausesHelp}),
        {"name", "namespace", "reason", "underlying_cause", "priority_class"});
    lq_reserving_active_workloads_ = &r.gauge("kueue_local_queue_reserving_active_workloads",
                                              "The number of Workloads that are reserving quota, per 'localQueue'", lq);
    lq_admitted_active_workloads_ = &r.gauge(
        "kueue_local_queue_admitted_active_workloads",
        "The number of admitted Workloads that are active, per 'localQueue'", lq);
    lq_status_ = &r.gauge(
        "kueue_local_queue_status",
        "Reports 'localQueue' with its 'active' status (with possible values 'True', 'False', or 'Unknown').\n"
        "For a LocalQueue, the metric only reports a value of 1 for one of the statuses.",
        {"name", "namespace", "active"});
    if (options_.unadmitted_workloads) {
      lq_unadmitted_workloads_ = &r.gauge(
          "kueue_local_queue_unadmitted_workloads",
          "The number of unadmitted workloads, per 'name', 'namespace', 'cluster_queue', 'reason', and "
          "'underlying_cause'. This metric is only emitted when UnadmittedWorkloadsObservability feature gate is "
          "enabled.",
          {"name", "namespace", "cluster_queue", "reason", "underlying_cause"});
    }
    lq_resource_reservation_ = &r.gauge(
        "kueue_local_queue_resource_reservation",
        "Reports the localQueue's total resource reservation within all the flavors", lq_resource);
    lq_resource_usage_ = &r.gauge("kueue_local_queue_resource_usage",
                                  "Reports the localQueue's total resource usage within all the flavors", lq_resource);
  }
}

void KueueMetrics::set_replica_role(std::string_view role) {
  options_.replica_role = std::string(role);
  registry_.set_constant_label("replica_role", options_.replica_role);
}

// -- scheduler ------------------------------------------------------------------------

void KueueMetrics::admission_attempt(AdmissionResult result, double seconds) {
  admission_attempts_total_->inc({to_string(result)});
  admission_attempt_duration_->observe({to_string(result)}, seconds);
}

void KueueMetrics::preemption_skips(std::string_view cluster_queue, std::int64_t count) {
  admission_cycle_preemption_skips_->set({cluster_queue}, static_cast<double>(count));
}

void KueueMetrics::preemption_target_recomputation(std::string_view cluster_queue,
                                                   PreemptionRecomputationResult result) {
  preemption_target_recomputations_total_->inc({cluster_queue, to_string(result)});
}

// -- workload lifecycle -------------------------------------------------------------

void KueueMetrics::quota_reserved(const WorkloadLabels& wl, double wait_seconds) {
  quota_reserved_workloads_total_->inc({wl.cluster_queue, wl.priority_class});
  quota_reserved_wait_time_->observe({wl.cluster_queue, wl.priority_class}, wait_seconds);
  if (lq_enabled(wl)) {
    lq_quota_reserved_workloads_total_->inc({wl.lq_name, wl.lq_namespace, wl.priority_class});
    lq_quota_reserved_wait_time_->observe({wl.lq_name, wl.lq_namespace, wl.priority_class}, wait_seconds);
  }
}

void KueueMetrics::admitted(const WorkloadLabels& wl, double wait_seconds, std::span<const std::string> cohort_ancestors) {
  admitted_workloads_total_->inc({wl.cluster_queue, wl.priority_class});
  admission_wait_time_->observe({wl.cluster_queue, wl.priority_class}, wait_seconds);
  if (lq_enabled(wl)) {
    lq_admitted_workloads_total_->inc({wl.lq_name, wl.lq_namespace, wl.priority_class});
    lq_admission_wait_time_->observe({wl.lq_name, wl.lq_namespace, wl.priority_class}, wait_seconds);
  }
  if (cohort_subtree_admitted_workloads_total_ != nullptr) {
    for (const std::string& cohort : cohort_ancestors) {
      cohort_subtree_admitted_workloads_total_->inc({cohort, wl.priority_class});
    }
  }
}

void KueueMetrics::admission_checks_wait(const WorkloadLabels& wl, double wait_seconds) {
  admission_checks_wait_time_->observe({wl.cluster_queue, wl.priority_class}, wait_seconds);
  if (lq_enabled(wl)) {
    lq_admission_checks_wait_time_->observe({wl.lq_name, wl.lq_namespace, wl.priority_class}, wait_seconds);
  }
}

void KueueMetrics::ready_wait(const WorkloadLabels& wl, double wait_seconds) {
  ready_wait_time_->observe({wl.cluster_queue, wl.priority_class}, wait_seconds);
  if (lq_enabled(wl)) lq_ready_wait_time_->observe({wl.lq_name, wl.lq_namespace, wl.priority_class}, wait_seconds);
}

void KueueMetrics::admitted_until_ready(const WorkloadLabels& wl, double wait_seconds) {
  admitted_until_ready_wait_time_->observe({wl.cluster_queue, wl.priority_class}, wait_seconds);
  if (lq_enabled(wl)) {
    lq_admitted_until_ready_wait_time_->observe({wl.lq_name, wl.lq_namespace, wl.priority_class}, wait_seconds);
  }
}

void KueueMetrics::finished(const WorkloadLabels& wl, std::optional<double> execution_seconds) {
  finished_workloads_total_->inc({wl.cluster_queue, wl.priority_class});
  if (lq_enabled(wl)) lq_finished_workloads_total_->inc({wl.lq_name, wl.lq_namespace, wl.priority_class});
  if (!execution_seconds) return;
  double seconds = std::max(0.0, *execution_seconds);
  execution_time_->observe({wl.cluster_queue, wl.priority_class}, seconds);
  if (lq_enabled(wl)) lq_execution_time_->observe({wl.lq_name, wl.lq_namespace, wl.priority_class}, seconds);
}

void KueueMetrics::evicted(const WorkloadLabels& wl, std::string_view reason, std::string_view underlying_cause) {
  evicted_workloads_total_->inc({wl.cluster_queue, reason, underlying_cause, wl.priority_class});
  if (lq_enabled(wl)) {
    lq_evicted_workloads_total_->inc({wl.lq_name, wl.lq_namespace, reason, underlying_cause, wl.priority_class});
  }
}

void KueueMetrics::evicted_once(const WorkloadLabels& wl, std::string_view reason, std::string_view underlying_cause) {
  evicted_workloads_once_total_->inc({wl.cluster_queue, reason, underlying_cause, wl.priority_class});
}

void KueueMetrics::pods_ready_to_evicted(std::string_view cluster_queue, std::string_view reason,
                                         std::string_view underlying_cause, double seconds) {
  pods_ready_to_evicted_time_->observe({cluster_queue, reason, underlying_cause}, seconds);
}

void KueueMetrics::eviction_latency(std::string_view cluster_queue, std::string_view reason, double seconds) {
  workload_eviction_latency_->observe({cluster_queue, reason}, std::max(0.0, seconds));
}

void KueueMetrics::preempted(std::string_view preempting_cluster_queue, std::string_view reason) {
  preempted_workloads_total_->inc({preempting_cluster_queue, reason});
}

void KueueMetrics::workload_created(std::string_view job_kind, double seconds) {
  if (workload_creation_latency_ != nullptr) workload_creation_latency_->observe({job_kind}, seconds);
}

// -- state gauges ---------------------------------------------------------------------

void KueueMetrics::set_cluster_queue_gauges(std::string_view cluster_queue, const ClusterQueueGauges& g) {
  const std::string_view cq = cluster_queue;
  pending_workloads_->set({cq, kActive}, static_cast<double>(g.pending_active));
  pending_workloads_->set({cq, kInadmissible}, static_cast<double>(g.pending_inadmissible));
  if (g.pending_hashes_active && g.pending_hashes_inadmissible) {
    pending_scheduling_hashes_->set({cq, kActive}, static_cast<double>(*g.pending_hashes_active));
    pending_scheduling_hashes_->set({cq, kInadmissible}, static_cast<double>(*g.pending_hashes_inadmissible));
  } else {
    pending_scheduling_hashes_->remove_matching("cluster_queue", cq);
  }
  finished_workloads_->set({cq}, static_cast<double>(g.finished));
  reserving_active_workloads_->set({cq}, static_cast<double>(g.reserving_active));
  admitted_active_workloads_->set({cq}, static_cast<double>(g.admitted_active));
  static constexpr std::array<std::string_view, 3> kStatuses = {"pending", "active", "terminating"};
  set_one_hot(*cluster_queue_status_, std::array<std::string_view, 2>{cq, {}}, 1, kStatuses, to_string(g.status));

  if (unadmitted_workloads_ != nullptr) {
    for (const UnadmittedCount& u : g.unadmitted) {
      if (u.count > 0) unadmitted_workloads_->set({cq, u.reason, u.underlying_cause}, static_cast<double>(u.count));
    }
    unadmitted_workloads_->remove_matching_if({{"cluster_queue", cq}}, [&](const SeriesLabels& labels) {
      return !any_of(g.unadmitted, [&](const UnadmittedCount& u) {
        return u.count > 0 && u.reason == labels[1] && u.underlying_cause == labels[2];
      });
    });
  }

  if (cluster_queue_info_ != nullptr) {
    cluster_queue_info_->remove_matching_if({{"cluster_queue", cq}}, [&](const SeriesLabels& labels) {
      return labels[1] != g.cohort || labels[2] != g.root_cohort;
    });
    cluster_queue_info_->set({cq, g.cohort, g.root_cohort}, 1);
  }

  if (cq_nominal_quota_ != nullptr) {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    for (const FlavorResourceQuota& q : g.resources) {
      const std::array<std::string_view, 4> labels{g.cohort, cq, q.flavor, q.resource};
      const LabelValues values(labels.data(), labels.size());
      cq_nominal_quota_->set(values, q.nominal);
      cq_borrowing_limit_->set(values, q.borrowing_limit.value_or(kInf));
      cq_lending_limit_->set(values, q.lending_limit.value_or(kInf));
      cq_resource_reservation_->set(values, q.reservation);
      cq_resource_usage_->set(values, q.usage);
    }
    auto stale = [&](const SeriesLabels& labels) {
      return labels[0] != g.cohort || !any_of(g.resources, [&](const FlavorResourceQuota& q) {
        return q.flavor == labels[2] && q.resource == labels[3];
      });
    };
    for (Family* family :
         {cq_nominal_quota_, cq_borrowing_limit_, cq_lending_limit_, cq_resource_reservation_, cq_resource_usage_}) {
      family->remove_matching_if({{"cluster_queue", cq}}, stale);
    }
    for (const ResourceAmount& p : g.pending_resources) cq_resource_pending_->set({cq, p.resource}, p.amount);
    cq_resource_pending_->remove_matching_if({{"cluster_queue", cq}}, [&](const SeriesLabels& labels) {
      return !any_of(g.pending_resources, [&](const ResourceAmount& p) { return p.resource == labels[1]; });
    });
  }

  if (cq_weighted_share_ != nullptr) {
    cq_weighted_share_->remove_matching_if({{"cluster_queue", cq}}, [&](const SeriesLabels& labels) {
      return !g.weighted_share || labels[1] != g.cohort;
    });
    if (g.weighted_share) cq_weighted_share_->set({cq, g.cohort}, *g.weighted_share);
  }
}

void KueueMetrics::set_local_queue_gauges(const LocalQueueRef& lq, const LocalQueueGauges& g) {
  if (!options_.local_queue_metrics) return;
  lq_pending_workloads_->set({lq.name, lq.ns, kActive}, static_cast<double>(g.pending_active));
  lq_pending_workloads_->set({lq.name, lq.ns, kInadmissible}, static_cast<double>(g.pending_inadmissible));
  lq_finished_workloads_->set({lq.name, lq.ns}, static_cast<double>(g.finished));
  lq_reserving_active_workloads_->set({lq.name, lq.ns}, static_cast<double>(g.reserving_active));
  lq_admitted_active_workloads_->set({lq.name, lq.ns}, static_cast<double>(g.admitted_active));
  static constexpr std::array<std::string_view, 3> kConditions = {"True", "False", "Unknown"};
  set_one_hot(*lq_status_, std::array<std::string_view, 3>{lq.name, lq.ns, {}}, 2, kConditions, to_string(g.active));

  const std::initializer_list<LabelMatch> this_queue = {{"name", lq.name}, {"namespace", lq.ns}};
  if (lq_unadmitted_workloads_ != nullptr) {
    for (const UnadmittedCount& u : g.unadmitted) {
      if (u.count > 0) {
        lq_unadmitted_workloads_->set({lq.name, lq.ns, g.cluster_queue, u.reason, u.underlying_cause},
                                      static_cast<double>(u.count));
      }
    }
    lq_unadmitted_workloads_->remove_matching_if(this_queue, [&](const SeriesLabels& labels) {
      return labels[2] != g.cluster_queue || !any_of(g.unadmitted, [&](const UnadmittedCount& u) {
        return u.count > 0 && u.reason == labels[3] && u.underlying_cause == labels[4];
      });
    });
  }

  for (const FlavorResourceAmounts& a : g.resources) {
    lq_resource_reservation_->set({lq.name, lq.ns, a.flavor, a.resource}, a.reservation);
    lq_resource_usage_->set({lq.name, lq.ns, a.flavor, a.resource}, a.usage);
  }
  auto stale = [&](const SeriesLabels& labels) {
    return !any_of(g.resources, [&](const FlavorResourceAmounts& a) {
      return a.flavor == labels[2] && a.resource == labels[3];
    });
  };
  lq_resource_reservation_->remove_matching_if(this_queue, stale);
  lq_resource_usage_->remove_matching_if(this_queue, stale);
}

void KueueMetrics::set_cohort_gauges(std::string_view cohort, const CohortGauges& g) {
  if (cohort_info_ != nullptr) {
    cohort_info_->remove_matching_if({{"cohort", cohort}}, [&](const SeriesLabels& labels) {
      return labels[1] != g.parent_cohort || labels[2] != g.root_cohort;
    });
    cohort_info_->set({cohort, g.parent_cohort, g.root_cohort}, 1);
    cohort_subtree_admitted_active_workloads_->set({cohort}, static_cast<double>(g.subtree_admitted_active));
    // Kueue reports a subtree amount only while it is positive.
    for (const CohortResource& res : g.resources) {
      if (res.subtree_quota > 0) {
        cohort_subtree_quota_->set({cohort, res.flavor, res.resource}, res.subtree_quota);
      } else {
        cohort_subtree_quota_->remove({cohort, res.flavor, res.resource});
      }
      if (res.subtree_reservation > 0) {
        cohort_subtree_resource_reservations_->set({cohort, res.flavor, res.resource}, res.subtree_reservation);
      } else {
        cohort_subtree_resource_reservations_->remove({cohort, res.flavor, res.resource});
      }
    }
    auto stale = [&](const SeriesLabels& labels) {
      return !any_of(g.resources, [&](const CohortResource& res) {
        return res.flavor == labels[1] && res.resource == labels[2];
      });
    };
    cohort_subtree_quota_->remove_matching_if({{"cohort", cohort}}, stale);
    cohort_subtree_resource_reservations_->remove_matching_if({{"cohort", cohort}}, stale);
  }
  if (cohort_weighted_share_ != nullptr) {
    if (g.weighted_share) {
      cohort_weighted_share_->set({cohort}, *g.weighted_share);
    } else {
      cohort_weighted_share_->remove({cohort});
    }
  }
}

void KueueMetrics::set_build_info(const BuildInfo& info) {
  build_info_->clear();
  build_info_->set({info.git_version, info.git_commit, info.build_date, info.go_version, info.compiler, info.platform},
                   1);
}

// -- removal ------------------------------------------------------------------------

void KueueMetrics::remove_cluster_queue(std::string_view cluster_queue) {
  registry_.for_each_family([&](Family& family) {
    family.remove_matching("cluster_queue", cluster_queue);
    family.remove_matching("preempting_cluster_queue", cluster_queue);
  });
}

void KueueMetrics::remove_local_queue(const LocalQueueRef& lq) {
  registry_.for_each_family([&](Family& family) {
    if (family.name().starts_with("kueue_local_queue_")) {
      family.remove_matching({{"name", lq.name}, {"namespace", lq.ns}});
    }
  });
}

void KueueMetrics::remove_cohort(std::string_view cohort) {
  registry_.for_each_family([&](Family& family) {
    if (family.name().starts_with("kueue_cohort_")) family.remove_matching("cohort", cohort);
  });
}

}  // namespace kueuepp::metrics
