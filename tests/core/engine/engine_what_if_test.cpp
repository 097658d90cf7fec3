// Engine::what_if: the answer for a workload not yet submitted is what happens when it is
// applied and one cycle runs with nothing else changing (compared on a thousand generated
// clusters), the question leaves the engine's state digest as it was, and the start
// estimate of a pending workload follows the runtimes it is given.

#include <gtest/gtest.h>

#include <random>

#include "core/engine/engine.hpp"
#include "tests/core/engine/generated_cluster.hpp"
#include "tests/core/engine/test_objects.hpp"

namespace kueuepp::core {
namespace {

using testing::apply_one_queue;
using testing::cpu_workload;

/// The answer as read from an engine after the cycle (the live one, after really
/// applying the workload): the same reading what_if makes on its copy.
WhatIfAnswer observed(const Engine& engine, const std::string& key, const Decisions& d) {
  WhatIfAnswer a;
  a.workload = key;
  for (const auto& e : d.evictions) {
    if (e.preemptor == key) a.victims.push_back({e.workload, e.cluster_queue, e.preemption_reason, e.message});
  }
  auto v = engine.workload(key);
  a.cluster_queue = v->cluster_queue;
  if (v->reserved) {
    a.outcome = WhatIfAnswer::Outcome::Admitted;
    a.admission = v->admission;
    a.checks_ready = v->admitted;
    return a;
  }
  a.outcome = a.victims.empty() ? WhatIfAnswer::Outcome::Pending : WhatIfAnswer::Outcome::Preempting;
  a.pending = v->pending;
  a.position_in_cluster_queue = v->position;
  return a;
}

/// Runs up to `cycles` cycles, stopping evictions at once.
void run(Engine& engine, Time& now, int cycles) {
  for (int c = 0; c < cycles; ++c) {
    engine.run_cycle(now);
    now += std::chrono::seconds(1);
    for (const auto& e : engine.take_decisions().evictions) (void)engine.complete_eviction(e.workload);
  }
}

TEST(EngineWhatIf, AnswerIsWhatOneCycleDoesAndTheQuestionChangesNothing) {
  int admitted = 0;
  int preempting = 0;
  int pending = 0;
  for (std::uint64_t seed = 1; seed <= 1000; ++seed) {
    testing::Generated g = testing::generate(seed);
    std::mt19937_64 rng(seed * 7919);
    Engine engine(g.config);
    for (const auto& f : g.flavors) engine.apply(f);
    for (const auto& c : g.cohorts) engine.apply(c);
    for (const auto& cq : g.cqs) engine.apply(cq);
    for (const auto& lq : g.lqs) engine.apply(lq);
    Time now = time_from_seconds(100000);
    // A cluster part way through its life: some admitted, some finished, some pending,
    // and (sometimes) workloads just applied that the next cycle has not seen yet.
    const std::size_t settled = g.workloads.size() - rng() % 3;
    for (std::size_t i = 0; i < settled; ++i) (void)engine.apply(g.workloads[i]);
    run(engine, now, static_cast<int>(rng() % 30));
    for (const auto& v : engine.workloads()) {
      if (v.reserved && rng() % 3 == 0) (void)engine.finish_workload(v.key);
    }
    run(engine, now, static_cast<int>(rng() % 3));
    for (std::size_t i = settled; i < g.workloads.size(); ++i) (void)engine.apply(g.workloads[i]);
    (void)engine.take_decisions();

    Workload asked = testing::generate_workload(rng, g, 999);
    asked.name = "asked";
    asked.uid = "uid-asked";
    asked.creation = now;
    if (rng() % 2 == 0) asked.priority = 30;  // above every running one: preemption candidates
    const std::uint64_t before = engine.state_digest();
    WhatIfAnswer answer = engine.what_if(asked, now);
    ASSERT_EQ(before, engine.state_digest()) << "seed " << seed << ": the question changed the engine";

    (void)engine.apply(asked);
    (void)engine.take_decisions();
    engine.run_cycle(now);
    Decisions d = engine.take_decisions();
    WhatIfAnswer real = observed(engine, asked.key(), d);
    const std::string where = "seed " + std::to_string(seed);
    ASSERT_EQ(outcome_name(answer.outcome), outcome_name(real.outcome)) << where;
    EXPECT_EQ(answer.cluster_queue, real.cluster_queue) << where;
    EXPECT_EQ(answer.victims, real.victims) << where;
    EXPECT_EQ(answer.pending.reason, real.pending.reason) << where;
    EXPECT_EQ(answer.pending.message, real.pending.message) << where;
    EXPECT_EQ(answer.position_in_cluster_queue, real.position_in_cluster_queue) << where;
    if (real.outcome == WhatIfAnswer::Outcome::Admitted) {
      EXPECT_EQ(answer.admission, real.admission) << where;
      EXPECT_EQ(answer.checks_ready, real.checks_ready) << where;
    }
    admitted += real.outcome == WhatIfAnswer::Outcome::Admitted;
    preempting += real.outcome == WhatIfAnswer::Outcome::Preempting;
    pending += real.outcome == WhatIfAnswer::Outcome::Pending;
  }
  // Every kind of answer is exercised.
  EXPECT_GT(admitted, 100);
  EXPECT_GT(preempting, 20);
  EXPECT_GT(pending, 100);
}

TEST(EngineWhatIf, PendingAnswerSaysWhyWhereAndWhenByTheRuntimesGiven) {
  Engine engine;
  apply_one_queue(engine, 4);
  const Time t0 = time_from_seconds(1000);
  (void)engine.apply(cpu_workload("running", 3, 0, 10, "lq"));
  (void)engine.apply(cpu_workload("waiting", 3, 0, 20, "lq"));
  engine.run_cycle(t0);
  engine.run_cycle(t0);
  (void)engine.take_decisions();
  const Time now = t0 + std::chrono::seconds(30);
  Workload asked = cpu_workload("asked", 2, 0, 40, "lq");

  RuntimeHints average;
  average.average_runtime["cq"] = std::chrono::seconds(100);
  WhatIfAnswer a = engine.what_if(asked, now, average);
  EXPECT_EQ(a.outcome, WhatIfAnswer::Outcome::Pending);
  EXPECT_EQ(a.pending.reason, "WaitingForQuota");
  EXPECT_EQ(a.pending.message, "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default-flavor, 1 more needed");
  EXPECT_EQ(a.position_in_cluster_queue, 1);
  EXPECT_EQ(a.position_in_local_queue, 1);
  // "running" ends at t0+100s, "waiting" takes its place; it ends at t0+200s.
  ASSERT_TRUE(a.estimate.has_value()) << a.estimate_note;
  EXPECT_EQ(a.estimate->at, t0 + std::chrono::seconds(200));
  EXPECT_TRUE(a.estimate->used_average_runtime);
  EXPECT_FALSE(a.estimate->used_maximum_execution_time);
  EXPECT_EQ(a.estimate->completions, 2u);

  RuntimeHints limits = average;
  limits.maximum_execution_time = [](std::string_view key) -> std::optional<Duration> {
    if (key == "default/running") return std::chrono::seconds(50);
    return std::nullopt;
  };
  WhatIfAnswer b = engine.what_if(asked, now, limits);
  ASSERT_TRUE(b.estimate.has_value()) << b.estimate_note;
  EXPECT_EQ(b.estimate->at, t0 + std::chrono::seconds(150));  // 50 s by its limit, then 100 s on average
  EXPECT_TRUE(b.estimate->used_maximum_execution_time);
  EXPECT_TRUE(b.estimate->used_average_runtime);

  WhatIfAnswer none = engine.what_if(asked, now);
  EXPECT_FALSE(none.estimate.has_value());
  EXPECT_EQ(none.estimate_note, "no running workload has a maximum execution time or a ClusterQueue average runtime");
}

TEST(EngineWhatIf, PreemptingAnswerNamesVictimsRuleAndTheFlavorsAfter) {
  Engine engine;
  apply_one_queue(engine, 4);
  ClusterQueue cq = testing::cpu_cluster_queue("cq", {testing::cpu_quota("default-flavor", 4)});
  cq.preemption.within_cluster_queue = PreemptionPolicy::LowerPriority;
  engine.apply(cq);
  const Time t0 = time_from_seconds(1000);
  (void)engine.apply(cpu_workload("low", 4, 0, 10, "lq"));
  engine.run_cycle(t0);
  (void)engine.take_decisions();
  WhatIfAnswer a = engine.what_if(cpu_workload("high", 2, 100, 20, "lq"), t0);
  ASSERT_EQ(a.outcome, WhatIfAnswer::Outcome::Preempting);
  ASSERT_EQ(a.victims.size(), 1u);
  EXPECT_EQ(a.victims[0].workload, "default/low");
  EXPECT_EQ(a.victims[0].reason, "InClusterQueue");
  EXPECT_EQ(a.pending.reason, "WaitingForPreemptedWorkloads");
  ASSERT_TRUE(a.admission.has_value());
  EXPECT_EQ(a.admission->pod_set_assignments[0].flavors.at("cpu"), "default-flavor");
  // Nothing was evicted for real.
  EXPECT_FALSE(engine.workload("default/low")->evicted);
  EXPECT_FALSE(engine.workload("default/high").has_value());
}

}  // namespace
}  // namespace kueuepp::core
