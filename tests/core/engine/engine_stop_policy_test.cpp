// A ClusterQueue's stopPolicy: HoldAndDrain evicts what it admitted and holds it out
// (Requeued=False ClusterQueueStopped); a restart lets it back with Requeued=True
// ClusterQueueRestarted, the way Kueue's workload controller writes it. Also the
// per-reason pending counts the unadmitted-workloads gauge is built from.

#include <gtest/gtest.h>

#include <algorithm>

#include "core/engine/engine.hpp"
#include "tests/core/engine/test_objects.hpp"

namespace kueuepp::core {
namespace {

ClusterQueue queue(StopPolicy stop) {
  ClusterQueue cq = testing::cpu_cluster_queue("cq", {testing::cpu_quota("default", 4)});
  cq.stop_policy = stop;
  return cq;
}

void setup(Engine& e) {
  e.apply(ResourceFlavor{"default", {}, {}, {}, {}});
  e.apply(queue(StopPolicy::None));
  LocalQueue lq;
  lq.ns = "ns";
  lq.name = "lq";
  lq.cluster_queue = "cq";
  e.apply(lq);
  Namespace ns;
  ns.name = "ns";
  e.apply(ns);
}

Workload job(int i, int cpus) {
  Workload wl = testing::cpu_workload("w" + std::to_string(i), cpus, 0, 1000 + i, "lq", "ns");
  wl.uid = "uid-" + std::to_string(i);
  return wl;
}

const PendingDecision* pending_for(const Decisions& d, std::string_view key) {
  for (const auto& p : d.pending) {
    if (p.workload == key) return &p;
  }
  return nullptr;
}

TEST(EngineStopPolicy, HoldAndDrainEvictsAndARestartRequeues) {
  Engine e;
  setup(e);
  ASSERT_TRUE(e.apply(job(1, 2)));
  e.run_cycle(time_from_seconds(2000));
  auto first = e.take_decisions();
  ASSERT_EQ(first.admissions.size(), 1u);

  e.apply(queue(StopPolicy::HoldAndDrain));
  e.run_cycle(time_from_seconds(2001));
  auto stopped = e.take_decisions();
  ASSERT_EQ(stopped.evictions.size(), 1u);
  EXPECT_EQ(stopped.evictions[0].reason, "ClusterQueueStopped");
  ASSERT_TRUE(e.complete_eviction("ns/w1"));
  e.run_cycle(time_from_seconds(2002));
  auto held = e.take_decisions();
  EXPECT_TRUE(held.admissions.empty());
  auto view = e.workload("ns/w1");
  ASSERT_TRUE(view);
  EXPECT_FALSE(view->reserved);

  e.apply(queue(StopPolicy::None));
  e.run_cycle(time_from_seconds(2003));
  auto restarted = e.take_decisions();
  const PendingDecision* p = pending_for(restarted, "ns/w1");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->requeued_reason, "ClusterQueueRestarted");
  EXPECT_EQ(p->requeued_message, "The ClusterQueue was restarted after being stopped");
  ASSERT_EQ(restarted.admissions.size(), 1u);
  EXPECT_EQ(restarted.admissions[0].workload, "ns/w1");
}

TEST(EngineStopPolicy, PendingReasonsCountWhatWaits) {
  Engine e;
  setup(e);
  ASSERT_TRUE(e.apply(job(1, 3)));
  ASSERT_TRUE(e.apply(job(2, 3)));
  ASSERT_TRUE(e.apply(job(3, 8)));  // more than the queue's whole quota
  // Kueue pops one head per ClusterQueue per cycle: three cycles evaluate all three.
  for (int c = 0; c < 4; ++c) e.run_cycle(time_from_seconds(2000 + c));
  auto reasons = e.pending_reasons("cq");
  std::int64_t total = 0;
  for (const auto& [reason, n] : reasons) total += n;
  std::string seen;
  for (const auto& [reason, n] : reasons) seen += reason + "=" + std::to_string(n) + " ";
  for (const char* k : {"ns/w1", "ns/w2", "ns/w3"}) {
    auto v = e.workload(k);
    seen += std::string(k) + ":" + (v->reserved ? "reserved" : v->pending.reason) + " ";
  }
  EXPECT_EQ(total, 2) << seen;
  EXPECT_EQ(reasons.size(), 2u) << seen;  // w2 waits for quota, w3 can never fit
  EXPECT_EQ(reasons.count("WaitingForQuota") + reasons.count("ExceedsMaxQuota") +
                reasons.count("NoMatchingFlavor") + reasons.count("Pending"),
            reasons.size());
  EXPECT_TRUE(e.pending_reasons("no-such-queue").empty());
}

}  // namespace
}  // namespace kueuepp::core
