#pragma once

// Kueue's metrics (sigs.k8s.io/kueue pkg/metrics) as kueuepp can honestly produce them:
// the same names, help texts, types, label names and buckets, so Kueue's dashboards and
// alerts work unchanged. Every series carries replica_role (but kueue_build_info).
//
// Registered always (Kueue's Register()):
//   kueue_admission_attempts_total, kueue_admission_attempt_duration_seconds,
//   kueue_admission_cycle_preemption_skips, kueue_preemption_target_recomputations_total,
//   kueue_build_info, kueue_pending_workloads, kueue_pending_scheduling_hashes,
//   kueue_finished_workloads, kueue_quota_reserved_workloads_total,
//   kueue_quota_reserved_wait_time_seconds, kueue_admitted_workloads_total,
//   kueue_admission_wait_time_seconds, kueue_admission_checks_wait_time_seconds,
//   kueue_ready_wait_time_seconds, kueue_admitted_until_ready_wait_time_seconds,
//   kueue_finished_workloads_total, kueue_execution_time_seconds,
//   kueue_evicted_workloads_total, kueue_evicted_workloads_once_total,
//   kueue_pods_ready_to_evicted_time_seconds, kueue_workload_eviction_latency_seconds,
//   kueue_preempted_workloads_total, kueue_reserving_active_workloads,
//   kueue_admitted_active_workloads, kueue_cluster_queue_status
// Behind options (Kueue's gates): see KueueMetricsOptions.
//
// Not registered (kueuepp has no such feature): the multikueue_* counters,
// kueue_pod_scheduling_gate_removal_seconds (TAS / pod groups),
// kueue_replaced_workload_slices_total (elastic jobs),
// kueue_local_queue_admission_fair_sharing_usage (admission fair sharing), and the
// custom_* labels (CustomMetricLabels).
//
// A metric appears in the exposition with its first series (as in Kueue), so a registered
// but never reported metric costs nothing on the wire.
//
// Single-threaded: owned by one actor. Times are seconds (double) measured by the caller;
// quantities are Kueue's AsApproximateFloat64 (cpu in cores, memory in bytes).

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/metrics/metrics_registry.hpp"

