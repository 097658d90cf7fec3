// `kueuepp whatif`'s text: each outcome in plain sentences, with the flavors, the victims
// and their rule, the reason and message, the positions and the estimate's basis.

#include <gtest/gtest.h>

#include "cmd/whatif/what_if_text.hpp"

namespace kueuepp::cmd {
namespace {

json::value doc(const char* text) {
  auto v = json::parse(text);
  EXPECT_TRUE(v.has_value()) << text;
  return v ? *v : json::value{};
}

TEST(WhatIfText, AdmittedNamesTheFlavors) {
  auto r = doc(R"({"kind":"WhatIfResult","metadata":{"namespace":"default","name":"job-a"},"status":{
    "outcome":"Admitted","clusterQueueName":"cq","askedAt":"2026-01-01T00:00:00Z","admissionChecksReady":true,
    "admission":{"clusterQueue":"cq","podSetAssignments":[{"name":"main","count":3,
      "flavors":{"cpu":"on-demand","memory":"on-demand"},"resourceUsage":{"cpu":"3","memory":"3Gi"}}]}}})");
  EXPECT_EQ(what_if_text(r, "default/lq"),
            "Workload default/job-a on LocalQueue default/lq (ClusterQueue cq), asked at 2026-01-01T00:00:00Z:\n"
            "  admitted now, on:\n"
            "    pod set main (3 pods): cpu on flavor on-demand (3), memory on flavor on-demand (3Gi)\n");
}

TEST(WhatIfText, PreemptingNamesVictimsAndRule) {
  auto r = doc(R"({"metadata":{"namespace":"default","name":"high"},"status":{
    "outcome":"Preempting","clusterQueueName":"cq","askedAt":"T",
    "preemptions":[{"workload":{"namespace":"default","name":"low"},"clusterQueue":"cq","reason":"InClusterQueue",
      "message":"Preempted to accommodate a workload"}],
    "pending":{"reason":"WaitingForPreemptedWorkloads","message":"..."},"positionInClusterQueue":0,"positionInLocalQueue":0}})");
  EXPECT_EQ(what_if_text(r, "default/lq"),
            "Workload default/high on LocalQueue default/lq (ClusterQueue cq), asked at T:\n"
            "  admitted after preempting 1 workload(s):\n"
            "    default/low in ClusterQueue cq, by InClusterQueue: Preempted to accommodate a workload\n");
}

TEST(WhatIfText, PendingSaysWhyWhereAndWhen) {
  auto r = doc(R"({"metadata":{"namespace":"default","name":"w"},"status":{
    "outcome":"Pending","clusterQueueName":"cq","askedAt":"T",
    "pending":{"reason":"WaitingForQuota","message":"couldn't assign flavors"},
    "positionInClusterQueue":2,"positionInLocalQueue":1,
    "estimatedStart":{"time":"2026-01-01T01:00:00Z","basis":["MaximumExecutionTime","AverageRuntime"],
      "workloadsEndingFirst":3}}})");
  EXPECT_EQ(what_if_text(r, "default/lq"),
            "Workload default/w on LocalQueue default/lq (ClusterQueue cq), asked at T:\n"
            "  pending: WaitingForQuota: couldn't assign flavors\n"
            "  position 2 in its ClusterQueue, 1 in its LocalQueue (0 is next)\n"
            "  estimated start: 2026-01-01T01:00:00Z, if running workloads end at their maximum execution time and "
            "their ClusterQueue's average runtime (3 end first) and nothing else arrives\n");
  auto none = doc(R"({"metadata":{"namespace":"default","name":"w"},"status":{"outcome":"Pending",
    "clusterQueueName":"cq","askedAt":"T","pending":{"reason":"WaitingForQuota","message":"m"},
    "positionInClusterQueue":0,"positionInLocalQueue":0,"estimateUnavailable":"no running workload has a limit"}})");
  EXPECT_NE(what_if_text(none, "default/lq").find("  no start estimate: no running workload has a limit\n"),
            std::string::npos);
}

}  // namespace
}  // namespace kueuepp::cmd
