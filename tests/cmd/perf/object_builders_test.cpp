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

// --jobsets-every: the same name, labels and queue as the Workload it replaces, its cpu
// split over two pod sets, created suspended, its priority through a WorkloadPriorityClass.
TEST(ObjectBuilders, JobSetSplitsTheRequestOverDriverAndWorkers) {
  GeneratorConfig cfg = two_by_two();
  WorkloadTemplate t = cfg.cohorts[0].queues_sets[0].workloads_sets[0].workloads[0];
  t.request = core::Quantity::from_milli(5001);
  json::value js = jobset_object(t, "small-0-0-0", "ns", "lq");
  EXPECT_EQ(json::get_string(js, "apiVersion"), "jobset.x-k8s.io/v1alpha2");
  EXPECT_EQ(json::get_string(js, "kind"), "JobSet");
  const json::value& meta = js.as_object().at("metadata");
  EXPECT_EQ(json::get_string(meta, "name"), "small-0-0-0");
  EXPECT_EQ(json::get_string(meta, "namespace"), "ns");
  const json::value& labels = meta.as_object().at("labels");
  EXPECT_EQ(json::get_string(labels, "kueue.x-k8s.io/queue-name"), "lq");
  EXPECT_EQ(json::get_string(labels, "kueue.x-k8s.io/priority-class"), "perf-priority-50");
  EXPECT_EQ(json::get_string(labels, std::string(kClassLabel)), "small");
  EXPECT_EQ(json::get_string(labels, std::string(kRunningTimeLabel)), "200");
  const json::value& spec = js.as_object().at("spec");
  EXPECT_TRUE(spec.as_object().at("suspend").as_bool());
  const auto& jobs = spec.as_object().at("replicatedJobs").as_array();
  ASSERT_EQ(jobs.size(), 2u);
  std::int64_t total = 0;
  const char* names[] = {"driver", "workers"};
  const char* cpus[] = {"2500m", "2501m"};
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(json::get_string(jobs[i], "name"), names[i]);
    EXPECT_EQ(jobs[i].as_object().at("replicas").as_int64(), 1);
    const json::value* cpu = json::find_path(jobs[i], {"template", "spec", "template", "spec", "containers"});
    ASSERT_NE(cpu, nullptr);
    const json::value& c = cpu->as_array().at(0);
    const std::string_view value = json::get_string(c.as_object().at("resources").as_object().at("requests"), "cpu");
    EXPECT_EQ(value, cpus[i]);
    total += core::Quantity::parse(value)->milli();
  }
  EXPECT_EQ(total, 5001);
}

TEST(ObjectBuilders, OnePriorityClassPerDistinctTemplatePriority) {
  auto cfg = parse_generator_config(R"(
cohorts:
- className: cohort
  count: 1
  queuesSets:
  - className: cq
    count: 1
    nominalQuota: 20
    workloadsSets:
    - count: 1
      creationIntervalMs: 1
      workloads:
      - {className: large, runtimeMs: 1, priority: 200, request: 1}
      - {className: small, runtimeMs: 1, priority: 50, request: 1}
      - {className: small2, runtimeMs: 1, priority: 200, request: 1}
)");
  ASSERT_TRUE(cfg) << cfg.error().message;
  EXPECT_EQ(template_priorities(*cfg), (std::vector<std::int32_t>{50, 200}));
  EXPECT_EQ(json::dump(workload_priority_class_object(200)),
            R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"WorkloadPriorityClass","metadata":{"name":"perf-priority-200",)"
            R"("labels":{"kueue.x-k8s.io/performance-scheduler-cleanup":"true"}},"value":200,)"
            R"("description":"kueuepp perf: the priority of its JobSets"})");
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