namespace kueuepp::metrics {

/// Kueue's label values.
namespace values {
inline constexpr std::string_view kReplicaRoleLeader = "leader";
inline constexpr std::string_view kReplicaRoleFollower = "follower";
inline constexpr std::string_view kReplicaRoleStandalone = "standalone";

/// Eviction reasons (label `reason` of the eviction metrics).
inline constexpr std::string_view kEvictedPreempted = "Preempted";
inline constexpr std::string_view kEvictedPodsReadyTimeout = "PodsReadyTimeout";
inline constexpr std::string_view kEvictedAdmissionCheck = "AdmissionCheck";
inline constexpr std::string_view kEvictedClusterQueueStopped = "ClusterQueueStopped";
inline constexpr std::string_view kEvictedLocalQueueStopped = "LocalQueueStopped";
inline constexpr std::string_view kEvictedNodeFailures = "NodeFailures";
inline constexpr std::string_view kEvictedDeactivated = "Deactivated";

/// Underlying causes (label `underlying_cause`); "" when `reason` is the root cause.
inline constexpr std::string_view kCauseNone = "";
inline constexpr std::string_view kCauseAdmissionCheck = "AdmissionCheck";
inline constexpr std::string_view kCauseMaximumExecutionTimeExceeded = "MaximumExecutionTimeExceeded";
inline constexpr std::string_view kCauseRequeuingLimitExceeded = "RequeuingLimitExceeded";
inline constexpr std::string_view kCauseWaitForStart = "WaitForStart";
inline constexpr std::string_view kCauseWaitForRecovery = "WaitForRecovery";

/// Preemption reasons (label `reason` of kueue_preempted_workloads_total).
inline constexpr std::string_view kPreemptedInClusterQueue = "InClusterQueue";
inline constexpr std::string_view kPreemptedInCohortReclamation = "InCohortReclamation";
inline constexpr std::string_view kPreemptedInCohortFairSharing = "InCohortFairSharing";
inline constexpr std::string_view kPreemptedInCohortReclaimWhileBorrowing = "InCohortReclaimWhileBorrowing";
}  // namespace values

struct KueueMetricsOptions {
  /// replica_role on every series: "leader", "follower" or "standalone".
  std::string replica_role = std::string(values::kReplicaRoleStandalone);
  /// The kueue_local_queue_* metrics: Kueue's LocalQueueMetrics gate (beta, on) and the
  /// configuration's metrics.localQueueMetrics.enable (off unless set).
  bool local_queue_metrics = false;
  /// kueue_cluster_queue_{nominal_quota,borrowing_limit,lending_limit,resource_reservation,
  /// resource_usage,resource_pending}: the configuration's
  /// metrics.enableClusterQueueResources.
  bool cluster_queue_resources = false;
  /// kueue_cluster_queue_weighted_share and kueue_cohort_weighted_share: fair sharing
  /// enabled in the configuration.
  bool fair_sharing = false;
  /// kueue_cohort_info, kueue_cluster_queue_info and kueue_cohort_subtree_*: Kueue's
  /// MetricsForCohorts gate (beta, on).
  bool cohort_metrics = true;
  /// kueue_unadmitted_workloads (and the LocalQueue one): Kueue's
  /// UnadmittedWorkloadsObservability gate (beta, on).
  bool unadmitted_workloads = true;
  /// kueue_workload_creation_latency_seconds: Kueue's MetricForWorkloadCreationLatency
  /// gate (beta, on).
  bool workload_creation_latency = true;
  /// Configuration settings kueuepp was told to run without (--allow-unsupported):
  /// kueuepp_configuration_ignored_fields{field} is 1 for each, so an alert can see them.
  std::vector<std::string> ignored_configuration_fields;
};

enum class AdmissionResult { Success, Inadmissible };
enum class PreemptionRecomputationResult { NewTargets, DeferredFit, Skipped };
enum class ClusterQueueStatus { Pending, Active, Terminating };
enum class ConditionStatus { True, False, Unknown };

std::string_view to_string(AdmissionResult result);               // "success", "inadmissible"
std::string_view to_string(PreemptionRecomputationResult result);  // "new_targets", ...
std::string_view to_string(ClusterQueueStatus status);             // "pending", "active", "terminating"
std::string_view to_string(ConditionStatus status);                // "True", "False", "Unknown"

/// Whom a workload sample is about. Views: only read during the call.
struct WorkloadLabels {
  std::string_view cluster_queue;
  /// The workload's namespace and spec.queueName. Leave lq_name empty to skip the
  /// kueue_local_queue_* series (no LocalQueue, or one not selected by
  /// localQueueMetrics.localQueueSelector).
  std::string_view lq_namespace;
  std::string_view lq_name;
  /// The workload's priority class name ("" when it has none).
  std::string_view priority_class;
};

struct LocalQueueRef {
  std::string_view ns;
  std::string_view name;
};

/// A count of pending workloads with one (reason, underlying_cause): Kueue's
/// unadmitted-workloads observability.
struct UnadmittedCount {
  std::string reason;
  std::string underlying_cause;
  std::int64_t count = 0;
};

/// Quota and usage of one flavor/resource of a ClusterQueue.
struct FlavorResourceQuota {
  std::string flavor;
  std::string resource;
  double nominal = 0;
  std::optional<double> borrowing_limit;  ///< unset: reported as +Inf
  std::optional<double> lending_limit;    ///< unset: reported as +Inf
  double reservation = 0;                 ///< quota reserved by workloads (admitted or not)
  double usage = 0;                       ///< used by admitted workloads
};

struct ResourceAmount {
  std::string resource;
  double amount = 0;
};

/// Everything the ClusterQueue gauges show, as of now.
struct ClusterQueueGauges {
  std::string cohort;       ///< spec.cohortName ("" when none)
  std::string root_cohort;  ///< the root of its cohort tree ("" when none)
  ClusterQueueStatus status = ClusterQueueStatus::Pending;
  /// Pending workloads: in the queue, and parked as inadmissible. Kueue counts every
  /// pending workload as inadmissible while the ClusterQueue is not active.
  std::int64_t pending_active = 0;
  std::int64_t pending_inadmissible = 0;
  /// Distinct scheduling-equivalence hashes among them (Kueue's
  /// SchedulingEquivalenceHashing); nullopt: not reported.
  std::optional<std::int64_t> pending_hashes_active;
  std::optional<std::int64_t> pending_hashes_inadmissible;
  std::int64_t reserving_active = 0;  ///< workloads holding quota
  std::int64_t admitted_active = 0;   ///< admitted and active
  std::int64_t finished = 0;          ///< finished workloads still present
  /// Pending workloads per (reason, underlying_cause); the series of pairs not listed
  /// (or with count 0) are removed.
  std::vector<UnadmittedCount> unadmitted;
  /// cluster_queue_resources: one entry per flavor/resource in spec.resourceGroups; the
  /// series of pairs not listed are removed.
  std::vector<FlavorResourceQuota> resources;
  /// cluster_queue_resources: pending requests per resource (0 entries for every
  /// resource the queue covers).
  std::vector<ResourceAmount> pending_resources;
  /// fair_sharing: the weighted share (NaN when the weight is 0 and it borrows).
  std::optional<double> weighted_share;
};

struct FlavorResourceAmounts {
  std::string flavor;
  std::string resource;
  double reservation = 0;
  double usage = 0;
};

/// Everything the LocalQueue gauges show, as of now.
struct LocalQueueGauges {
  std::string cluster_queue;  ///< spec.clusterQueue (label of the unadmitted gauge)
  ConditionStatus active = ConditionStatus::Unknown;  ///< the Active condition
  std::int64_t pending_active = 0;
  std::int64_t pending_inadmissible = 0;
  std::int64_t reserving_active = 0;
  std::int64_t admitted_active = 0;
  std::int64_t finished = 0;
  std::vector<UnadmittedCount> unadmitted;
  std::vector<FlavorResourceAmounts> resources;
};

struct CohortResource {
  std::string flavor;
  std::string resource;
  double subtree_quota = 0;        ///< nominal quota of the subtree; <= 0: series removed
  double subtree_reservation = 0;  ///< reservations within the subtree; <= 0: series removed
};

/// Everything the Cohort gauges show, as of now.
struct CohortGauges {
  std::string parent_cohort;  ///< "" for a root
  std::string root_cohort;    ///< the root (itself for a root)
  std::int64_t subtree_admitted_active = 0;
  std::vector<CohortResource> resources;  ///< pairs not listed are removed
  std::optional<double> weighted_share;   ///< fair_sharing
};

/// kueue_build_info's labels.
struct BuildInfo {
  std::string git_version;
  std::string git_commit;
  std::string build_date;
  std::string go_version;  ///< Kueue's label name; kueuepp reports its C++ toolchain here
  std::string compiler;
  std::string platform;
};

class KueueMetrics {
 public:
  explicit KueueMetrics(KueueMetricsOptions options = {});
  KueueMetrics(const KueueMetrics&) = delete;
  KueueMetrics& operator=(const KueueMetrics&) = delete;

