// A tree's what-if answer: a Job is built into its Workload as the Job integration builds
// it and asked on the LocalQueue of the path; a Workload is asked as sent (without its
// status); bodies that cannot be asked about there say why; the engine is unchanged.

#include <gtest/gtest.h>

#include <map>

#include "actors/what_if_request.hpp"
#include "tests/core/engine/test_objects.hpp"

namespace kueuepp::actors {
namespace {

namespace vis = kube::visibility;
using core::testing::cpu_workload;

constexpr const char* kJob = R"({"apiVersion":"batch/v1","kind":"Job",
  "metadata":{"name":"sample","namespace":"default","labels":{"kueue.x-k8s.io/queue-name":"lq"}},
  "spec":{"parallelism":1,"completions":1,"suspend":true,"template":{"spec":{"restartPolicy":"Never",
  "containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"2"}}}]}}}})";

vis::WhatIfQuery query(std::string body, std::string lq = "lq", std::string ns = "default") {
  return vis::WhatIfQuery{"v1beta2", std::move(ns), std::move(lq), std::move(body)};
}

struct Fixture {
  core::Engine engine;
  const core::Time now = core::time_from_seconds(1000);
  Fixture() {
    core::testing::apply_one_queue(engine, 4);
    EXPECT_TRUE(engine.apply(cpu_workload("running", 3, 0, 10, "lq")));
    engine.run_cycle(now);
    (void)engine.take_decisions();
  }
  vis::WhatIfResult ask(const std::string& body, std::string lq = "lq", std::string ns = "default") const {
    return answer_what_if(engine, query(body, std::move(lq), std::move(ns)), now, {});
  }
};

TEST(WhatIfRequest, AJobIsBuiltIntoItsWorkloadAndAnsweredWithoutChangingTheEngine) {
  Fixture f;
  const std::uint64_t before = f.engine.state_digest();
  vis::WhatIfResult r = f.ask(kJob);
  ASSERT_EQ(r.kind, vis::WhatIfResult::Kind::Answered) << r.message;
  EXPECT_EQ(r.answer.workload.rfind("default/job-sample-", 0), 0u) << r.answer.workload;
  EXPECT_EQ(r.answer.outcome, core::WhatIfAnswer::Outcome::Pending);
  EXPECT_EQ(r.answer.cluster_queue, "cq");
  EXPECT_EQ(r.answer.pending.reason, "WaitingForQuota");
  EXPECT_EQ(r.answer.pending.message,
            "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default-flavor, 1 "
            "more needed");
  EXPECT_EQ(r.answer.position_in_cluster_queue, 0);
  EXPECT_EQ(before, f.engine.state_digest());
  EXPECT_EQ(f.engine.workloads().size(), 1u);
}

TEST(WhatIfRequest, AJobWithoutTheLabelGoesToTheLocalQueueAsked) {
  Fixture f;
  std::string job = kJob;
  job.replace(job.find(R"("labels":{"kueue.x-k8s.io/queue-name":"lq"})"),
              std::string(R"("labels":{"kueue.x-k8s.io/queue-name":"lq"})").size(), R"("labels":{})");
  job.replace(job.find(R"("cpu":"2")"), 9, R"("cpu":"1")");
  vis::WhatIfResult r = f.ask(job);
  ASSERT_EQ(r.kind, vis::WhatIfResult::Kind::Answered) << r.message;
  EXPECT_EQ(r.answer.outcome, core::WhatIfAnswer::Outcome::Admitted);
  ASSERT_TRUE(r.answer.admission.has_value());
  EXPECT_EQ(r.answer.admission->pod_set_assignments[0].flavors.at("cpu"), "default-flavor");
}

TEST(WhatIfRequest, AWorkloadIsAskedAsSentWithoutItsStatus) {
  Fixture f;
  const std::string wl = R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload",
    "metadata":{"name":"mine","namespace":"default"},
    "spec":{"queueName":"lq","podSets":[{"name":"main","count":1,"template":{"spec":{"containers":[
      {"name":"c","resources":{"requests":{"cpu":"1"}}}]}}}]},
    "status":{"conditions":[{"type":"Finished","status":"True","reason":"Succeeded","message":"",
      "lastTransitionTime":"2026-01-01T00:00:00Z"}]}})";
  vis::WhatIfResult r = f.ask(wl);
  ASSERT_EQ(r.kind, vis::WhatIfResult::Kind::Answered) << r.message;
  EXPECT_EQ(r.answer.workload, "default/mine");
  EXPECT_EQ(r.answer.outcome, core::WhatIfAnswer::Outcome::Admitted);
}

TEST(WhatIfRequest, BodiesThatCannotBeAskedHereSayWhy) {
  Fixture f;
  auto invalid = [&](const std::string& body, const std::string& lq = "lq", const std::string& ns = "default") {
    vis::WhatIfResult r = f.ask(body, lq, ns);
    EXPECT_EQ(r.kind, vis::WhatIfResult::Kind::Invalid) << body;
    return r.message;
  };
  EXPECT_EQ(invalid("{not json"),
            "the body is not a JSON object: send a batch/v1 Job or a kueue.x-k8s.io/v1beta2 Workload");
  EXPECT_EQ(invalid(R"({"apiVersion":"v1","kind":"Pod"})"),
            "cannot ask about \"v1, Kind=Pod\": send a batch/v1 Job or a kueue.x-k8s.io/v1beta2 Workload");
  f.engine.apply(core::LocalQueue{"default", "other", "cq", core::StopPolicy::None, 1.0});
  EXPECT_EQ(invalid(kJob, "other"),
            "the Job's kueue.x-k8s.io/queue-name label names LocalQueue \"lq\", the question was asked of \"other\": "
            "ask that LocalQueue or change the label");
  std::string job = kJob;
  job.replace(job.find(R"("namespace":"default")"), 21, R"("namespace":"team-b")");
  EXPECT_EQ(invalid(job),
            "the Job is in namespace \"team-b\", the LocalQueue in \"default\": ask the LocalQueue of the Job's "
            "namespace");
  std::string bad_exec = kJob;
  bad_exec.replace(bad_exec.find(R"("labels":{)"), 10, R"("labels":{"kueue.x-k8s.io/max-exec-time-seconds":"-3",)");
  EXPECT_FALSE(invalid(bad_exec).empty());
  EXPECT_EQ(f.ask(kJob, "nope").kind, vis::WhatIfResult::Kind::LocalQueueNotFound);
}

TEST(WhatIfRequest, RuntimeHintsReadMaximumExecutionTimesOnce) {
  std::map<std::string, std::string, std::less<>> texts{
      {"default/limited", R"({"spec":{"maximumExecutionTimeSeconds":600}})"},
      {"default/unlimited", R"({"spec":{}})"}};
  int reads = 0;
  auto hints = runtime_hints([&](std::string_view key) -> std::string_view {
    ++reads;
    auto it = texts.find(key);
    return it == texts.end() ? std::string_view{} : std::string_view(it->second);
  });
  EXPECT_EQ(hints.maximum_execution_time("default/limited"), core::Duration(std::chrono::seconds(600)));
  EXPECT_EQ(hints.maximum_execution_time("default/limited"), core::Duration(std::chrono::seconds(600)));
  EXPECT_EQ(hints.maximum_execution_time("default/unlimited"), std::nullopt);
  EXPECT_EQ(hints.maximum_execution_time("default/unknown"), std::nullopt);
  EXPECT_EQ(reads, 3);
}

}  // namespace
}  // namespace kueuepp::actors
