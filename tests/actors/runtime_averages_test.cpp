// The runtimes a cohort tree remembers per ClusterQueue for what-if start estimates: the
// average of each queue's last runtimes, a workload's runtime from its Admitted and
// Finished transitions, and the estimate a pending answer then gets from them.

#include "actors/runtime_averages.hpp"

#include <gtest/gtest.h>

#include "actors/what_if_request.hpp"
#include "tests/core/engine/test_objects.hpp"

namespace kueuepp::actors {
namespace {

using std::chrono::seconds;

TEST(RuntimeAverages, EachQueueAveragesItsLastRuntimes) {
  RuntimeAverages averages(3);
  EXPECT_TRUE(averages.averages().empty());
  averages.record("a", seconds(10));
  averages.record("a", seconds(20));
  averages.record("b", seconds(5));
  EXPECT_EQ(averages.averages().at("a"), seconds(15));
  EXPECT_EQ(averages.averages().at("b"), seconds(5));
  // The window keeps the last three: 20, 30, 40.
  averages.record("a", seconds(30));
  averages.record("a", seconds(40));
  EXPECT_EQ(averages.averages().at("a"), seconds(30));
  // No queue, or a negative runtime, is not recorded.
  averages.record("", seconds(1));
  averages.record("c", seconds(-1));
  EXPECT_EQ(averages.averages().size(), 2u);
}

TEST(RuntimeAverages, AWorkloadRanFromItsAdmissionToItsFinish) {
  using core::testing::cond;
  core::Workload wl = core::testing::cpu_workload("w", 1, 0, 10, "lq");
  const core::Time admitted = core::time_from_seconds(100);
  wl.conditions = {cond("Admitted", true, "Admitted", admitted)};
  EXPECT_FALSE(runtime_of(wl));  // not finished
  wl.conditions.push_back(cond("Finished", true, "Succeeded", core::time_from_seconds(160)));
  ASSERT_TRUE(runtime_of(wl));
  EXPECT_EQ(*runtime_of(wl), seconds(60));
  wl.conditions[0].status = false;  // never admitted (finished while pending)
  EXPECT_FALSE(runtime_of(wl));
  wl.conditions[0] = cond("Admitted", true, "Admitted", core::time_from_seconds(200));
  EXPECT_FALSE(runtime_of(wl));  // times out of order
}

TEST(RuntimeAverages, APendingAnswerEstimatesItsStartFromTheQueuesAverage) {
  core::Engine engine;
  const core::Time now = core::time_from_seconds(1000);
  core::testing::apply_one_queue(engine, 4);
  ASSERT_TRUE(engine.apply(core::testing::cpu_workload("running", 3, 0, 10, "lq")));
  engine.run_cycle(now);
  (void)engine.take_decisions();
  const char* job = R"({"apiVersion":"batch/v1","kind":"Job",
    "metadata":{"name":"sample","namespace":"default","labels":{"kueue.x-k8s.io/queue-name":"lq"}},
    "spec":{"parallelism":1,"completions":1,"suspend":true,"template":{"spec":{"restartPolicy":"Never",
    "containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"2"}}}]}}}})";
  kube::visibility::WhatIfQuery query{"v1beta2", "default", "lq", job};

  auto without = answer_what_if(engine, query, now, {});
  ASSERT_EQ(without.answer.outcome, core::WhatIfAnswer::Outcome::Pending);
  EXPECT_FALSE(without.answer.estimate.has_value());

  RuntimeAverages averages;
  averages.record("cq", seconds(600));
  core::RuntimeHints hints;
  hints.average_runtime = averages.averages();
  auto with = answer_what_if(engine, query, now, hints);
  ASSERT_EQ(with.answer.outcome, core::WhatIfAnswer::Outcome::Pending);
  ASSERT_TRUE(with.answer.estimate.has_value()) << with.answer.estimate_note;
  EXPECT_TRUE(with.answer.estimate->used_average_runtime);
  EXPECT_GT(with.answer.estimate->at, now);
}

}  // namespace
}  // namespace kueuepp::actors