  const KueueMetricsOptions& options() const { return options_; }
  Registry& registry() { return registry_; }
  const Registry& registry() const { return registry_; }
  /// The exposition (Content-Type Registry::kContentType).
  std::string render() const { return registry_.render(); }
  /// Leader election changed the role: every series is reported under the new one.
  void set_replica_role(std::string_view role);

  // -- scheduler ----------------------------------------------------------------------

  /// One scheduling cycle: Success when it admitted at least one workload.
  void admission_attempt(AdmissionResult result, double seconds);
  /// Heads of `cluster_queue` that had preemption candidates but were skipped because
  /// another ClusterQueue needed the same resources in the cycle.
  void preemption_skips(std::string_view cluster_queue, std::int64_t count);
  void preemption_target_recomputation(std::string_view cluster_queue, PreemptionRecomputationResult result);

  // -- workload lifecycle ---------------------------------------------------------------

  /// Quota reserved; wait = since creation or last requeue.
  void quota_reserved(const WorkloadLabels& wl, double wait_seconds);
  /// Admitted; wait = since creation or last requeue. Also counts the admission in
  /// kueue_cohort_subtree_admitted_workloads_total of every cohort in
  /// `cohort_ancestors` (the ClusterQueue's parent up to the root).
  void admitted(const WorkloadLabels& wl, double wait_seconds, std::span<const std::string> cohort_ancestors = {});
  /// Admitted; wait = since quota reservation (admission checks).
  void admission_checks_wait(const WorkloadLabels& wl, double wait_seconds);
  /// PodsReady (waitForPodsReady): since creation or requeue, and since admission.
  void ready_wait(const WorkloadLabels& wl, double wait_seconds);
  void admitted_until_ready(const WorkloadLabels& wl, double wait_seconds);
  /// Finished; execution = admitted time summed over evictions (clamped at 0), when known.
  void finished(const WorkloadLabels& wl, std::optional<double> execution_seconds);
  /// Evicted from `wl.cluster_queue` (the ClusterQueue of status.admission).
  void evicted(const WorkloadLabels& wl, std::string_view reason, std::string_view underlying_cause);
  /// The first eviction of the workload with this (reason, underlying_cause).
  void evicted_once(const WorkloadLabels& wl, std::string_view reason, std::string_view underlying_cause);
  /// Evicted after its pods had been ready: seconds from PodsReady to the eviction.
  void pods_ready_to_evicted(std::string_view cluster_queue, std::string_view reason, std::string_view underlying_cause,
                             double seconds);
  /// Quota released after an eviction: seconds since Evicted became True (clamped at 0).
  void eviction_latency(std::string_view cluster_queue, std::string_view reason, double seconds);
  /// A workload preempted by one of `preempting_cluster_queue`, for `reason`.
  void preempted(std::string_view preempting_cluster_queue, std::string_view reason);
  /// A Workload created for a job: seconds since the job's creation.
  void workload_created(std::string_view job_kind, double seconds);

