// The preemption search skips the preemptor's own queue when it holds nothing of lower
// priority (HeldWorkloads' lowest priority). That shortcut must follow the priorities of
// workloads already holding quota when they change.

#include <gtest/gtest.h>

#include <string>

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

Workload workload(const std::string& name, int priority, int cpu, int creation) {
  Workload wl;
  wl.ns = "default";
  wl.name = name;
  wl.uid = "uid-" + name;
  wl.creation = time_from_seconds(creation);
  wl.queue_name = "user-queue";
  wl.priority = priority;
  PodSet ps;
  ps.name = "main";
  ps.count = 1;
  ps.per_pod_requests["cpu"] = Quantity::from_units(cpu);
  wl.pod_sets.push_back(ps);
  return wl;
}

/// A 4-CPU queue preempting LowerPriority within itself.
ClusterQueue setup(Engine& e, int cpus = 4) {
  e.apply(ResourceFlavor{"default-flavor", {}, {}, {}, {}});
  ClusterQueue cq = testing::cpu_cluster_queue("cluster-queue", {testing::cpu_quota("default-flavor", cpus)});
  cq.preemption.within_cluster_queue = PreemptionPolicy::LowerPriority;
  e.apply(cq);
  LocalQueue lq;
  lq.ns = "default";
  lq.name = "user-queue";
  lq.cluster_queue = "cluster-queue";
  e.apply(lq);
  Namespace ns;
  ns.name = "default";
  e.apply(ns);
  return cq;
}

TEST(EnginePreemption, AHeldWorkloadWhosePriorityDropsBecomesAVictim) {
  Engine e;
  ClusterQueue cq = setup(e);
  ASSERT_TRUE(e.apply(workload("holder", 100, 4, 1000)));
  e.run_cycle(time_from_seconds(2000));
  ASSERT_EQ(e.take_decisions().admissions.size(), 1u);
  ASSERT_TRUE(e.apply(workload("preemptor", 100, 4, 1001)));
  e.run_cycle(time_from_seconds(2001));
  EXPECT_TRUE(e.take_decisions().evictions.empty());  // equal priority: nothing to preempt

  // The holder's priority drops (its object changed): now it is of lower priority. A
  // priority change of a running workload requeues nothing (as in Kueue); more quota
  // (still too little for both) makes the parked preemptor try again.
  ASSERT_TRUE(e.apply(workload("holder", 10, 4, 1000)));
  cq.resource_groups[0].flavors[0].resources[0].nominal = Quantity::from_units(5);
  e.apply(cq);
  e.run_cycle(time_from_seconds(2002));
  auto d = e.take_decisions();
  ASSERT_EQ(d.evictions.size(), 1u);
  EXPECT_EQ(d.evictions[0].workload, "default/holder");
}

TEST(EnginePreemption, AHeldWorkloadWhosePriorityClassDropsBecomesAVictim) {
  Engine e;
  ClusterQueue cq = setup(e);
  e.apply(WorkloadPriorityClass{"team", 100});
  Workload holder = workload("holder", 100, 4, 1000);
  holder.priority.reset();
  holder.priority_class_ref = PriorityClassRef{PriorityClassRef::Kind::WorkloadPriorityClass, "team"};
  ASSERT_TRUE(e.apply(holder));
  e.run_cycle(time_from_seconds(2000));
  ASSERT_EQ(e.take_decisions().admissions.size(), 1u);
  ASSERT_TRUE(e.apply(workload("preemptor", 100, 4, 1001)));
  e.run_cycle(time_from_seconds(2001));
  EXPECT_TRUE(e.take_decisions().evictions.empty());

  e.apply(WorkloadPriorityClass{"team", 10});  // the class's value drops
  cq.resource_groups[0].flavors[0].resources[0].nominal = Quantity::from_units(5);
  e.apply(cq);
  e.run_cycle(time_from_seconds(2002));
  auto d = e.take_decisions();
  ASSERT_EQ(d.evictions.size(), 1u);
  EXPECT_EQ(d.evictions[0].workload, "default/holder");
}

}  // namespace
}  // namespace kueuepp::core
