// What a cycle's summary promises the tree actor, which ends a round on it: a cycle that
// changed nothing and left no flavors to try is repeated exactly by a next cycle at the
// same time, and one that left flavors to try is not.

#include <gtest/gtest.h>

#include "core/engine/engine.hpp"
#include "tests/core/engine/test_objects.hpp"

namespace kueuepp::core {
namespace {

const Time kNow = time_from_seconds(5000);

using testing::cpu_cluster_queue;
using testing::cpu_quota;

/// One ClusterQueue "cq" over the given flavors (4 CPU each), preempting lower
/// priorities within itself, with LocalQueue default/lq.
void setup(Engine& e, const std::vector<std::string>& flavors, FungibilityPolicy when_can_preempt) {
  std::vector<FlavorQuotas> quotas;
  for (const auto& f : flavors) {
    e.apply(ResourceFlavor{f, {}, {}, {}, {}});
    quotas.push_back(cpu_quota(f, 4));
  }
  ClusterQueue cq = cpu_cluster_queue("cq", quotas);
  cq.preemption.within_cluster_queue = PreemptionPolicy::LowerPriority;
  cq.flavor_fungibility.when_can_preempt = when_can_preempt;
  e.apply(cq);
  e.apply(LocalQueue{"default", "lq", "cq", StopPolicy::None, 1.0});
  e.apply(testing::default_namespace());
}

Workload workload(const std::string& name, int cpu, std::int32_t priority, int created) {
  return testing::cpu_workload(name, cpu, priority, created, "lq");
}

TEST(EngineCycleSummary, AHeadWaitingForItsPreemptionsRepeatsTheCycleExactly) {
  Engine e;
  setup(e, {"f1"}, FungibilityPolicy::TryNextFlavor);
  ASSERT_TRUE(e.apply(workload("low", 4, 1, 100)));
  e.run_cycle(kNow);
  ASSERT_EQ(e.take_decisions().admissions.size(), 1u);

  ASSERT_TRUE(e.apply(workload("high", 4, 10, 200)));
  CycleSummary preempting = e.run_cycle(kNow);
  EXPECT_EQ(preempting.preempted, 1u);
  EXPECT_TRUE(preempting.changed);
  ASSERT_EQ(e.take_decisions().evictions.size(), 1u);

  // "low" is being evicted (not completed): "high" waits for it, requeued at once.
  CycleSummary waiting = e.run_cycle(kNow);
  EXPECT_EQ(waiting.heads, 1u);
  EXPECT_FALSE(waiting.changed);
  EXPECT_FALSE(waiting.untried_flavors);
  (void)e.take_decisions();  // its pending explanation
  for (int i = 0; i < 3; ++i) {
    CycleSummary again = e.run_cycle(kNow);
    EXPECT_EQ(again.heads, waiting.heads);
    EXPECT_FALSE(again.changed);
    EXPECT_FALSE(again.untried_flavors);
    EXPECT_TRUE(e.take_decisions().empty()) << "a repeated cycle decided something";
  }

  // The event that changes things: the eviction completes, and the next cycle admits.
  ASSERT_TRUE(e.complete_eviction("default/low"));
  CycleSummary admitting = e.run_cycle(kNow);
  EXPECT_EQ(admitting.admitted, 1u);
}

TEST(EngineCycleSummary, AHeadWithFlavorsLeftToTrySaysSoAndTheNextCycleTriesThem) {
  // Cohort "co": "a" has 4 CPU on f1 and on f2, "b" only 4 on f2. Both heads are nominated
  // against the cycle's starting state: "a" fits f1 in its own quota, "b" can borrow f1
  // from "a", and whenCanBorrow MayStopSearch stops its scan there. "a" goes first (it
  // does not borrow) and takes f1, so "b" no longer fits: its scan stopped at f1 with f2
  // untried, the cycle says so, and the next cycle resumes at f2 and admits "b" there.
  Engine e;
  for (const char* f : {"f1", "f2"}) e.apply(ResourceFlavor{f, {}, {}, {}, {}});
  auto queue = [&](const std::string& name, int f1_units) {
    ClusterQueue cq = cpu_cluster_queue(name, {cpu_quota("f1", f1_units), cpu_quota("f2", 4)});
    cq.cohort = "co";
    e.apply(cq);
    e.apply(LocalQueue{"default", "lq-" + name, name, StopPolicy::None, 1.0});
  };
  queue("a", 4);
  queue("b", 0);
  e.apply(testing::default_namespace());
  Workload a = workload("wa", 4, 0, 100);
  a.queue_name = "lq-a";
  Workload b = workload("wb", 4, 0, 100);
  b.queue_name = "lq-b";
  ASSERT_TRUE(e.apply(a));
  ASSERT_TRUE(e.apply(b));

  CycleSummary first = e.run_cycle(kNow);
  EXPECT_EQ(first.admitted, 1u);
  EXPECT_TRUE(first.untried_flavors);
  Decisions d1 = e.take_decisions();
  ASSERT_EQ(d1.admissions.size(), 1u);
  EXPECT_EQ(d1.admissions[0].workload, "default/wa");

  CycleSummary second = e.run_cycle(kNow);
  EXPECT_EQ(second.admitted, 1u);
  EXPECT_FALSE(second.untried_flavors);
  Decisions d2 = e.take_decisions();
  ASSERT_EQ(d2.admissions.size(), 1u);
  EXPECT_EQ(d2.admissions[0].workload, "default/wb");
  EXPECT_EQ(d2.admissions[0].admission.pod_set_assignments[0].flavors.at("cpu"), "f2");
}

TEST(EngineCycleSummary, IssuedPreemptionsRestartTheScanSoNoFlavorIsLeftUntried) {
  // Kueue forgets the scan once it issued preemptions ("the next attempt should try all
  // the flavors"): the cycle that preempts leaves nothing untried, and the head then
  // waits for its victim on f1 even though f2 is free.
  Engine e;
  setup(e, {"f1", "f2"}, FungibilityPolicy::MayStopSearch);
  ASSERT_TRUE(e.apply(workload("low", 4, 1, 100)));
  e.run_cycle(kNow);
  ASSERT_EQ(e.take_decisions().admissions.size(), 1u);

  ASSERT_TRUE(e.apply(workload("next", 4, 10, 200)));
  CycleSummary first = e.run_cycle(kNow);
  EXPECT_EQ(first.admitted, 0u);
  EXPECT_EQ(first.preempted, 1u);
  EXPECT_FALSE(first.untried_flavors);
}

}  // namespace
}  // namespace kueuepp::core
