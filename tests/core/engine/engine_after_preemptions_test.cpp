// Which admissions fit only in the quota of victims claimed in their cycle: the engine, as
// Kueue's scheduler, counts a claimed victim's quota free for the entries after its
// preemptor, while the victim holds it until its Job has stopped. Those admissions are
// marked (AdmissionDecision::after_preemptions) so that a writer lands them only after
// the victims' evictions; every other admission fits with the victims still counted.

#include <gtest/gtest.h>

#include <string>

#include "core/engine/engine.hpp"
#include "tests/core/engine/test_objects.hpp"

namespace kueuepp::core {
namespace {

const Time kNow = time_from_seconds(5000);

using testing::cpu_cluster_queue;
using testing::cpu_quota;
using testing::cpu_workload;

/// Cohort "co": "a" has 2 CPU and may not borrow, preempting lower priorities within
/// itself; "b" has none and borrows; "spare" lends `spare_cpus`. "low" (2 CPU) holds
/// all of "a".
void setup(Engine& e, int spare_cpus) {
  e.apply(ResourceFlavor{"default", {}, {}, {}, {}});
  FlavorQuotas a_quota = cpu_quota("default", 2);
  a_quota.resources[0].borrowing_limit = Quantity::from_units(0);
  ClusterQueue a = cpu_cluster_queue("a", {a_quota});
  a.cohort = "co";
  a.preemption.within_cluster_queue = PreemptionPolicy::LowerPriority;
  ClusterQueue b = cpu_cluster_queue("b", {cpu_quota("default", 0)});
  b.cohort = "co";
  ClusterQueue spare = cpu_cluster_queue("spare", {cpu_quota("default", spare_cpus)});
  spare.cohort = "co";
  for (const auto& cq : {a, b, spare}) e.apply(cq);
  e.apply(LocalQueue{"default", "lq-a", "a", StopPolicy::None, 1.0});
  e.apply(LocalQueue{"default", "lq-b", "b", StopPolicy::None, 1.0});
  e.apply(testing::default_namespace());
  ASSERT_TRUE(e.apply(cpu_workload("low", 2, 0, 100, "lq-a")));
  e.run_cycle(kNow);
  ASSERT_EQ(e.take_decisions().admissions.size(), 1u);
}

/// "high" (1 CPU, priority 10) preempts "low" in "a"; in the same cycle "other" (1 CPU)
/// borrows for "b", nominated while the cohort had room for it.
Decisions preempting_cycle(Engine& e) {
  EXPECT_TRUE(e.apply(cpu_workload("high", 1, 10, 200, "lq-a")));
  EXPECT_TRUE(e.apply(cpu_workload("other", 1, 0, 300, "lq-b")));
  e.run_cycle(kNow);
  return e.take_decisions();
}

struct AfterPreemptionsCase {
  std::string name;
  int spare_cpus = 0;
  bool after_preemptions = false;
};

class EngineAfterPreemptions : public ::testing::TestWithParam<AfterPreemptionsCase> {};

TEST_P(EngineAfterPreemptions, MarksAnAdmissionThatFitsOnlyInAClaimedVictimsQuota) {
  const AfterPreemptionsCase& c = GetParam();
  Engine e;
  setup(e, c.spare_cpus);
  Decisions d = preempting_cycle(e);
  ASSERT_EQ(d.evictions.size(), 1u);
  EXPECT_EQ(d.evictions[0].workload, "default/low");
  ASSERT_EQ(d.admissions.size(), 1u);
  EXPECT_EQ(d.admissions[0].workload, "default/other");
  EXPECT_EQ(d.admissions[0].after_preemptions, c.after_preemptions);
}

INSTANTIATE_TEST_SUITE_P(
    Engine, EngineAfterPreemptions,
    ::testing::Values(
        // 3 CPU: "low" 2 + "high" 1 fill it; "other" fits only with "low" taken out.
        AfterPreemptionsCase{"InAVictimsQuota", 1, true},
        // 4 CPU: "low" 2 + "high" 1 + "other" 1 fit together.
        AfterPreemptionsCase{"BesideTheVictims", 2, false}),
    [](const ::testing::TestParamInfo<AfterPreemptionsCase>& param) { return param.param.name; });

TEST(EngineAfterPreemptionsWithout, AnAdmissionInACycleWithoutPreemptionsIsNotMarked) {
  Engine e;
  setup(e, 1);
  ASSERT_TRUE(e.apply(cpu_workload("other", 1, 0, 300, "lq-b")));
  e.run_cycle(kNow);
  Decisions d = e.take_decisions();
  EXPECT_TRUE(d.evictions.empty());
  ASSERT_EQ(d.admissions.size(), 1u);
  EXPECT_FALSE(d.admissions[0].after_preemptions);
}

}  // namespace
}  // namespace kueuepp::core
