#include "actors/queue_gauges.hpp"

#include <gtest/gtest.h>

namespace kueuepp::actors {
namespace {

using namespace messages;

ObjectPtr object(const std::string& text) {
  auto parsed = json::parse(text);
  EXPECT_TRUE(parsed.has_value()) << text;
  return std::make_shared<const kube::client::Object>(parsed.has_value() ? *parsed : json::value(json::object{}));
}

ClusterQueueSnapshot snapshot(bool active) {
  ClusterQueueSnapshot s;
  s.view.name = "cq";
  s.view.active = active;
  s.view.pending = 5;
  s.view.pending_active = 3;
  s.view.pending_inadmissible = 2;
  s.view.reserving = 4;
  s.view.admitted = 3;
  s.view.reservation = {{"on-demand", "cpu", 2500, 0}};
  s.view.usage = {{"on-demand", "cpu", 2000, 0}};
  s.object = object(R"({"metadata":{"name":"cq"},"spec":{"cohortName":"team","resourceGroups":[{"coveredResources":["cpu","memory"],)"
                    R"("flavors":[{"name":"on-demand","resources":[{"name":"cpu","nominalQuota":"4","lendingLimit":"1"},)"
                    R"({"name":"memory","nominalQuota":"1Gi"}]}]}]}})");
  s.root_cohort = "org";
  s.pending_reasons = {{"WaitingForQuota", 2}, {"NoMatchingFlavor", 1}};
  s.finished = 7;
  LocalQueueCounts lq;
  lq.ns = "ns";
  lq.name = "lq";
  lq.counts.pending = 5;
  lq.counts.reserving = 4;
  lq.counts.admitted = 3;
  lq.counts.reserved[{"on-demand", "cpu"}] = 2500;
  lq.counts.used[{"on-demand", "cpu"}] = 2000;
  lq.object = object(R"({"status":{"conditions":[{"type":"Active","status":"True","reason":"Ready"}]}})");
  s.local_queues.push_back(lq);
  return s;
}

TEST(QueueGauges, ActiveQueueReportsCountsQuotaAndLocalQueues) {
  QueueGauges g = queue_gauges(snapshot(true));
  EXPECT_EQ(g.cluster_queue, "cq");
  EXPECT_EQ(g.gauges.cohort, "team");
  EXPECT_EQ(g.gauges.root_cohort, "org");
  EXPECT_EQ(g.gauges.status, metrics::ClusterQueueStatus::Active);
  EXPECT_EQ(g.gauges.pending_active, 3);
  EXPECT_EQ(g.gauges.pending_inadmissible, 2);
  EXPECT_EQ(g.gauges.reserving_active, 4);
  EXPECT_EQ(g.gauges.admitted_active, 3);
  EXPECT_EQ(g.gauges.finished, 7);
  ASSERT_EQ(g.gauges.unadmitted.size(), 2u);
  ASSERT_EQ(g.gauges.resources.size(), 2u);
  EXPECT_EQ(g.gauges.resources[0].resource, "cpu");
  EXPECT_DOUBLE_EQ(g.gauges.resources[0].nominal, 4);
  EXPECT_DOUBLE_EQ(*g.gauges.resources[0].lending_limit, 1);
  EXPECT_FALSE(g.gauges.resources[0].borrowing_limit.has_value());
  EXPECT_DOUBLE_EQ(g.gauges.resources[0].reservation, 2.5);
  EXPECT_DOUBLE_EQ(g.gauges.resources[0].usage, 2);
  EXPECT_DOUBLE_EQ(g.gauges.resources[1].nominal, 1024.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(g.gauges.resources[1].usage, 0);
  ASSERT_EQ(g.local_queues.size(), 1u);
  EXPECT_EQ(g.local_queues[0].gauges.active, metrics::ConditionStatus::True);
  EXPECT_EQ(g.local_queues[0].gauges.pending_active, 5);
  ASSERT_EQ(g.local_queues[0].gauges.resources.size(), 1u);
  EXPECT_DOUBLE_EQ(g.local_queues[0].gauges.resources[0].reservation, 2.5);
}

TEST(QueueGauges, InactiveQueueCountsEveryPendingWorkloadAsInadmissible) {
  QueueGauges g = queue_gauges(snapshot(false));
  EXPECT_EQ(g.gauges.status, metrics::ClusterQueueStatus::Pending);
  EXPECT_EQ(g.gauges.pending_active, 0);
  EXPECT_EQ(g.gauges.pending_inadmissible, 5);
}

TEST(QueueGauges, QueueWithoutCohortHasNoRootAndMalformedQuotasAreSkipped) {
  ClusterQueueSnapshot s = snapshot(true);
  s.object = object(R"({"spec":{"resourceGroups":[{"flavors":[{"name":"f","resources":[{"name":"cpu","nominalQuota":"lots"},7]}]}]}})");
  QueueGauges g = queue_gauges(s);
  EXPECT_EQ(g.gauges.cohort, "");
  EXPECT_EQ(g.gauges.root_cohort, "");
  ASSERT_EQ(g.gauges.resources.size(), 1u);
  EXPECT_DOUBLE_EQ(g.gauges.resources[0].nominal, 0);
}

}  // namespace
}  // namespace kueuepp::actors
