// What Engine::has_work promises the tree actor, which skips a round when it says no: a
// cycle then finds no heads and decides nothing (the explanations decided on applying are
// taken without one). The echoes of the engine's own decisions are no work; a new
// workload, freed quota, an expiring backoff and a ready admission check are.

#include <gtest/gtest.h>

#include "core/engine/engine.hpp"
#include "tests/core/engine/test_objects.hpp"

namespace kueuepp::core {
namespace {

using testing::as_admitted;
using testing::as_explained;

const Time kNow = time_from_seconds(5000);

Workload job(const std::string& name, int cpu, int created) { return testing::cpu_workload(name, cpu, 0, created, "lq"); }

/// Asserts the promise: with no work, a cycle has no heads and decides nothing.
void expect_cycle_does_nothing(Engine& e, Time now) {
  ASSERT_FALSE(e.has_work(now));
  (void)e.take_decisions();
  CycleSummary s = e.run_cycle(now);
  EXPECT_EQ(s.heads, 0u);
  EXPECT_TRUE(e.take_decisions().empty());
}

TEST(EngineHasWork, TheEchoesOfItsOwnDecisionsAreNoWork) {
  Engine e;
  testing::apply_one_queue(e, 4);
  EXPECT_TRUE(e.has_work(kNow));  // a new topology
  e.run_cycle(kNow);
  EXPECT_FALSE(e.has_work(kNow));

  ASSERT_TRUE(e.apply(job("a", 3, 100)));
  EXPECT_TRUE(e.has_work(kNow));  // a head to evaluate
  e.run_cycle(kNow);
  Decisions admitted = e.take_decisions();
  ASSERT_EQ(admitted.admissions.size(), 1u);
  EXPECT_FALSE(e.has_work(kNow));

  // The admission write comes back: reserved and admitted as decided.
  ASSERT_TRUE(e.apply(as_admitted(job("a", 3, 100), admitted.admissions[0])));
  expect_cycle_does_nothing(e, kNow);

  // A workload that does not fit is evaluated once and parked with its explanation...
  ASSERT_TRUE(e.apply(job("big", 4, 200)));
  EXPECT_TRUE(e.has_work(kNow));
  e.run_cycle(kNow);
  Decisions explained = e.take_decisions();
  ASSERT_EQ(explained.pending.size(), 1u);
  EXPECT_FALSE(e.has_work(kNow));
  // ...and the explanation's write comes back: still parked, nothing to do.
  ASSERT_TRUE(e.apply(as_explained(job("big", 4, 200), explained.pending[0], kNow)));
  expect_cycle_does_nothing(e, kNow);
}

/// A 4-CPU queue full with "running", and `waiting` (4 CPUs) parked behind it with its
/// explanation taken.
void park_behind_a_full_queue(Engine& e, const std::string& waiting) {
  testing::apply_one_queue(e, 4);
  ASSERT_TRUE(e.apply(job("running", 4, 100)));
  e.run_cycle(kNow);
  ASSERT_EQ(e.take_decisions().admissions.size(), 1u);
  ASSERT_TRUE(e.apply(job(waiting, 4, 200)));
  e.run_cycle(kNow);
  ASSERT_EQ(e.take_decisions().pending.size(), 1u);
  ASSERT_FALSE(e.has_work(kNow));
}

TEST(EngineHasWork, AWorkloadJoiningAParkedClassIsExplainedWithoutACycle) {
  Engine e;
  ASSERT_NO_FATAL_FAILURE(park_behind_a_full_queue(e, "w0"));

  // Same shape: it joins the parked class and takes its words on applying.
  ASSERT_TRUE(e.apply(job("late", 4, 300)));
  EXPECT_FALSE(e.has_work(kNow));
  Decisions d = e.take_decisions();
  ASSERT_EQ(d.pending.size(), 1u);
  EXPECT_EQ(d.pending[0].workload, "default/late");
  EXPECT_EQ(d.pending[0].reason, "WaitingForQuota");
  expect_cycle_does_nothing(e, kNow);
}

TEST(EngineHasWork, FreedQuotaIsWork) {
  Engine e;
  ASSERT_NO_FATAL_FAILURE(park_behind_a_full_queue(e, "waiting"));

  ASSERT_TRUE(e.finish_workload("default/running"));
  EXPECT_TRUE(e.has_work(kNow));  // the parked workload competes again
  e.run_cycle(kNow);
  EXPECT_EQ(e.take_decisions().admissions.size(), 1u);
}

TEST(EngineHasWork, ARequeueBackoffIsWorkOnceItEnds) {
  Engine e;
  testing::apply_one_queue(e, 4);
  e.run_cycle(kNow);
  Workload held = job("held", 1, 100);
  held.requeue_at = kNow + std::chrono::seconds(10);
  ASSERT_TRUE(e.apply(held));
  expect_cycle_does_nothing(e, kNow);
  ASSERT_EQ(e.next_requeue_time(), held.requeue_at);

  const Time later = *held.requeue_at;
  EXPECT_TRUE(e.has_work(later));
  e.run_cycle(later);
  EXPECT_EQ(e.take_decisions().admissions.size(), 1u);
}

TEST(EngineHasWork, AnAdmissionCheckTurningReadyIsWork) {
  Engine e;
  e.apply(ResourceFlavor{"default-flavor", {}, {}, {}, {}});
  e.apply(AdmissionCheck{"prov", "example.com/controller", true});
  ClusterQueue cq = testing::cpu_cluster_queue("cq", {testing::cpu_quota("default-flavor", 4)});
  cq.admission_checks = {{"prov", {}}};
  e.apply(cq);
  e.apply(LocalQueue{"default", "lq", "cq", StopPolicy::None, 1.0});
  e.apply(testing::default_namespace());

  ASSERT_TRUE(e.apply(job("w", 1, 100)));
  e.run_cycle(kNow);
  Decisions reserved = e.take_decisions();
  ASSERT_EQ(reserved.admissions.size(), 1u);
  ASSERT_FALSE(reserved.admissions[0].admitted);

  Workload wl = as_admitted(job("w", 1, 100), reserved.admissions[0]);
  ASSERT_EQ(wl.admission_checks.size(), 1u);
  wl.admission_checks[0].state = CheckState::Ready;
  ASSERT_TRUE(e.apply(wl));
  EXPECT_TRUE(e.has_work(kNow));
  e.run_cycle(kNow);
  Decisions d = e.take_decisions();
  ASSERT_EQ(d.checks.size(), 1u);
  EXPECT_EQ(d.checks[0].kind, AdmissionCheckDecision::Kind::Admit);
}

}  // namespace
}  // namespace kueuepp::core
