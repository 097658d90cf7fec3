// BestEffortFIFO parks a whole scheduling-equivalence class when one member does not fit
// (Kueue's equivalence hashing). Every member must still say why it waits: the ones
// queued when the class was parked, and the ones that join it afterwards.

#include <gtest/gtest.h>

#include "core/engine/engine.hpp"

namespace kueuepp::core {
namespace {

ClusterQueue queue() {
  ClusterQueue cq;
  cq.name = "cq";
  cq.namespace_selector = LabelSelector{};
  ResourceGroup rg;
  rg.covered_resources = {"cpu"};
  FlavorQuotas fq;
  fq.name = "default";
  ResourceQuota q;
  q.name = "cpu";
  q.nominal = Quantity::from_units(1);
  fq.resources.push_back(q);
  rg.flavors.push_back(fq);
  cq.resource_groups.push_back(rg);
  return cq;
}

void setup(Engine& e) {
  e.apply(ResourceFlavor{"default", {}, {}, {}, {}});
  e.apply(queue());
  LocalQueue lq;
  lq.ns = "ns";
  lq.name = "lq";
  lq.cluster_queue = "cq";
  e.apply(lq);
  Namespace ns;
  ns.name = "ns";
  e.apply(ns);
}

Workload job(int i) {
  Workload wl;
  wl.ns = "ns";
  wl.name = "w" + std::to_string(i);
  wl.uid = "uid-" + std::to_string(i);
  wl.creation = time_from_seconds(1000 + i);
  wl.queue_name = "lq";
  PodSet ps;
  ps.name = "main";
  ps.count = 1;
  ps.per_pod_requests["cpu"] = Quantity::from_units(1);
  wl.pod_sets.push_back(ps);
  return wl;
}

std::string reason_of(const Decisions& d, std::string_view key) {
  for (const auto& p : d.pending) {
    if (p.workload == key) return p.reason;
  }
  return "";
}

void run(Engine& e, int at, Decisions& all) {
  for (int i = 0; i < 40; ++i) e.run_cycle(time_from_seconds(at));
  auto d = e.take_decisions();
  for (auto& a : d.admissions) all.admissions.push_back(std::move(a));
  for (auto& p : d.pending) all.pending.push_back(std::move(p));
}

TEST(EngineClassExplanation, EveryMemberOfAParkedClassSaysWhyItWaits) {
  Engine e;
  setup(e);
  Decisions all;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(e.apply(job(i)));
  run(e, 2000, all);
  ASSERT_EQ(all.admissions.size(), 1u);
  EXPECT_EQ(reason_of(all, "ns/w1"), "WaitingForQuota");
  EXPECT_EQ(reason_of(all, "ns/w2"), "WaitingForQuota") << "parked with w1 without an evaluation of its own";
  // A member arriving while the class is parked joins it, and says so too.
  ASSERT_TRUE(e.apply(job(3)));
  run(e, 2001, all);
  EXPECT_EQ(reason_of(all, "ns/w3"), "WaitingForQuota");
}

}  // namespace
}  // namespace kueuepp::core
