// Kueue's metric catalog: every metric kueuepp registers, under Kueue's exact name, type,
// labels (plus replica_role) and buckets, rendered once reported; the options that gate
// metric groups; the typed helpers; and removal of a queue's or cohort's series.
//
// The name list below is the contract with Kueue's dashboards: renaming a metric (or
// dropping or adding one) must fail here.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/metrics/kueue_metrics.hpp"

namespace kueuepp::metrics {
namespace {

struct Expected {
  std::string name;
  MetricType type;
  std::vector<std::string> labels;  // besides replica_role, in Kueue's declared order
};

const std::vector<std::string> kCq = {"cluster_queue"};
const std::vector<std::string> kCqPriority = {"cluster_queue", "priority_class"};
const std::vector<std::string> kLq = {"name", "namespace"};
const std::vector<std::string> kLqPriority = {"name", "namespace", "priority_class"};
const std::vector<std::string> kCqResource = {"cohort", "cluster_queue", "flavor", "resource"};
const std::vector<std::string> kLqResource = {"name", "namespace", "flavor", "resource"};
const std::vector<std::string> kCohortResource = {"cohort", "flavor", "resource"};

// Kueue's names (reference section 5 and pkg/metrics/metrics.go) that kueuepp produces.
const std::vector<Expected>& always_registered() {
  static const std::vector<Expected> list = {
      {"kueue_admission_attempts_total", MetricType::Counter, {"result"}},
      {"kueue_admission_attempt_duration_seconds", MetricType::Histogram, {"result"}},
      {"kueue_admission_cycle_preemption_skips", MetricType::Gauge, kCq},
      {"kueue_preemption_target_recomputations_total", MetricType::Counter, {"cluster_queue", "result"}},
      {"kueue_build_info",
       MetricType::Gauge,
       {"git_version", "git_commit", "build_date", "go_version", "compiler", "platform"}},
      {"kueue_pending_workloads", MetricType::Gauge, {"cluster_queue", "status"}},
      {"kueue_pending_scheduling_hashes", MetricType::Gauge, {"cluster_queue", "status"}},
      {"kueue_finished_workloads", MetricType::Gauge, kCq},
      {"kueue_quota_reserved_workloads_total", MetricType::Counter, kCqPriority},
      {"kueue_quota_reserved_wait_time_seconds", MetricType::Histogram, kCqPriority},
      {"kueue_admitted_workloads_total", MetricType::Counter, kCqPriority},
      {"kueue_admission_wait_time_seconds", MetricType::Histogram, kCqPriority},
      {"kueue_admission_checks_wait_time_seconds", MetricType::Histogram, kCqPriority},
      {"kueue_ready_wait_time_seconds", MetricType::Histogram, kCqPriority},
      {"kueue_admitted_until_ready_wait_time_seconds", MetricType::Histogram, kCqPriority},
      {"kueue_finished_workloads_total", MetricType::Counter, kCqPriority},
      {"kueue_execution_time_seconds", MetricType::Histogram, kCqPriority},
      {"kueue_evicted_workloads_total",
       MetricType::Counter,
       {"cluster_queue", "reason", "underlying_cause", "priority_class"}},
      {"kueue_evicted_workloads_once_total",
       MetricType::Counter,
       {"cluster_queue", "reason", "underlying_cause", "priority_class"}},
      {"kueue_pods_ready_to_evicted_time_seconds",
       MetricType::Histogram,
       {"cluster_queue", "reason", "underlying_cause"}},
      {"kueue_workload_eviction_latency_seconds", MetricType::Histogram, {"cluster_queue", "reason"}},
      {"kueue_preempted_workloads_total", MetricType::Counter, {"preempting_cluster_queue", "reason"}},
      {"kueue_reserving_active_workloads", MetricType::Gauge, kCq},
      {"kueue_admitted_active_workloads", MetricType::Gauge, kCq},
      {"kueue_cluster_queue_status", MetricType::Gauge, {"cluster_queue", "status"}},
  };
  return list;
}

const std::vector<Expected>& optional_registered() {
  static const std::vector<Expected> list = {
      // workload_creation_latency
      {"kueue_workload_creation_latency_seconds", MetricType::Histogram, {"job_kind"}},
      // unadmitted_workloads
      {"kueue_unadmitted_workloads", MetricType::Gauge, {"cluster_queue", "reason", "underlying_cause"}},
      // cluster_queue_resources
      {"kueue_cluster_queue_resource_reservation", MetricType::Gauge, kCqResource},
      {"kueue_cluster_queue_resource_usage", MetricType::Gauge, kCqResource},
      {"kueue_cluster_queue_nominal_quota", MetricType::Gauge, kCqResource},
      {"kueue_cluster_queue_borrowing_limit", MetricType::Gauge, kCqResource},
      {"kueue_cluster_queue_lending_limit", MetricType::Gauge, kCqResource},
      {"kueue_cluster_queue_resource_pending", MetricType::Gauge, {"cluster_queue", "resource"}},
      // fair_sharing
      {"kueue_cluster_queue_weighted_share", MetricType::Gauge, {"cluster_queue", "cohort"}},
      {"kueue_cohort_weighted_share", MetricType::Gauge, {"cohort"}},
      // cohort_metrics
      {"kueue_cohort_subtree_quota", MetricType::Gauge, kCohortResource},
      {"kueue_cohort_subtree_resource_reservations", MetricType::Gauge, kCohortResource},
      {"kueue_cohort_subtree_admitted_workloads_total", MetricType::Counter, {"cohort", "priority_class"}},
      {"kueue_cohort_subtree_admitted_active_workloads", MetricType::Gauge, {"cohort"}},
      {"kueue_cohort_info", MetricType::Gauge, {"cohort", "parent_cohort", "root_cohort"}},
      {"kueue_cluster_queue_info", MetricType::Gauge, {"cluster_queue", "parent_cohort", "root_cohort"}},
      // local_queue_metrics
      {"kueue_local_queue_pending_workloads", MetricType::Gauge, {"name", "namespace", "status"}},
      {"kueue_local_queue_finished_workloads", MetricType::Gauge, kLq},
      {"kueue_local_queue_quota_reserved_workloads_total", MetricType::Counter, kLqPriority},
      {"kueue_local_queue_quota_reserved_wait_time_seconds", MetricType::Histogram, kLqPriority},
      {"kueue_local_queue_admitted_workloads_total", MetricType::Counter, kLqPriority},
      {"kueue_local_queue_admission_wait_time_seconds", MetricType::Histogram, kLqPriority},
      {"kueue_local_queue_admission_checks_wait_time_seconds", MetricType::Histogram, kLqPriority},
      {"kueue_local_queue_ready_wait_time_seconds", MetricType::Histogram, kLqPriority},
      {"kueue_local_queue_admitted_until_ready_wait_time_seconds", MetricType::Histogram, kLqPriority},
      {"kueue_local_queue_finished_workloads_total", MetricType::Counter, kLqPriority},
      {"kueue_local_queue_execution_time_seconds", MetricType::Histogram, kLqPriority},
      {"kueue_local_queue_evicted_workloads_total",
       MetricType::Counter,
       {"name", "namespace", "reason", "underlying_cause", "priority_class"}},
      {"kueue_local_queue_reserving_active_workloads", MetricType::Gauge, kLq},
      {"kueue_local_queue_admitted_active_workloads", MetricType::Gauge, kLq},
      {"kueue_local_queue_status", MetricType::Gauge, {"name", "namespace", "active"}},
      {"kueue_local_queue_unadmitted_workloads",
       MetricType::Gauge,
       {"name", "namespace", "cluster_queue", "reason", "underlying_cause"}},
      {"kueue_local_queue_resource_reservation", MetricType::Gauge, kLqResource},
      {"kueue_local_queue_resource_usage", MetricType::Gauge, kLqResource},
  };
  return list;
}

// In Kueue's table but not produced by kueuepp (no such feature).
const std::vector<std::string> kNotProduced = {
    "multikueue_workloads_dispatched_total",
    "multikueue_workloads_admitted_total",
    "kueue_pod_scheduling_gate_removal_seconds",
    "kueue_replaced_workload_slices_total",
    "kueue_local_queue_admission_fair_sharing_usage",
};

KueueMetricsOptions all_options() {
  KueueMetricsOptions options;
  options.local_queue_metrics = true;
  options.cluster_queue_resources = true;
  options.fair_sharing = true;
  options.cohort_metrics = true;
  options.unadmitted_workloads = true;
  options.workload_creation_latency = true;
  return options;
}

const WorkloadLabels kWl{"cq-a", "team", "lq-a", "high"};

ClusterQueueGauges full_cq_gauges() {
  ClusterQueueGauges g;
  g.cohort = "child";
  g.root_cohort = "root";
  g.status = ClusterQueueStatus::Active;
  g.pending_active = 4;
  g.pending_inadmissible = 2;
  g.pending_hashes_active = 2;
  g.pending_hashes_inadmissible = 1;
  g.reserving_active = 3;
  g.admitted_active = 2;
  g.finished = 7;
  g.unadmitted = {{"WaitingForQuota", "", 2}, {"NoMatchingFlavor", "", 1}};
  g.resources = {{"default", "cpu", 10, std::nullopt, 4, 6, 5}, {"default", "memory", 1073741824, 0, std::nullopt, 0, 0}};
  g.pending_resources = {{"cpu", 3}, {"memory", 0}};
  g.weighted_share = 0.25;
  return g;
}

LocalQueueGauges full_lq_gauges() {
  LocalQueueGauges g;
  g.cluster_queue = "cq-a";
  g.active = ConditionStatus::True;
  g.pending_active = 1;
  g.pending_inadmissible = 1;
  g.reserving_active = 1;
  g.admitted_active = 1;
  g.finished = 2;
  g.unadmitted = {{"WaitingForQuota", "", 1}};
  g.resources = {{"default", "cpu", 2, 1}};
  return g;
}

CohortGauges full_cohort_gauges() {
  CohortGauges g;
  g.parent_cohort = "root";
  g.root_cohort = "root";
  g.subtree_admitted_active = 2;
  g.resources = {{"default", "cpu", 10, 6}};
  g.weighted_share = 0;
  return g;
}

/// Reports through every helper, so that every registered metric has a series.
void report_everything(KueueMetrics& m) {
  const std::vector<std::string> cohorts{"child", "root"};
  m.admission_attempt(AdmissionResult::Success, 0.02);
  m.preemption_skips("cq-a", 1);
  m.preemption_target_recomputation("cq-a", PreemptionRecomputationResult::DeferredFit);
  m.set_build_info({"v0.1.0", "abc123", "2025-01-01T00:00:00Z", "gcc-12", "gc", "linux/amd64"});
  m.quota_reserved(kWl, 1);
  m.admitted(kWl, 2, cohorts);
  m.admission_checks_wait(kWl, 0.5);
  m.ready_wait(kWl, 3);
  m.admitted_until_ready(kWl, 1);
  m.finished(kWl, 100);
  m.evicted(kWl, values::kEvictedPreempted, values::kCauseNone);
  m.evicted_once(kWl, values::kEvictedPreempted, values::kCauseNone);
  m.pods_ready_to_evicted("cq-a", values::kEvictedPodsReadyTimeout, values::kCauseWaitForRecovery, 30);
  m.eviction_latency("cq-a", values::kEvictedPreempted, 0.2);
  m.preempted("cq-a", values::kPreemptedInClusterQueue);
  m.workload_created("batch/job", 0.05);
  m.set_cluster_queue_gauges("cq-a", full_cq_gauges());
  m.set_local_queue_gauges({"team", "lq-a"}, full_lq_gauges());
  m.set_cohort_gauges("child", full_cohort_gauges());
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

/// The label names of a sample line, in the order written ("a=\"x\",b=\"y\"").
std::vector<std::string> label_names_of(const std::string& line) {
  std::vector<std::string> names;
  auto open = line.find('{');
  auto close = line.rfind('}');
  if (open == std::string::npos || close == std::string::npos) return names;
  std::string body = line.substr(open + 1, close - open - 1);
  std::size_t pos = 0;
  while (pos < body.size()) {
    auto eq = body.find('=', pos);
    names.push_back(body.substr(pos, eq - pos));
    auto end = body.find('"', eq + 2);
    while (body[end - 1] == '\\') end = body.find('"', end + 1);
    pos = end + 2;  // skip '"' and ','
  }
  return names;
}

/// The lines of one family's block (HELP, TYPE, samples).
std::vector<std::string> block_of(const std::string& text, const std::string& name) {
  std::vector<std::string> out;
  bool inside = false;
  for (const std::string& line : lines_of(text)) {
    if (line.starts_with("# HELP ")) inside = line.starts_with("# HELP " + name + " ");
    if (inside) out.push_back(line);
  }
  return out;
}

std::vector<double> kueue_buckets(std::size_t count) {
  std::vector<double> out{1};
  double bound = 2.5;
  for (std::size_t i = 1; i < count; ++i, bound *= 2) out.push_back(bound);
  return out;
}

TEST(KueueMetricsCatalog, RegisteredNamesAreKueues) {
  KueueMetrics metrics(all_options());
  std::vector<std::string> expected;
  for (const auto& e : always_registered()) expected.push_back(e.name);
  for (const auto& e : optional_registered()) expected.push_back(e.name);
  std::sort(expected.begin(), expected.end());
  const std::vector<std::string_view> names = metrics.metric_names();
  std::vector<std::string> actual(names.begin(), names.end());
  EXPECT_EQ(actual, expected);
  for (const std::string& name : kNotProduced) EXPECT_EQ(metrics.registry().find(name), nullptr) << name;
}

TEST(KueueMetricsCatalog, TypesAndLabelNamesAreKueues) {
  KueueMetrics metrics(all_options());
  for (const auto* list : {&always_registered(), &optional_registered()}) {
    for (const Expected& e : *list) {
      const Family* family = metrics.registry().find(e.name);
      ASSERT_NE(family, nullptr) << e.name;
      EXPECT_EQ(family->type(), e.type) << e.name;
      EXPECT_EQ(family->label_names(), e.labels) << e.name;
      EXPECT_EQ(family->constant_labels(),
                e.name == "kueue_build_info" ? ConstantLabels::Omit : ConstantLabels::Apply)
          << e.name;
    }
  }
}

TEST(KueueMetricsCatalog, EveryMetricIsRenderedWithItsLabels) {
  KueueMetrics metrics(all_options());
  report_everything(metrics);
  const std::string text = metrics.render();
  for (const auto* list : {&always_registered(), &optional_registered()}) {
    for (const Expected& e : *list) {
      std::vector<std::string> block = block_of(text, e.name);
      ASSERT_GE(block.size(), 3u) << e.name << " is not rendered";
      EXPECT_EQ(block[1], "# TYPE " + e.name + " " + std::string(type_name(e.type)));
      std::string sample_prefix = e.name + (e.type == MetricType::Histogram ? "_bucket{" : "{");
      ASSERT_TRUE(block[2].starts_with(sample_prefix)) << block[2];
      std::vector<std::string> want = e.labels;
      if (e.name != "kueue_build_info") want.push_back("replica_role");
      std::sort(want.begin(), want.end());
      if (e.type == MetricType::Histogram) want.push_back("le");
      EXPECT_EQ(label_names_of(block[2]), want) << block[2];
      if (e.name != "kueue_build_info") {
        EXPECT_NE(block[2].find("replica_role=\"standalone\""), std::string::npos) << block[2];
      }
    }
  }
}

TEST(KueueMetricsCatalog, BucketsAreKueues) {
  KueueMetrics metrics(all_options());
  const Registry& r = metrics.registry();
  const std::vector<double> b14 = kueue_buckets(14);
  const std::vector<double> b16 = kueue_buckets(16);
  ASSERT_EQ(b14.size(), 14u);
  EXPECT_EQ(b14.back(), 10240);
  EXPECT_EQ(b16.back(), 40960);
  EXPECT_EQ(r.find("kueue_admission_attempt_duration_seconds")->buckets(),
            (std::vector<double>{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}));
  for (const char* name : {"kueue_admission_wait_time_seconds", "kueue_execution_time_seconds",
                           "kueue_local_queue_execution_time_seconds"}) {
    EXPECT_EQ(r.find(name)->buckets(), b16) << name;
  }
  for (const char* name :
       {"kueue_quota_reserved_wait_time_seconds", "kueue_admission_checks_wait_time_seconds",
        "kueue_ready_wait_time_seconds", "kueue_admitted_until_ready_wait_time_seconds",
        "kueue_pods_ready_to_evicted_time_seconds", "kueue_workload_eviction_latency_seconds",
        "kueue_local_queue_quota_reserved_wait_time_seconds", "kueue_local_queue_admission_wait_time_seconds",
        "kueue_local_queue_admission_checks_wait_time_seconds", "kueue_local_queue_ready_wait_time_seconds",
        "kueue_local_queue_admitted_until_ready_wait_time_seconds"}) {
    EXPECT_EQ(r.find(name)->buckets(), b14) << name;
  }
  EXPECT_EQ(r.find("kueue_workload_creation_latency_seconds")->buckets(),
            (std::vector<double>{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24}));
}

TEST(KueueMetricsCatalog, IgnoredConfigurationFieldsAreExportedOnlyWhenThereAreSome) {
  KueueMetrics none;
  EXPECT_EQ(none.registry().find("kueuepp_configuration_ignored_fields"), nullptr);
  KueueMetricsOptions options;
  options.ignored_configuration_fields = {"webhook", "integrations.frameworks[1] \"ray.io/rayjob\""};
  KueueMetrics metrics(options);
  const std::string text = metrics.render();
  EXPECT_NE(text.find("kueuepp_configuration_ignored_fields{field=\"webhook\",replica_role=\"standalone\"} 1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(R"(field="integrations.frameworks[1] \"ray.io/rayjob\"")"), std::string::npos) << text;
}

TEST(KueueMetricsCatalog, OptionsGateMetricGroups) {
  KueueMetricsOptions options;  // Kueue's defaults
  options.cohort_metrics = false;
  options.unadmitted_workloads = false;
  options.workload_creation_latency = false;
  KueueMetrics metrics(options);
  const std::vector<std::string_view> names = metrics.metric_names();
  std::vector<std::string> actual(names.begin(), names.end());
  std::vector<std::string> expected;
  for (const auto& e : always_registered()) expected.push_back(e.name);
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(actual, expected);

  // The gated helpers do nothing; the others still report.
  report_everything(metrics);
  const std::string text = metrics.render();
  EXPECT_EQ(text.find("kueue_local_queue_"), std::string::npos);
  EXPECT_EQ(text.find("kueue_cohort_"), std::string::npos);
  EXPECT_EQ(text.find("kueue_cluster_queue_nominal_quota"), std::string::npos);
  EXPECT_NE(text.find("kueue_admitted_workloads_total{cluster_queue=\"cq-a\""), std::string::npos);
}

TEST(KueueMetricsCatalog, DefaultOptionsAreKueues) {
  KueueMetricsOptions options;
  EXPECT_EQ(options.replica_role, "standalone");
  EXPECT_FALSE(options.local_queue_metrics);
  EXPECT_FALSE(options.cluster_queue_resources);
  EXPECT_FALSE(options.fair_sharing);
  EXPECT_TRUE(options.cohort_metrics);
  EXPECT_TRUE(options.unadmitted_workloads);
  EXPECT_TRUE(options.workload_creation_latency);
}

TEST(KueueMetricsCatalog, HelpTextIsKueuesEscaped) {
  KueueMetrics metrics(all_options());
  report_everything(metrics);
  const std::string text = metrics.render();
  EXPECT_EQ(block_of(text, "kueue_pending_workloads")[0],
            "# HELP kueue_pending_workloads The number of pending workloads, per 'cluster_queue' and 'status'.\\n"
            "'status' can have the following values:\\n"
            "- \"active\" means that the workloads are in the admission queue.\\n"
            "- \"inadmissible\" means there was a failed admission attempt for these workloads and they won't be "
            "retried until cluster conditions, which could make this workload admissible, change");
  EXPECT_EQ(block_of(text, "kueue_admitted_workloads_total")[0],
            "# HELP kueue_admitted_workloads_total The total number of admitted workloads per 'cluster_queue'");
}

TEST(KueueMetricsHelpers, ClusterQueueStatusIsOneHotGolden) {
  KueueMetrics metrics;
  ClusterQueueGauges g;
  g.status = ClusterQueueStatus::Active;
  metrics.set_cluster_queue_gauges("cq-a", g);
  std::vector<std::string> block = block_of(metrics.render(), "kueue_cluster_queue_status");
  EXPECT_EQ(block, (std::vector<std::string>{
                       "# HELP kueue_cluster_queue_status Reports 'cluster_queue' with its 'status' (with possible "
                       "values 'pending', 'active' or 'terminated').\\nFor a ClusterQueue, the metric only reports a "
                       "value of 1 for one of the statuses.",
                       "# TYPE kueue_cluster_queue_status gauge",
                       "kueue_cluster_queue_status{cluster_queue=\"cq-a\",replica_role=\"standalone\",status=\"active\"} 1",
                       "kueue_cluster_queue_status{cluster_queue=\"cq-a\",replica_role=\"standalone\",status=\"pending\"} 0",
                       "kueue_cluster_queue_status{cluster_queue=\"cq-a\",replica_role=\"standalone\",status="
                       "\"terminating\"} 0",
                   }));
  g.status = ClusterQueueStatus::Terminating;
  metrics.set_cluster_queue_gauges("cq-a", g);
  const Family* status = metrics.registry().find("kueue_cluster_queue_status");
  EXPECT_EQ(status->value({"cq-a", "active"}), 0);
  EXPECT_EQ(status->value({"cq-a", "terminating"}), 1);
}

TEST(KueueMetricsHelpers, WorkloadSamplesGoldenLines) {
  KueueMetrics metrics(all_options());
  metrics.admitted(kWl, 7, std::vector<std::string>{"child", "root"});
  metrics.admitted(kWl, 700);
  const std::string text = metrics.render();
  EXPECT_EQ(block_of(text, "kueue_admitted_workloads_total")[2],
            "kueue_admitted_workloads_total{cluster_queue=\"cq-a\",priority_class=\"high\",replica_role=\"standalone\"} "
            "2");
  EXPECT_EQ(block_of(text, "kueue_local_queue_admitted_workloads_total")[2],
            "kueue_local_queue_admitted_workloads_total{name=\"lq-a\",namespace=\"team\",priority_class=\"high\","
            "replica_role=\"standalone\"} 2");
  std::vector<std::string> cohort = block_of(text, "kueue_cohort_subtree_admitted_workloads_total");
  ASSERT_EQ(cohort.size(), 4u);
  EXPECT_EQ(cohort[2],
            "kueue_cohort_subtree_admitted_workloads_total{cohort=\"child\",priority_class=\"high\",replica_role="
            "\"standalone\"} 1");
  auto wait = metrics.registry().find("kueue_admission_wait_time_seconds")->histogram({"cq-a", "high"});
  ASSERT_TRUE(wait);
  // 7s falls in le=10 (index 3), 700s in le=1280 (index 10).
  EXPECT_EQ(wait->cumulative_counts[2], 0u);
  EXPECT_EQ(wait->cumulative_counts[3], 1u);
  EXPECT_EQ(wait->cumulative_counts[9], 1u);
  EXPECT_EQ(wait->cumulative_counts[10], 2u);
  EXPECT_EQ(wait->cumulative_counts.back(), 2u);
  EXPECT_EQ(wait->sum, 707);
}

TEST(KueueMetricsHelpers, WorkloadWithoutLocalQueueSkipsLocalQueueSeries) {
  KueueMetrics metrics(all_options());
  metrics.quota_reserved({"cq-a", "team", "", ""}, 1);
  EXPECT_EQ(metrics.registry().find("kueue_local_queue_quota_reserved_workloads_total")->series_count(), 0u);
  EXPECT_EQ(metrics.registry().find("kueue_quota_reserved_workloads_total")->value({"cq-a", ""}), 1);
}

TEST(KueueMetricsHelpers, ClampsWhereKueueClamps) {
  KueueMetrics metrics(all_options());
  metrics.eviction_latency("cq-a", values::kEvictedPreempted, -5);
  metrics.finished(kWl, -1);
  metrics.finished(kWl, std::nullopt);
  EXPECT_EQ(metrics.registry().find("kueue_workload_eviction_latency_seconds")->histogram({"cq-a", "Preempted"})->sum, 0);
  auto execution = metrics.registry().find("kueue_execution_time_seconds")->histogram({"cq-a", "high"});
  EXPECT_EQ(execution->count, 1u);
  EXPECT_EQ(execution->sum, 0);
  EXPECT_EQ(metrics.registry().find("kueue_finished_workloads_total")->value({"cq-a", "high"}), 2);
}

TEST(KueueMetricsHelpers, ClusterQueueGaugesReplaceStaleSeries) {
  KueueMetrics metrics(all_options());
  metrics.set_cluster_queue_gauges("cq-a", full_cq_gauges());
  const Registry& r = metrics.registry();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(r.find("kueue_cluster_queue_borrowing_limit")->value({"child", "cq-a", "default", "cpu"}), inf);
  EXPECT_EQ(r.find("kueue_cluster_queue_lending_limit")->value({"child", "cq-a", "default", "cpu"}), 4);
  EXPECT_EQ(r.find("kueue_cluster_queue_lending_limit")->value({"child", "cq-a", "default", "memory"}), inf);
  EXPECT_EQ(r.find("kueue_cluster_queue_nominal_quota")->value({"child", "cq-a", "default", "memory"}), 1073741824);
  EXPECT_NE(metrics.render().find(
                "kueue_cluster_queue_nominal_quota{cluster_queue=\"cq-a\",cohort=\"child\",flavor=\"default\","
                "replica_role=\"standalone\",resource=\"memory\"} 1.073741824e+09"),
            std::string::npos);
  EXPECT_EQ(r.find("kueue_pending_scheduling_hashes")->value({"cq-a", "active"}), 2);

  // The queue moves to another cohort, loses memory and a reason, stops reporting hashes.
  ClusterQueueGauges g = full_cq_gauges();
  g.cohort = "other";
  g.root_cohort = "other";
  g.resources.pop_back();
  g.unadmitted = {{"WaitingForQuota", "", 0}, {"NoMatchingFlavor", "", 3}};
  g.pending_resources = {{"cpu", 1}};
  g.pending_hashes_active.reset();
  g.pending_hashes_inadmissible.reset();
  g.weighted_share.reset();
  metrics.set_cluster_queue_gauges("cq-a", g);
  for (const char* name : {"kueue_cluster_queue_nominal_quota", "kueue_cluster_queue_borrowing_limit",
                           "kueue_cluster_queue_lending_limit", "kueue_cluster_queue_resource_reservation",
                           "kueue_cluster_queue_resource_usage"}) {
    const Family* f = r.find(name);
    EXPECT_EQ(f->series_count(), 1u) << name;
    EXPECT_TRUE(f->value({"other", "cq-a", "default", "cpu"})) << name;
  }
  const Family* unadmitted = r.find("kueue_unadmitted_workloads");
  EXPECT_EQ(unadmitted->series_count(), 1u);
  EXPECT_EQ(unadmitted->value({"cq-a", "NoMatchingFlavor", ""}), 3);
  EXPECT_EQ(r.find("kueue_cluster_queue_resource_pending")->series_count(), 1u);
  EXPECT_EQ(r.find("kueue_pending_scheduling_hashes")->series_count(), 0u);
  EXPECT_EQ(r.find("kueue_cluster_queue_weighted_share")->series_count(), 0u);
  const Family* info = r.find("kueue_cluster_queue_info");
  EXPECT_EQ(info->series_count(), 1u);
  EXPECT_EQ(info->value({"cq-a", "other", "other"}), 1);
}

TEST(KueueMetricsHelpers, CohortSubtreeAmountsAreReportedWhilePositive) {
  KueueMetrics metrics(all_options());
  CohortGauges g = full_cohort_gauges();
  g.resources.push_back({"spot", "cpu", 0, 2});
  metrics.set_cohort_gauges("child", g);
  const Registry& r = metrics.registry();
  EXPECT_EQ(r.find("kueue_cohort_subtree_quota")->value({"child", "default", "cpu"}), 10);
  EXPECT_EQ(r.find("kueue_cohort_subtree_quota")->value({"child", "spot", "cpu"}), std::nullopt);
  EXPECT_EQ(r.find("kueue_cohort_subtree_resource_reservations")->value({"child", "spot", "cpu"}), 2);
  EXPECT_EQ(r.find("kueue_cohort_weighted_share")->value({"child"}), 0);
  EXPECT_EQ(r.find("kueue_cohort_info")->value({"child", "root", "root"}), 1);

  g.resources = {{"spot", "cpu", 1, 0}};
  g.parent_cohort = "";
  g.root_cohort = "child";
  metrics.set_cohort_gauges("child", g);
  EXPECT_EQ(r.find("kueue_cohort_subtree_quota")->series_count(), 1u);
  EXPECT_EQ(r.find("kueue_cohort_subtree_resource_reservations")->series_count(), 0u);
  EXPECT_EQ(r.find("kueue_cohort_info")->series_count(), 1u);
  EXPECT_EQ(r.find("kueue_cohort_info")->value({"child", "", "child"}), 1);
}

TEST(KueueMetricsHelpers, LocalQueueGaugesAndStatus) {
  KueueMetrics metrics(all_options());
  metrics.set_local_queue_gauges({"team", "lq-a"}, full_lq_gauges());
  const Registry& r = metrics.registry();
  const Family* status = r.find("kueue_local_queue_status");
  EXPECT_EQ(status->value({"lq-a", "team", "True"}), 1);
  EXPECT_EQ(status->value({"lq-a", "team", "False"}), 0);
  EXPECT_EQ(status->value({"lq-a", "team", "Unknown"}), 0);
  EXPECT_EQ(r.find("kueue_local_queue_pending_workloads")->value({"lq-a", "team", "inadmissible"}), 1);
  EXPECT_EQ(r.find("kueue_local_queue_unadmitted_workloads")->value({"lq-a", "team", "cq-a", "WaitingForQuota", ""}), 1);

  LocalQueueGauges g = full_lq_gauges();
  g.cluster_queue = "cq-b";  // the LocalQueue now points elsewhere
  g.resources.clear();
  metrics.set_local_queue_gauges({"team", "lq-a"}, g);
  const Family* unadmitted = r.find("kueue_local_queue_unadmitted_workloads");
  EXPECT_EQ(unadmitted->series_count(), 1u);
  EXPECT_EQ(unadmitted->value({"lq-a", "team", "cq-b", "WaitingForQuota", ""}), 1);
  EXPECT_EQ(r.find("kueue_local_queue_resource_usage")->series_count(), 0u);
}

TEST(KueueMetricsRemoval, DeletedClusterQueueDisappears) {
  KueueMetrics metrics(all_options());
  report_everything(metrics);
  const WorkloadLabels other{"cq-b", "team", "lq-b", ""};
  metrics.admitted(other, 1);
  metrics.preempted("cq-b", values::kPreemptedInCohortReclamation);
  metrics.set_cluster_queue_gauges("cq-b", full_cq_gauges());

  metrics.remove_cluster_queue("cq-a");
  const std::string text = metrics.render();
  EXPECT_EQ(text.find("\"cq-a\""), std::string::npos) << text;
  EXPECT_NE(text.find("kueue_admitted_workloads_total{cluster_queue=\"cq-b\""), std::string::npos);
  EXPECT_NE(text.find("kueue_preempted_workloads_total{preempting_cluster_queue=\"cq-b\""), std::string::npos);
  EXPECT_NE(text.find("kueue_cluster_queue_status{cluster_queue=\"cq-b\""), std::string::npos);
  // LocalQueue and cohort series stay (they belong to other objects).
  EXPECT_NE(text.find("kueue_local_queue_admitted_workloads_total{name=\"lq-a\""), std::string::npos);
  EXPECT_NE(text.find("kueue_cohort_info{cohort=\"child\""), std::string::npos);
}

TEST(KueueMetricsRemoval, DeletedLocalQueueDisappears) {
  KueueMetrics metrics(all_options());
  report_everything(metrics);
  metrics.admitted({"cq-a", "other-team", "lq-a", "high"}, 1);  // same name, other namespace
  metrics.remove_local_queue({"team", "lq-a"});
  const std::string text = metrics.render();
  EXPECT_EQ(text.find("namespace=\"team\""), std::string::npos) << text;
  EXPECT_NE(text.find("kueue_local_queue_admitted_workloads_total{name=\"lq-a\",namespace=\"other-team\""),
            std::string::npos);
  EXPECT_NE(text.find("kueue_admitted_workloads_total{cluster_queue=\"cq-a\""), std::string::npos);
}

TEST(KueueMetricsRemoval, DeletedCohortDisappears) {
  KueueMetrics metrics(all_options());
  report_everything(metrics);
  metrics.remove_cohort("child");
  const std::string text = metrics.render();
  for (const std::string& line : lines_of(text)) {
    if (line.starts_with("kueue_cohort_")) {
      EXPECT_EQ(line.find("cohort=\"child\""), std::string::npos) << line;
    }
  }
  // The root's subtree counter and the ClusterQueue's own series stay.
  EXPECT_NE(text.find("kueue_cohort_subtree_admitted_workloads_total{cohort=\"root\""), std::string::npos);
  EXPECT_NE(text.find("kueue_cluster_queue_info{cluster_queue=\"cq-a\",parent_cohort=\"child\""), std::string::npos);
}

TEST(KueueMetricsRoles, ReplicaRoleChangesEverySeries) {
  KueueMetricsOptions options;
  options.replica_role = "follower";
  KueueMetrics metrics(options);
  metrics.admission_attempt(AdmissionResult::Inadmissible, 0.001);
  metrics.set_build_info({"v1", "c", "d", "g", "gc", "linux/amd64"});
  EXPECT_NE(metrics.render().find("kueue_admission_attempts_total{replica_role=\"follower\",result=\"inadmissible\"} 1"),
            std::string::npos);
  metrics.set_replica_role(values::kReplicaRoleLeader);
  const std::string text = metrics.render();
  EXPECT_EQ(text.find("follower"), std::string::npos);
  EXPECT_NE(text.find("kueue_admission_attempts_total{replica_role=\"leader\",result=\"inadmissible\"} 1"),
            std::string::npos);
  EXPECT_NE(text.find("kueue_build_info{build_date=\"d\",compiler=\"gc\",git_commit=\"c\",git_version=\"v1\","
                      "go_version=\"g\",platform=\"linux/amd64\"} 1"),
            std::string::npos);
}

}  // namespace
}  // namespace kueuepp::metrics
