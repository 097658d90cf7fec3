#include "cmd/perf/workload_runner.hpp"

#include <gtest/gtest.h>

#include "cmd/perf/object_builders.hpp"
#include "kube/client/object.hpp"

namespace kueuepp::cmd::perf {
namespace {

using kube::client::Object;

Object workload(std::initializer_list<std::pair<const char*, bool>> conditions, const char* running_ms = "200") {
  auto doc = json::parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload",
    "metadata":{"name":"small-0-1-0","namespace":"cq-0-0-cohort-0","uid":"u1","resourceVersion":"7",
                "labels":{"kueue.x-k8s.io/performance-scheduler-class":"small"}},
    "status":{"conditions":[]}})");
  Object o(std::move(*doc));
  if (running_ms != nullptr) o.set_label(kRunningTimeLabel, running_ms);
  for (auto [type, status] : conditions) {
    o.set_condition(kube::client::Condition{type, status ? "True" : "False", "R", "m", "", std::nullopt},
                    "2026-01-01T00:00:00Z");
  }
  return o;
}

TEST(WorkloadRunner, PendingWorkloadsAreLeftAlone) {
  EXPECT_EQ(decide(workload({}), std::nullopt, 1000).kind, RunnerAction::Kind::None);
  EXPECT_EQ(decide(workload({{"QuotaReserved", false}, {"Admitted", false}}), std::nullopt, 1000).kind,
            RunnerAction::Kind::None);
}

TEST(WorkloadRunner, FinishesOnceTheRunningTimeHasPassedSinceAdmission) {
  Object wl = workload({{"QuotaReserved", true}, {"Admitted", true}});
  RunnerAction later = decide(wl, 1000, 1100);
  EXPECT_EQ(later.kind, RunnerAction::Kind::FinishLater);
  EXPECT_EQ(later.at, 1200);
  EXPECT_EQ(decide(wl, 1000, 1200).kind, RunnerAction::Kind::Finish);
  EXPECT_EQ(decide(wl, 1000, 5000).kind, RunnerAction::Kind::Finish);
  // Not yet seen admitted by the runner: the running time counts from now.
  EXPECT_EQ(decide(wl, std::nullopt, 50).at, 250);
  // An unreadable running time counts as 0 (Kueue's Atoi failure).
  EXPECT_EQ(decide(workload({{"Admitted", true}}, "soon"), 1000, 1000).kind, RunnerAction::Kind::Finish);
  EXPECT_EQ(running_time_ms(workload({}, nullptr)), 0);
  EXPECT_EQ(running_time_ms(workload({}, "1500")), 1500);
}

TEST(WorkloadRunner, CompletesAnEvictionWhileQuotaIsStillReserved) {
  Object evicted = workload({{"QuotaReserved", true}, {"Admitted", true}, {"Evicted", true}});
  EXPECT_EQ(decide(evicted, 0, 10).kind, RunnerAction::Kind::CompleteEviction);
  Object released = workload({{"QuotaReserved", false}, {"Admitted", false}, {"Evicted", true}});
  EXPECT_EQ(decide(released, std::nullopt, 10).kind, RunnerAction::Kind::None);
}

TEST(WorkloadRunner, FinishedWorkloadsAreDone) {
  Object done = workload({{"QuotaReserved", true}, {"Admitted", true}, {"Finished", true}});
  EXPECT_EQ(decide(done, 0, 100'000).kind, RunnerAction::Kind::None);
}

Object owned_by_jobset(Object wl, const char* api_version = "jobset.x-k8s.io/v1alpha2") {
  json::value doc = wl.json();
  doc.as_object()["metadata"].as_object()["ownerReferences"] = json::array{
      json::object{{"apiVersion", api_version}, {"kind", "JobSet"}, {"name", "small-0-1-0"}, {"uid", "j1"}, {"controller", true}}};
  return Object(std::move(doc));
}

// --jobsets-every: the controller owns a JobSet's eviction, and the runner finishes the
// JobSet (the controller then finishes the Workload), never the Workload itself.
TEST(WorkloadRunner, AJobSetsWorkloadIsFinishedThroughItsJobSet) {
  Object wl = owned_by_jobset(workload({{"QuotaReserved", true}, {"Admitted", true}}));
  EXPECT_EQ(owning_jobset(wl), "small-0-1-0");
  EXPECT_EQ(decide(wl, 1000, 1100).kind, RunnerAction::Kind::FinishLater);
  EXPECT_EQ(decide(wl, 1000, 1200).kind, RunnerAction::Kind::CompleteJobSet);
  Object evicted = owned_by_jobset(workload({{"QuotaReserved", true}, {"Admitted", true}, {"Evicted", true}}));
  EXPECT_EQ(decide(evicted, 0, 10).kind, RunnerAction::Kind::None);
  // Another group's JobSet kind is not a JobSet.
  Object other = owned_by_jobset(workload({{"QuotaReserved", true}, {"Admitted", true}}), "example.com/v1");
  EXPECT_EQ(owning_jobset(other), std::nullopt);
  EXPECT_EQ(decide(other, 1000, 1200).kind, RunnerAction::Kind::Finish);
}

TEST(WorkloadRunner, ObservesClusterQueueStatus) {
  auto doc = json::parse(R"({"metadata":{"name":"cq-0-1-cohort-0","labels":{"kueue.x-k8s.io/performance-scheduler-class":"cq"}},
    "spec":{"resourceGroups":[{"coveredResources":["cpu"],"flavors":[{"name":"rf","resources":[
      {"name":"cpu","nominalQuota":"20","borrowingLimit":"100"}]}]}]},
    "status":{"pendingWorkloads":12,"reservingWorkloads":3,"admittedWorkloads":3,
      "flavorsUsage":[{"name":"rf","resources":[{"name":"cpu","total":"25500m","borrowed":"5500m"}]}],
      "conditions":[{"type":"Active","status":"True","reason":"Ready","message":"Can admit new workloads"}]}})");
  ASSERT_TRUE(doc);
  ClusterQueueObservation o = observe_cluster_queue(Object(std::move(*doc)), 42);
  EXPECT_EQ(o.at, 42);
  EXPECT_EQ(o.name, "cq-0-1-cohort-0");
  EXPECT_EQ(o.class_name, "cq");
  EXPECT_EQ(o.cpu_usage_milli, 25'500);
  EXPECT_EQ(o.cpu_nominal_milli, 20'000);
  EXPECT_EQ(o.pending, 12);
  EXPECT_EQ(o.reserving, 3);
  EXPECT_EQ(o.admitted, 3);
  EXPECT_TRUE(o.active);

  // A queue the controller has not written status for yet.
  auto bare = json::parse(R"({"metadata":{"name":"q"}})");
  ClusterQueueObservation b = observe_cluster_queue(Object(std::move(*bare)), 1);
  EXPECT_EQ(b.cpu_usage_milli, 0);
  EXPECT_EQ(b.pending, 0);
  EXPECT_FALSE(b.active);
}

TEST(WorkloadRunner, ObservesWorkloadConditions) {
  WorkloadObservation o = observe_workload(workload({{"Admitted", true}, {"Evicted", false}}), 9);
  EXPECT_EQ(o.uid, "u1");
  EXPECT_EQ(o.ns, "cq-0-0-cohort-0");
  EXPECT_EQ(o.name, "small-0-1-0");
  EXPECT_EQ(o.class_name, "small");
  EXPECT_TRUE(o.admitted);
  EXPECT_FALSE(o.evicted);
  EXPECT_FALSE(o.finished);
}

}  // namespace
}  // namespace kueuepp::cmd::perf
