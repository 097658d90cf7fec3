// What kueuepp does not implement is never admitted on quota alone: a ClusterQueue that
// uses a topology-aware flavor or asks for admission fair sharing is inactive with reason
// NotSupported, and a workload whose pod set requests a topology stays pending with
// reason NotSupported, each saying what it asked for.

#include <gtest/gtest.h>

#include "core/engine/engine.hpp"
#include "tests/core/engine/test_objects.hpp"

namespace kueuepp::core {
namespace {

void setup(Engine& e, ClusterQueue cq) {
  e.apply(cq);
  LocalQueue lq;
  lq.ns = "ns";
  lq.name = "lq";
  lq.cluster_queue = cq.name;
  e.apply(lq);
  Namespace ns;
  ns.name = "ns";
  e.apply(ns);
}

Workload job(const std::string& name) { return testing::cpu_workload(name, 1, 0, 1000, "lq", "ns"); }

TEST(EngineNotSupported, AQueueWithATopologyFlavorIsInactiveAndAdmitsNothing) {
  Engine e;
  ResourceFlavor tas{"tas", {}, {}, {}, std::string("default-topology")};
  e.apply(tas);
  setup(e, testing::cpu_cluster_queue("cq", {testing::cpu_quota("tas", 4)}));
  ASSERT_TRUE(e.apply(job("w1")));
  e.run_cycle(time_from_seconds(2000));
  auto d = e.take_decisions();
  EXPECT_TRUE(d.admissions.empty());
  auto view = e.cluster_queue("cq");
  ASSERT_TRUE(view);
  EXPECT_FALSE(view->active);
  EXPECT_EQ(view->inactive_reason, "NotSupported");
  EXPECT_EQ(view->inactive_message,
            "Can't admit new workloads: uses ResourceFlavor(s) with a topologyName [tas], and kueuepp does not "
            "implement topology-aware scheduling.");

  // The flavor without its topology: the queue opens and admits.
  e.apply(ResourceFlavor{"tas", {}, {}, {}, {}});
  e.run_cycle(time_from_seconds(2001));
  EXPECT_TRUE(e.cluster_queue("cq")->active);
  EXPECT_EQ(e.take_decisions().admissions.size(), 1u);
}

TEST(EngineNotSupported, AQueueAskingForAdmissionFairSharingIsInactive) {
  Engine e;
  e.apply(ResourceFlavor{"default", {}, {}, {}, {}});
  ClusterQueue cq = testing::cpu_cluster_queue("cq", {testing::cpu_quota("default", 4)});
  cq.unsupported.push_back("sets spec.admissionScope, and kueuepp does not implement admission fair sharing");
  setup(e, cq);
  ASSERT_TRUE(e.apply(job("w1")));
  e.run_cycle(time_from_seconds(2000));
  EXPECT_TRUE(e.take_decisions().admissions.empty());
  auto view = e.cluster_queue("cq");
  ASSERT_TRUE(view);
  EXPECT_EQ(view->inactive_reason, "NotSupported");
  EXPECT_NE(view->inactive_message.find("spec.admissionScope"), std::string::npos) << view->inactive_message;
}

TEST(EngineNotSupported, AWorkloadRequestingATopologyWaitsWithTheReason) {
  Engine e;
  e.apply(ResourceFlavor{"default", {}, {}, {}, {}});
  setup(e, testing::cpu_cluster_queue("cq", {testing::cpu_quota("default", 4)}));
  Workload wl = job("w1");
  wl.pod_sets[0].unsupported = "requests a topology (annotation kueue.x-k8s.io/podset-required-topology), and "
                               "kueuepp does not implement topology-aware scheduling";
  ASSERT_TRUE(e.apply(wl));
  ASSERT_TRUE(e.apply(job("w2")));
  // One head per queue per cycle: the second cycle reaches the workload behind it.
  e.run_cycle(time_from_seconds(2000));
  e.run_cycle(time_from_seconds(2000));
  auto d = e.take_decisions();
  ASSERT_EQ(d.admissions.size(), 1u);
  EXPECT_EQ(d.admissions[0].workload, "ns/w2");  // the queue goes on past it
  const PendingDecision* p = nullptr;
  for (const auto& x : d.pending) {
    if (x.workload == "ns/w1") p = &x;
  }
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->reason, "NotSupported");
  EXPECT_EQ(p->message,
            "pod set main requests a topology (annotation kueue.x-k8s.io/podset-required-topology), and kueuepp "
            "does not implement topology-aware scheduling");
}

}  // namespace
}  // namespace kueuepp::core
