#include "cmd/perf/generator_config.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

namespace kueuepp::cmd::perf {
namespace {

constexpr const char* kBaseline = R"(
# Kueue's baseline shape
cohorts:
  - className: cohort
    count: 5
    queuesSets:
    - className: cq
      count: 6
      nominalQuota: 20
      borrowingLimit: 100
      reclaimWithinCohort: Any
      withinClusterQueue: LowerPriority
      workloadsSets:
      - count: 350
        creationIntervalMs: 100
        workloads:
        - className: small
          runtimeMs: 200
          priority: 50
          request: 1
      - count: 100
        creationIntervalMs: 500
        workloads:
        - className: medium
          runtimeMs: 500
          priority: 100
          request: 5
      - count: 50
        creationIntervalMs: 1200
        workloads:
        - className: large
          runtimeMs: 1000
          priority: 200
          request: "20"
)";

TEST(GeneratorConfig, ParsesTheBaselineShape) {
  auto cfg = parse_generator_config(kBaseline);
  ASSERT_TRUE(cfg) << cfg.error().message;
  ASSERT_EQ(cfg->cohorts.size(), 1u);
  const CohortSet& c = cfg->cohorts[0];
  EXPECT_EQ(c.class_name, "cohort");
  EXPECT_EQ(c.count, 5);
  ASSERT_EQ(c.queues_sets.size(), 1u);
  const QueuesSet& q = c.queues_sets[0];
  EXPECT_EQ(q.class_name, "cq");
  EXPECT_EQ(q.count, 6);
  EXPECT_EQ(q.nominal_quota.milli(), 20'000);
  ASSERT_TRUE(q.borrowing_limit);
  EXPECT_EQ(q.borrowing_limit->milli(), 100'000);
  EXPECT_EQ(q.reclaim_within_cohort, "Any");
  EXPECT_EQ(q.within_cluster_queue, "LowerPriority");
  ASSERT_EQ(q.workloads_sets.size(), 3u);
  EXPECT_EQ(q.workloads_sets[0].count, 350);
  EXPECT_EQ(q.workloads_sets[0].creation_interval_ms, 100);
  const WorkloadTemplate& small = q.workloads_sets[0].workloads[0];
  EXPECT_EQ(small.class_name, "small");
  EXPECT_EQ(small.runtime_ms, 200);
  EXPECT_EQ(small.priority, 50);
  EXPECT_EQ(small.request.milli(), 1000);
  EXPECT_EQ(q.workloads_sets[2].workloads[0].request.milli(), 20'000);  // quoted quantity
  EXPECT_EQ(q.workloads_per_queue(), 500);
  EXPECT_EQ(cfg->total_cluster_queues(), 30);
  EXPECT_EQ(cfg->total_workloads(), 15'000);
  EXPECT_EQ(cfg->resource_flavor, "rf");
}

TEST(GeneratorConfig, AcceptsDigitSeparatorsMilliQuantitiesAndNoBorrowingLimit) {
  auto cfg = parse_generator_config(R"(
cohorts:
- className: c
  count: 1_0
  queuesSets:
  - className: q
    count: 2
    nominalQuota: 1500m
    workloadsSets:
    - count: 3
      workloads:
      - {className: w, request: 250m}
)");
  ASSERT_TRUE(cfg) << cfg.error().message;
  EXPECT_EQ(cfg->cohorts[0].count, 10);
  const QueuesSet& q = cfg->cohorts[0].queues_sets[0];
  EXPECT_EQ(q.nominal_quota.milli(), 1500);
  EXPECT_FALSE(q.borrowing_limit);
  EXPECT_EQ(q.reclaim_within_cohort, "");
  EXPECT_EQ(q.workloads_sets[0].creation_interval_ms, 0);
  EXPECT_EQ(q.workloads_sets[0].workloads[0].request.milli(), 250);
  EXPECT_EQ(q.workloads_sets[0].workloads[0].runtime_ms, 0);
  EXPECT_EQ(cfg->total_workloads(), 10 * 2 * 3);
}

/// The error of parsing `yaml`, which must fail.
std::string error_of(const std::string& yaml) {
  auto cfg = parse_generator_config(yaml, "gen.yaml");
  if (cfg) return "(parsed)";
  return cfg.error().message;
}

TEST(GeneratorConfig, RejectsBadInputNamingTheField) {
  EXPECT_EQ(error_of("{}"), "gen.yaml: config must contain at least one cohort (cohorts: [...])");
  EXPECT_EQ(error_of("cohorts: []"), "gen.yaml: config must contain at least one cohort");
  EXPECT_EQ(error_of("cohorts: 3"), "gen.yaml: cohorts: expected a list, got a number");
  EXPECT_EQ(error_of("cohorts:\n- className: c\n  count: 1\n  queueSets: []\n"),
            "gen.yaml: cohorts[0].queueSets: unknown field (known fields: className, count, queuesSets)");
  EXPECT_EQ(error_of("cohorts:\n- className: c\n  count: -1\n"), "gen.yaml: cohorts[0].count: must not be negative");
  EXPECT_EQ(error_of("cohorts:\n- className: c\n  count: many\n"),
            "gen.yaml: cohorts[0].count: expected an integer, got \"many\"");
  EXPECT_EQ(error_of("cohorts:\n- count: 1\n"), "gen.yaml: cohorts[0].className: required");
  EXPECT_EQ(error_of("cohorts:\n- className: Big_Class\n  count: 1\n"),
            "gen.yaml: cohorts[0].className: \"Big_Class\" is not a valid class name (lowercase letters, digits and '-', "
            "at most 40 characters)");
  const std::string queue = "cohorts:\n- className: c\n  count: 1\n  queuesSets:\n  - className: q\n    count: 1\n";
  EXPECT_EQ(error_of(queue), "gen.yaml: cohorts[0].queuesSets[0].nominalQuota: required");
  EXPECT_NE(error_of(queue + "    nominalQuota: lots\n").find("cohorts[0].queuesSets[0].nominalQuota: "), std::string::npos);
  EXPECT_EQ(error_of(queue + "    nominalQuota: 1\n    reclaimWithinCohort: Sometimes\n"),
            "gen.yaml: cohorts[0].queuesSets[0].reclaimWithinCohort: \"Sometimes\" is not one of Never, LowerPriority, Any");
  const std::string wl = queue + "    nominalQuota: 1\n    workloadsSets:\n    - count: 1\n      workloads:\n";
  EXPECT_EQ(error_of(wl + "      - className: w\n"),
            "gen.yaml: cohorts[0].queuesSets[0].workloadsSets[0].workloads[0].request: required (cpu per pod)");
  EXPECT_EQ(error_of(wl + "      - {className: w, request: 0}\n"),
            "gen.yaml: cohorts[0].queuesSets[0].workloadsSets[0].workloads[0].request: must be positive");
  EXPECT_EQ(error_of(wl + "      - {className: w, request: 1, podCount: 2}\n"),
            "gen.yaml: cohorts[0].queuesSets[0].workloadsSets[0].workloads[0].podCount: not supported by kueuepp perf "
            "(TAS and DRA configurations are not implemented)");
  EXPECT_EQ(error_of("topology: {name: t}\ncohorts: []\n"),
            "gen.yaml: topology: not supported by kueuepp perf (TAS and DRA configurations are not implemented)");
  EXPECT_NE(error_of("cohorts: [\n").find("gen.yaml: "), std::string::npos);  // YAML syntax error
}

TEST(GeneratorConfig, RejectsClusterQueueNamesTooLongForNamespaces) {
  std::string long_class(40, 'a');
  std::string yaml = "cohorts:\n- className: " + long_class + "\n  count: 1\n  queuesSets:\n  - className: " + long_class +
                     "\n    count: 1\n    nominalQuota: 1\n";
  EXPECT_NE(error_of(yaml).find("exceed 63 characters"), std::string::npos);
}

TEST(GeneratorConfig, ParsesTheSharedConfigsWhenPresent) {
  const char* src = std::getenv("KUEUEPP_SOURCE_DIR");
  std::filesystem::path root = src ? src : KUEUEPP_SOURCE_DIR;
  for (const char* name : {"kueue-baseline", "kueue-large-scale"}) {
    auto path = root / ".." / "shared" / "perf" / name / "generator.yaml";
    if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not present";
    auto cfg = load_generator_config(path.string());
    ASSERT_TRUE(cfg) << cfg.error().message;
    EXPECT_EQ(cfg->total_workloads(), std::string(name) == "kueue-baseline" ? 15'000 : 50'000);
  }
}

}  // namespace
}  // namespace kueuepp::cmd::perf
