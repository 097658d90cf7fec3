#include "cmd/perf/object_builders.hpp"

#include <gtest/gtest.h>

namespace kueuepp::cmd::perf {
namespace {

GeneratorConfig two_by_two() {
  auto cfg = parse_generator_config(R"(
cohorts:
- className: cohort
  count: 2
  queuesSets:
  - className: cq
    count: 2
    nominalQuota: 20
    borrowingLimit: 100
    reclaimWithinCohort: Any
    withinClusterQueue: LowerPriority
    workloadsSets:
    - count: 3
      creationIntervalMs: 100
      workloads:
      - {className: small, runtimeMs: 200, priority: 50, request: 500m}
)");
  EXPECT_TRUE(cfg) << cfg.error().message;
  return *cfg;
}

TEST(ObjectBuilders, NamesFollowKueuesRunner) {
  GeneratorConfig cfg = two_by_two();
  auto plan = plan_cohorts(cfg);
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[1].name, "cohort-1");
  ASSERT_EQ(plan[1].queues.size(), 2u);
  EXPECT_EQ(plan[1].queues[0].name, "cq-0-0-cohort-1");
  EXPECT_EQ(plan[1].queues[1].name, "cq-0-1-cohort-1");
  EXPECT_EQ(plan[1].queues[1].cohort, "cohort-1");
  const WorkloadTemplate& t = cfg.cohorts[0].queues_sets[0].workloads_sets[0].workloads[0];
  EXPECT_EQ(workload_name(t, 0, 2, 0), "small-0-2-0");
}

TEST(ObjectBuilders, ClusterQueueCarriesQuotaPreemptionAndClass) {
  GeneratorConfig cfg = two_by_two();
  const QueuesSet& set = cfg.cohorts[0].queues_sets[0];
  json::value cq = cluster_queue_object(set, "cq-0-0-cohort-0", "cohort-0", "rf");
  EXPECT_EQ(json::dump(cq),
            R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ClusterQueue","metadata":{"name":"cq-0-0-cohort-0",)"
            R"("labels":{"kueue.x-k8s.io/performance-scheduler-cleanup":"true","kueue.x-k8s.io/performance-scheduler-class":"cq"}},)"
            R"("spec":{"cohortName":"cohort-0","namespaceSelector":{},"queueingStrategy":"BestEffortFIFO",)"
            R"("flavorFungibility":{"whenCanBorrow":"MayStopSearch","whenCanPreempt":"TryNextFlavor"},)"
            R"("resourceGroups":[{"coveredResources":["cpu"],"flavors":[{"name":"rf","resources":[)"
            R"({"name":"cpu","nominalQuota":"20","borrowingLimit":"100"}]}]}],)"
            R"("preemption":{"reclaimWithinCohort":"Any","withinClusterQueue":"LowerPriority"}}})");
}

TEST(ObjectBuilders, WorkloadIsARawWorkloadWithOnePod) {
  GeneratorConfig cfg = two_by_two();
  const WorkloadTemplate& t = cfg.cohorts[0].queues_sets[0].workloads_sets[0].workloads[0];
  json::value wl = workload_object(t, "small-0-0-0", "cq-0-0-cohort-0", "cq-0-0-cohort-0");
  EXPECT_EQ(json::dump(wl),
            R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":"small-0-0-0",)"
            R"("labels":{"kueue.x-k8s.io/performance-scheduler-running-ms":"200","kueue.x-k8s.io/performance-scheduler-class":"small"},)"
            R"("namespace":"cq-0-0-cohort-0"},"spec":{"queueName":"cq-0-0-cohort-0","priority":50,"podSets":[{"name":"main","count":1,)"
            R"("template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","resources":{"requests":{"cpu":"500m"}}}]}}}]}})");
}

TEST(ObjectBuilders, LocalQueueAndNamespaceAreNamedAfterTheClusterQueue) {
  EXPECT_EQ(json::dump(local_queue_object("q", "q", "q")),
            R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"LocalQueue","metadata":{"name":"q","namespace":"q"},)"
            R"("spec":{"clusterQueue":"q"}})");
  EXPECT_EQ(json::dump(namespace_object("q")),
            R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"q","labels":{"kueue.x-k8s.io/performance-scheduler-cleanup":"true"}}})");
}

}  // namespace
}  // namespace kueuepp::cmd::perf
