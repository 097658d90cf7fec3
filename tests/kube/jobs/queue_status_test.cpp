#include "kube/jobs/queue_status.hpp"

#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "kube/jobs/conditions_list.hpp"

namespace kueuepp::kube::jobs {
namespace {

using testing::object;
using testing::yaml;

core::ClusterQueueView view() {
  core::ClusterQueueView v;
  v.name = "cq";
  v.active = true;
  v.pending = 4;
  v.reserving = 2;
  v.admitted = 1;
  // Spec order: memory before cpu; Kueue sorts resources by name within a flavor.
  v.reservation = {{"default", "memory", 2LL * 1073741824 * 1000, 0},
                   {"default", "cpu", 5000, 1000},
                   {"spot", "cpu", 0, 0},
                   {"spot", "memory", 0, 0}};
  v.usage = {{"default", "memory", 1073741824LL * 1000, 0},
             {"default", "cpu", 2500, 0},
             {"spot", "cpu", 0, 0},
             {"spot", "memory", 0, 0}};
  return v;
}

client::Object cq_object(bool cohort) {
  return object(cohort ? "metadata: {name: cq, generation: 3}\nspec: {cohortName: team}"
                       : "metadata: {name: cq, generation: 3}\nspec: {}");
}

TEST(QueueStatus, ClusterQueueCountersAndUsage) {
  json::value s = cluster_queue_status(view(), cq_object(true), testing::at(0));
  EXPECT_EQ(s.at("pendingWorkloads").as_int64(), 4);
  EXPECT_EQ(s.at("reservingWorkloads").as_int64(), 2);
  EXPECT_EQ(s.at("admittedWorkloads").as_int64(), 1);
  EXPECT_EQ(s.at("flavorsReservation"), yaml(R"(
- name: default
  resources:
  - {name: cpu, total: "5", borrowed: "1"}
  - {name: memory, total: 2Gi, borrowed: "0"}
- name: spot
  resources:
  - {name: cpu, total: "0", borrowed: "0"}
  - {name: memory, total: "0", borrowed: "0"}
)"));
  EXPECT_EQ(s.at("flavorsUsage").at(0).at("resources"), yaml(R"(
- {name: cpu, total: 2500m, borrowed: "0"}
- {name: memory, total: 1Gi, borrowed: "0"}
)"));
  EXPECT_TRUE(s.at("fairSharing").is_null());
  auto active = find_condition(s.at("conditions"), "Active");
  ASSERT_TRUE(active);
  EXPECT_EQ(active->status, "True");
  EXPECT_EQ(active->reason, "Ready");
  EXPECT_EQ(active->message, "Can admit new workloads");
  EXPECT_EQ(active->observed_generation, 3);
}

TEST(QueueStatus, NoCohortMeansNoBorrowing) {
  json::value s = cluster_queue_status(view(), cq_object(false), testing::at(0));
  EXPECT_EQ(s.at("flavorsReservation").at(0).at("resources").at(0).at("borrowed").as_string(), "0");
}

TEST(QueueStatus, InactiveClusterQueue) {
  core::ClusterQueueView v = view();
  v.active = false;
  v.inactive_reason = "FlavorNotFound";
  v.inactive_message = "Can't admit new workloads: references missing ResourceFlavor(s): spot.";
  auto active = find_condition(cluster_queue_status(v, cq_object(true), testing::at(0)).at("conditions"), "Active");
  EXPECT_EQ(active->status, "False");
  EXPECT_EQ(active->reason, "FlavorNotFound");
  EXPECT_EQ(active->message, v.inactive_message);
  v.inactive_reason.clear();
  v.inactive_message.clear();
  active = find_condition(cluster_queue_status(v, cq_object(true), testing::at(0)).at("conditions"), "Active");
  EXPECT_EQ(active->reason, "Unknown");
  EXPECT_EQ(active->message, "Can't admit new workloads.");
}

TEST(QueueStatus, FairSharingAndEmptyGroups) {
  core::ClusterQueueView v;
  v.active = true;
  v.weighted_share = 250;
  json::value s = cluster_queue_status(v, cq_object(true), testing::at(0));
  EXPECT_EQ(s.at("fairSharing"), yaml("{weightedShare: 250}"));
  EXPECT_TRUE(s.at("flavorsReservation").is_null());
  EXPECT_TRUE(s.at("flavorsUsage").is_null());
}

TEST(QueueStatus, UnchangedStatusIsNotRewritten) {
  client::Object cq = cq_object(true);
  json::value desired = cluster_queue_status(view(), cq, testing::at(0));
  EXPECT_TRUE(queue_status_patch(cq, desired).has_value());
  cq.ensure({"status"}) = desired;
  // What the API server stores: nulls dropped, quantities possibly respelled.
  cq.erase({"status", "fairSharing"});
  cq.ensure({"status", "flavorsUsage"}).as_array()[0].as_object()["resources"].as_array()[0].as_object()["total"] =
      "2.5";
  json::value again = cluster_queue_status(view(), cq, testing::at(100));
  EXPECT_TRUE(status_unchanged(cq.find({"status"}), again));
  EXPECT_FALSE(queue_status_patch(cq, again).has_value());
  core::ClusterQueueView more = view();
  more.pending = 5;
  EXPECT_FALSE(status_unchanged(cq.find({"status"}), cluster_queue_status(more, cq, testing::at(100))));
  EXPECT_FALSE(status_unchanged(nullptr, again));
}

TEST(QueueStatus, ActiveTransitionTimeKeptWhileStatusHolds) {
  client::Object cq = cq_object(true);
  cq.ensure({"status"}) = cluster_queue_status(view(), cq, testing::at(0));
  json::value later = cluster_queue_status(view(), cq, testing::at(500));
  EXPECT_EQ(find_condition(later.at("conditions"), "Active")->last_transition_time, "2026-01-01T00:00:00Z");
  core::ClusterQueueView stopped = view();
  stopped.active = false;
  stopped.inactive_reason = "Stopped";
  stopped.inactive_message = "Can't admit new workloads: is stopped.";
  json::value flipped = cluster_queue_status(stopped, cq, testing::at(500));
  EXPECT_EQ(find_condition(flipped.at("conditions"), "Active")->last_transition_time, "2026-01-01T00:08:20Z");
}

LocalQueueView lq_view() {
  LocalQueueView v;
  v.pending = 3;
  v.reserving = 1;
  v.admitted = 1;
  core::LocalQueueTally usage;  // two reserving workloads, one of them admitted
  usage.reserved = {{"default", "cpu", 3000}, {"default", "memory", 2 * 1073741824LL * 1000}};
  usage.used = {{"default", "cpu", 1500}, {"default", "memory", 1073741824LL * 1000}};
  add_tally(v, usage);
  return v;
}

TEST(QueueStatus, LocalQueueReady) {
  client::Object lq = object("metadata: {name: lq, namespace: ns, generation: 1}\nspec: {clusterQueue: cq}");
  core::ClusterQueueView cq = view();
  json::value s = local_queue_status(lq, lq_view(), &cq, testing::at(0));
  EXPECT_EQ(s.at("pendingWorkloads").as_int64(), 3);
  EXPECT_EQ(s.at("reservingWorkloads").as_int64(), 1);
  EXPECT_EQ(s.at("admittedWorkloads").as_int64(), 1);
  EXPECT_EQ(s.at("flavorsReservation"), yaml(R"(
- name: default
  resources: [{name: cpu, total: "3"}, {name: memory, total: 2Gi}]
- name: spot
  resources: [{name: cpu, total: "0"}, {name: memory, total: "0"}]
)"));
  EXPECT_EQ(s.at("flavorsUsage").at(0), yaml(R"({name: default, resources: [{name: cpu, total: 1500m}, {name: memory, total: 1Gi}]})"));
  auto active = find_condition(s.at("conditions"), "Active");
  EXPECT_EQ(active->status, "True");
  EXPECT_EQ(active->reason, "Ready");
  EXPECT_EQ(active->message, "Can submit new workloads to localQueue");
  EXPECT_EQ(active->observed_generation, 1);
}

TEST(QueueStatus, LocalQueueStopped) {
  client::Object lq = object("metadata: {name: lq, namespace: ns}\nspec: {clusterQueue: cq, stopPolicy: Hold}");
  core::ClusterQueueView cq = view();
  json::value s = local_queue_status(lq, lq_view(), &cq, testing::at(0));
  EXPECT_EQ(s.at("pendingWorkloads").as_int64(), 0);
  EXPECT_EQ(s.at("reservingWorkloads").as_int64(), 1);
  auto active = find_condition(s.at("conditions"), "Active");
  EXPECT_EQ(active->status, "False");
  EXPECT_EQ(active->reason, "Stopped");
  EXPECT_EQ(active->message, "LocalQueue is stopped");
  EXPECT_FALSE(active->observed_generation.has_value());
}

TEST(QueueStatus, LocalQueueWithoutClusterQueue) {
  client::Object lq = object("metadata: {name: lq, namespace: ns}\nspec: {clusterQueue: gone}");
  json::value s = local_queue_status(lq, lq_view(), nullptr, testing::at(0));
  EXPECT_EQ(s.at("pendingWorkloads").as_int64(), 3);
  EXPECT_EQ(s.at("reservingWorkloads").as_int64(), 0);
  EXPECT_TRUE(s.at("flavorsReservation").is_null());
  auto active = find_condition(s.at("conditions"), "Active");
  EXPECT_EQ(active->reason, "ClusterQueueDoesNotExist");
  EXPECT_EQ(active->message, "Can't submit new workloads to clusterQueue");
}

TEST(QueueStatus, LocalQueueOfInactiveClusterQueue) {
  client::Object lq = object("metadata: {name: lq, namespace: ns}\nspec: {clusterQueue: cq, stopPolicy: None}");
  core::ClusterQueueView cq = view();
  cq.active = false;
  auto active = find_condition(local_queue_status(lq, lq_view(), &cq, testing::at(0)).at("conditions"), "Active");
  EXPECT_EQ(active->status, "False");
  EXPECT_EQ(active->reason, "ClusterQueueIsInactive");
}

TEST(QueueStatus, ATallyAddsItsCountsAndItsReservedAndUsedQuotaApart) {
  LocalQueueView v;
  v.reserved[{"default", "cpu"}] = 1000;
  v.used[{"default", "cpu"}] = 1000;
  core::LocalQueueTally t;
  t.pending = 2;
  t.reserving = 3;
  t.admitted = 1;
  t.reserved = {{"default", "cpu", 4000}, {"spot", "cpu", 250}};
  t.used = {{"default", "cpu", 1500}};
  add_tally(v, t);
  add_tally(v, t);
  EXPECT_EQ(v.pending, 4);
  EXPECT_EQ(v.reserving, 6);
  EXPECT_EQ(v.admitted, 2);
  EXPECT_EQ((v.reserved[{"default", "cpu"}]), 9000);
  EXPECT_EQ((v.reserved[{"spot", "cpu"}]), 500);
  EXPECT_EQ((v.used[{"default", "cpu"}]), 4000);
  EXPECT_EQ(v.used.count({"spot", "cpu"}), 0u);
}

}  // namespace
}  // namespace kueuepp::kube::jobs
