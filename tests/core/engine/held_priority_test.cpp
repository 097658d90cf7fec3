// The preemption search skips the preemptor's own queue when it holds nothing of lower
// priority (HeldWorkloads' lowest priority). That shortcut must follow the priorities of
// workloads already holding quota when they change.

#include <gtest/gtest.h>

#include "core/engine/engine.hpp"
#include "core/engine/held_workloads.hpp"
#include "tests/core/engine/test_objects.hpp"

namespace kueuepp::core {
namespace {

TEST(HeldWorkloads, LowestPriorityFollowsTheSetAndReportedChanges) {
  HeldWorkloads held;
  int priorities[3] = {100, 50, 70};
  auto priority_of = [&](int id) { return static_cast<std::int64_t>(priorities[id]); };
  EXPECT_FALSE(held.min_priority(priority_of));
  held.insert(0);
  held.insert(2);
  EXPECT_EQ(held.min_priority(priority_of), 70);
  held.insert(1);
  EXPECT_EQ(held.min_priority(priority_of), 50);
  held.erase(1);
  EXPECT_EQ(held.min_priority(priority_of), 70);
  priorities[0] = 10;
  EXPECT_EQ(held.min_priority(priority_of), 70);  // not told yet: the cached answer
  held.priority_changed();
  EXPECT_EQ(held.min_priority(priority_of), 10);
}

using testing::cpu_workload;

/// A 4-CPU queue "cq" that preempts LowerPriority within itself.
ClusterQueue setup(Engine& e) {
  testing::apply_one_queue(e, 4);
  ClusterQueue cq = testing::cpu_cluster_queue("cq", {testing::cpu_quota("default-flavor", 4)});
  cq.preemption.within_cluster_queue = PreemptionPolicy::LowerPriority;
  e.apply(cq);
  return cq;
}

/// Admits `holder` (4 CPUs), then finds nothing to preempt for an equal-priority
/// preemptor, which is left parked.
void admit_holder_then_park_preemptor(Engine& e, const Workload& holder) {
  ASSERT_TRUE(e.apply(holder));
  e.run_cycle(time_from_seconds(2000));
  ASSERT_EQ(e.take_decisions().admissions.size(), 1u);
  ASSERT_TRUE(e.apply(cpu_workload("preemptor", 4, 100, 1001, "lq")));
  e.run_cycle(time_from_seconds(2001));
  EXPECT_TRUE(e.take_decisions().evictions.empty());  // equal priority: nothing to preempt
}

/// A priority change of a running workload requeues nothing (as in Kueue): more quota
/// (still too little for both) makes the parked preemptor try again, and the holder,
/// now of lower priority, must be its victim.
void expect_holder_preempted(Engine& e, ClusterQueue cq) {
  cq.resource_groups[0].flavors[0].resources[0].nominal = Quantity::from_units(5);
  e.apply(cq);
  e.run_cycle(time_from_seconds(2002));
  auto d = e.take_decisions();
  ASSERT_EQ(d.evictions.size(), 1u);
  EXPECT_EQ(d.evictions[0].workload, "default/holder");
}

TEST(EnginePreemption, AHeldWorkloadWhosePriorityDropsBecomesAVictim) {
  Engine e;
  ClusterQueue cq = setup(e);
  admit_holder_then_park_preemptor(e, cpu_workload("holder", 4, 100, 1000, "lq"));
  ASSERT_TRUE(e.apply(cpu_workload("holder", 4, 10, 1000, "lq")));  // its object changed
  expect_holder_preempted(e, cq);
}

TEST(EnginePreemption, AHeldWorkloadWhosePriorityClassDropsBecomesAVictim) {
  Engine e;
  ClusterQueue cq = setup(e);
  e.apply(WorkloadPriorityClass{"team", 100});
  Workload holder = cpu_workload("holder", 4, 100, 1000, "lq");
  holder.priority.reset();
  holder.priority_class_ref = PriorityClassRef{PriorityClassRef::Kind::WorkloadPriorityClass, "team"};
  admit_holder_then_park_preemptor(e, holder);
  e.apply(WorkloadPriorityClass{"team", 10});  // the class's value drops
  expect_holder_preempted(e, cq);
}

/// Which of two 4-CPU workloads a 4-CPU queue admits first: "low" has priority 5 and the
/// priority-boost annotation's 10, "high" has priority 10 and was created earlier.
std::string first_admitted(bool priority_boost) {
  Engine e;
  EngineConfig config;
  config.priority_boost = priority_boost;
  e.set_config(config);
  setup(e);
  Workload low = cpu_workload("low", 4, 5, 1001, "lq");
  low.priority_boost = 10;
  EXPECT_TRUE(e.apply(cpu_workload("high", 4, 10, 1000, "lq")));
  EXPECT_TRUE(e.apply(low));
  e.run_cycle(time_from_seconds(2000));
  auto d = e.take_decisions();
  return d.admissions.size() == 1 ? d.admissions[0].workload : "";
}

TEST(EnginePriority, ThePriorityBoostCountsOnlyWithItsFeatureGate) {
  EXPECT_EQ(first_admitted(false), "default/high") << "Kueue's PriorityBoost gate is off by default";
  EXPECT_EQ(first_admitted(true), "default/low");
}

}  // namespace
}  // namespace kueuepp::core
