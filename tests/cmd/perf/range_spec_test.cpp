#include "cmd/perf/range_spec.hpp"

#include <gtest/gtest.h>

namespace kueuepp::cmd::perf {
namespace {

constexpr const char* kBaselineSpec = R"(
cmd:
  # Average value 351116.4 (+/- 0.9%), setting at +20%
  maxWallMs: 425_000
clusterQueueClassesMinUsage:
  cq: 50 #%
wlClassesMaxAvgTimeToAdmissionMs:
  large: 23_000
  medium: 90_000
  small: 260_000
)";

TEST(RangeSpec, ParsesKueuesBaselineFile) {
  auto spec = parse_range_spec(kBaselineSpec);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->max_wall_ms, 425'000);
  EXPECT_FALSE(spec->max_mcpu);
  EXPECT_FALSE(spec->max_rss_kib);
  EXPECT_EQ(spec->cluster_queue_classes_min_usage.at("cq"), 50.0);
  EXPECT_EQ(spec->workload_classes_max_avg_time_to_admission_ms.at("large"), 23'000);
  EXPECT_EQ(spec->workload_classes_max_avg_time_to_admission_ms.at("small"), 260'000);
}

TEST(RangeSpec, ParsesFractionalUsage) {
  auto spec = parse_range_spec("clusterQueueClassesMinUsage:\n  cq: 31.6 #%\n");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_DOUBLE_EQ(spec->cluster_queue_classes_min_usage.at("cq"), 31.6);
}

TEST(RangeSpec, IsStrict) {
  auto spec = parse_range_spec("cmd:\n  maxWall: 3\n", "r.yaml");
  ASSERT_FALSE(spec);
  EXPECT_EQ(spec.error().message, "r.yaml: cmd.maxWall: unknown field (known fields: maxWallMs, mCPU, maxrss)");
  auto bad = parse_range_spec("wlClassesMaxAvgTimeToAdmissionMs:\n  large: soon\n", "r.yaml");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "r.yaml: wlClassesMaxAvgTimeToAdmissionMs.large: expected an integer, got \"soon\"");
}

TEST(RangeSpec, ChecksEveryThresholdAsKueuesChecker) {
  auto spec = parse_range_spec(kBaselineSpec);
  ASSERT_TRUE(spec);
  MeasuredRun run;
  run.wall_ms = 425'001;
  ClusterQueueClassSummary cq;
  cq.queues = 1;
  cq.nominal_quota = 1000;
  cq.first_event = 0;
  cq.last_event = 100;
  cq.cpu_used = 50'000;  // exactly 50 %
  run.summary.cluster_queue_classes["cq"] = cq;
  WorkloadClassSummary large;
  large.count = 1;
  large.average_time_to_admission_ms = 23'000;  // at the limit: passes
  run.summary.workload_classes["large"] = large;
  WorkloadClassSummary small;
  small.count = 1;
  small.average_time_to_admission_ms = 260'001;
  run.summary.workload_classes["small"] = small;
  WorkloadClassSummary extra;
  run.summary.workload_classes["tiny"] = extra;

  auto checks = check_range_spec(*spec, run);
  std::map<std::string, bool> result;
  for (const auto& c : checks) result[c.name] = c.pass;
  EXPECT_FALSE(result.at("cmd.maxWallMs"));
  EXPECT_TRUE(result.at("clusterQueueClassesMinUsage.cq"));
  EXPECT_TRUE(result.at("wlClassesMaxAvgTimeToAdmissionMs.large"));
  EXPECT_FALSE(result.at("wlClassesMaxAvgTimeToAdmissionMs.small"));
  EXPECT_FALSE(result.at("wlClassesMaxAvgTimeToAdmissionMs.tiny"));    // no threshold for it
  EXPECT_FALSE(result.at("wlClassesMaxAvgTimeToAdmissionMs.medium"));  // never recorded
  EXPECT_EQ(checks.size(), 6u);

  run.wall_ms = 425'000;
  for (const auto& c : check_range_spec(*spec, run)) {
    if (c.name == "cmd.maxWallMs") {
      EXPECT_TRUE(c.pass);
      EXPECT_EQ(c.actual, "425000 ms");
      EXPECT_EQ(c.limit, "<= 425000 ms");
    }
  }
}

TEST(RangeSpec, ChecksControllerCpuAndMemoryWhenAsked) {
  auto spec = parse_range_spec("cmd:\n  mCPU: 150\n  maxrss: 102400\n");
  ASSERT_TRUE(spec);
  MeasuredRun run;
  run.controller_mcpu = 151;
  run.controller_max_rss_kib = 102400;
  auto checks = check_range_spec(*spec, run);
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(checks[0].name, "cmd.mCPU");
  EXPECT_FALSE(checks[0].pass);
  EXPECT_EQ(checks[1].name, "cmd.maxrss");
  EXPECT_TRUE(checks[1].pass);
  run.controller_mcpu.reset();
  EXPECT_FALSE(check_range_spec(*spec, run)[0].pass);  // not measured: cannot pass
}

}  // namespace
}  // namespace kueuepp::cmd::perf
