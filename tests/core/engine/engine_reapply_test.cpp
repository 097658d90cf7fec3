// A controller applies the same Workload many times (every watch echo of a status
// write). The engine must keep one record per workload however often it is applied and
// however long its key is.

#include <gtest/gtest.h>

#include <set>

#include "core/engine/engine.hpp"
#include "tests/core/engine/test_objects.hpp"

namespace kueuepp::core {
namespace {

ClusterQueue cluster_queue(int cpu_units) {
  return testing::cpu_cluster_queue("cluster-queue", {testing::cpu_quota("default-flavor", cpu_units)});
}

void setup(Engine& e) {
  e.apply(ResourceFlavor{"default-flavor", {}, {}, {}, {}});
  e.apply(cluster_queue(9));
  LocalQueue lq;
  lq.ns = "default";
  lq.name = "user-queue";
  lq.cluster_queue = "cluster-queue";
  e.apply(lq);
  Namespace ns;
  ns.name = "default";
  e.apply(ns);
}

Workload job(int i) {
  Workload wl;
  wl.ns = "default";
  // Longer than any small-string buffer: the key lives on the heap.
  wl.name = "job-a-rather-long-sample-job-name-" + std::to_string(i) + "-9decc";
  wl.uid = "uid-" + std::to_string(i);
  wl.creation = time_from_seconds(1000 + i);
  wl.queue_name = "user-queue";
  PodSet ps;
  ps.name = "main";
  ps.count = 3;
  ps.per_pod_requests["cpu"] = Quantity::from_units(1);
  wl.pod_sets.push_back(ps);
  return wl;
}

TEST(EngineReapply, ReappliedWorkloadsKeepOneRecordAndQuotaHolds) {
  Engine e;
  setup(e);
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(e.apply(job(i)));
  // Watch echoes: every workload again, several times, before and after a cycle.
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 6; ++i) ASSERT_TRUE(e.apply(job(i)));
  }
  for (int c = 0; c < 50; ++c) {
    e.run_cycle(time_from_seconds(2000 + c));
    for (int i = 0; i < 6; ++i) ASSERT_TRUE(e.apply(job(i)));
  }
  EXPECT_EQ(e.workloads().size(), 6u);
  auto view = e.cluster_queue("cluster-queue");
  ASSERT_TRUE(view);
  EXPECT_EQ(view->reserving, 3u);  // 9 CPU of quota, 3 CPU each
  EXPECT_EQ(view->pending, 3u);
  auto order = e.pending_in_order("cluster-queue");
  EXPECT_EQ(order.size(), 3u);
  std::set<std::string> distinct(order.begin(), order.end());
  EXPECT_EQ(distinct.size(), order.size());
}

TEST(EngineReapply, AnUnchangedQueueAppliedAgainLeavesParkedWorkloadsParkedAndAChangedOneTakesEffect) {
  // Our own ClusterQueue and LocalQueue status writes come back as unchanged specs: as in
  // Kueue (requeue only when the spec changed), nothing is looked at again; a changed
  // spec (more quota) takes effect.
  Engine e;
  setup(e);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(e.apply(job(i)));
  for (int c = 0; c < 4; ++c) e.run_cycle(time_from_seconds(2000 + c));
  auto view = e.cluster_queue("cluster-queue");
  ASSERT_TRUE(view);
  ASSERT_EQ(view->reserving, 3u);
  EXPECT_EQ(e.run_cycle(time_from_seconds(2010)).heads, 0u) << "the fourth stays parked";

  e.apply(cluster_queue(9));
  EXPECT_EQ(e.run_cycle(time_from_seconds(2011)).heads, 0u) << "an unchanged ClusterQueue flushes nothing";
  e.apply(LocalQueue{"default", "user-queue", "cluster-queue", StopPolicy::None, 1.0});
  EXPECT_EQ(e.run_cycle(time_from_seconds(2013)).heads, 0u) << "an unchanged LocalQueue flushes nothing";

  e.apply(cluster_queue(12));
  EXPECT_EQ(e.run_cycle(time_from_seconds(2014)).admitted, 1u);
  view = e.cluster_queue("cluster-queue");
  EXPECT_EQ(view->reserving, 4u);
}

}  // namespace
}  // namespace kueuepp::core