  // -- state gauges ---------------------------------------------------------------------

  void set_cluster_queue_gauges(std::string_view cluster_queue, const ClusterQueueGauges& gauges);
  void set_local_queue_gauges(const LocalQueueRef& lq, const LocalQueueGauges& gauges);
  void set_cohort_gauges(std::string_view cohort, const CohortGauges& gauges);
  void set_build_info(const BuildInfo& info);

  // -- removal --------------------------------------------------------------------------

  /// A deleted ClusterQueue: every series labelled with it (cluster_queue or
  /// preempting_cluster_queue) disappears, LocalQueue series naming it included.
  void remove_cluster_queue(std::string_view cluster_queue);
  /// A deleted LocalQueue: every kueue_local_queue_* series of it disappears.
  void remove_local_queue(const LocalQueueRef& lq);
  /// A deleted Cohort: every kueue_cohort_* series of it disappears.
  void remove_cohort(std::string_view cohort);

  /// The registered metric names (depends on the options), sorted.
  std::vector<std::string_view> metric_names() const { return registry_.family_names(); }

 private:
  KueueMetricsOptions options_;
  Registry registry_;

  // Always.
  Family* admission_attempts_total_;
  Family* admission_attempt_duration_;
  Family* admission_cycle_preemption_skips_;
  Family* preemption_target_recomputations_total_;
  Family* build_info_;
  Family* pending_workloads_;
  Family* pending_scheduling_hashes_;
  Family* finished_workloads_;
  Family* quota_reserved_workloads_total_;
  Family* quota_reserved_wait_time_;
  Family* admitted_workloads_total_;
  Family* admission_wait_time_;
  Family* admission_checks_wait_time_;
  Family* ready_wait_time_;
  Family* admitted_until_ready_wait_time_;
  Family* finished_workloads_total_;
  Family* execution_time_;
  Family* evicted_workloads_total_;
  Family* evicted_workloads_once_total_;
  Family* pods_ready_to_evicted_time_;
  Family* workload_eviction_latency_;
  Family* preempted_workloads_total_;
  Family* reserving_active_workloads_;
  Family* admitted_active_workloads_;
  Family* cluster_queue_status_;
  // Options (nullptr when off).
  Family* workload_creation_latency_ = nullptr;
  Family* unadmitted_workloads_ = nullptr;
  Family* cq_nominal_quota_ = nullptr;
  Family* cq_borrowing_limit_ = nullptr;
  Family* cq_lending_limit_ = nullptr;
  Family* cq_resource_reservation_ = nullptr;
  Family* cq_resource_usage_ = nullptr;
  Family* cq_resource_pending_ = nullptr;
  Family* cq_weighted_share_ = nullptr;
  Family* cohort_weighted_share_ = nullptr;
  Family* cluster_queue_info_ = nullptr;
  Family* cohort_info_ = nullptr;
  Family* cohort_subtree_quota_ = nullptr;
  Family* cohort_subtree_resource_reservations_ = nullptr;
  Family* cohort_subtree_admitted_workloads_total_ = nullptr;
  Family* cohort_subtree_admitted_active_workloads_ = nullptr;
  // LocalQueue metrics (nullptr when off).
  Family* lq_pending_workloads_ = nullptr;
  Family* lq_finished_workloads_ = nullptr;
  Family* lq_quota_reserved_workloads_total_ = nullptr;
  Family* lq_quota_reserved_wait_time_ = nullptr;
  Family* lq_admitted_workloads_total_ = nullptr;
  Family* lq_admission_wait_time_ = nullptr;
  Family* lq_admission_checks_wait_time_ = nullptr;
  Family* lq_ready_wait_time_ = nullptr;
  Family* lq_admitted_until_ready_wait_time_ = nullptr;
  Family* lq_finished_workloads_total_ = nullptr;
  Family* lq_execution_time_ = nullptr;
  Family* lq_evicted_workloads_total_ = nullptr;
  Family* lq_reserving_active_workloads_ = nullptr;
  Family* lq_admitted_active_workloads_ = nullptr;
  Family* lq_status_ = nullptr;
  Family* lq_unadmitted_workloads_ = nullptr;
  Family* lq_resource_reservation_ = nullptr;
  Family* lq_resource_usage_ = nullptr;

  bool lq_enabled(const WorkloadLabels& wl) const { return options_.local_queue_metrics && !wl.lq_name.empty(); }
};

}  // namespace kueuepp::metrics
