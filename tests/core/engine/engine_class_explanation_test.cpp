// Workloads of one equivalence class wait together once one of them was found not to
// fit (Kueue's scheduling-equivalence hashing): only that one is evaluated, yet every
// member must say why it is pending, including one that joins the class later.

#include <gtest/gtest.h>

#include <set>

#include "core/engine/engine.hpp"
#include "tests/core/engine/test_objects.hpp"

namespace kueuepp::core {
namespace {


void setup(Engine& e) { testing::apply_one_queue(e, 4); }

Workload job(const std::string& name, int created) { return testing::cpu_workload(name, 4, 0, created, "lq"); }

/// "a" (2 CPUs) and "b" (1 CPU) admitted: one of the queue's 4 CPUs stays free.
void admit_three_of_four_cpus(Engine& e) {
  ASSERT_TRUE(e.apply(testing::cpu_workload("a", 2, 0, 100, "lq")));
  ASSERT_TRUE(e.apply(testing::cpu_workload("b", 1, 0, 101, "lq")));
  e.run_cycle(time_from_seconds(1000));
  e.run_cycle(time_from_seconds(1001));
  ASSERT_EQ(e.take_decisions().admissions.size(), 2u);
}

std::set<std::string> explained(const Decisions& d, const std::string& reason) {
  std::set<std::string> out;
  for (const auto& p : d.pending) {
    if (p.reason == reason) out.insert(p.workload);
  }
  return out;
}

TEST(EngineClassExplanation, EveryMemberOfAParkedClassSaysWhyItWaits) {
  Engine e;
  setup(e);
  ASSERT_TRUE(e.apply(job("running", 100)));
  e.run_cycle(time_from_seconds(1000));
  ASSERT_EQ(e.take_decisions().admissions.size(), 1u);

  for (int i = 0; i < 3; ++i) ASSERT_TRUE(e.apply(job("w" + std::to_string(i), 200 + i)));
  CycleSummary s = e.run_cycle(time_from_seconds(1001));
  EXPECT_EQ(s.heads, 1u);  // w0 evaluated, the class parked with it
  EXPECT_EQ(e.run_cycle(time_from_seconds(1002)).heads, 0u);
  Decisions d = e.take_decisions();
  EXPECT_EQ(explained(d, "WaitingForQuota"), (std::set<std::string>{"default/w0", "default/w1", "default/w2"}));
  for (const char* key : {"default/w1", "default/w2"}) {
    auto view = e.workload(key, false);
    ASSERT_TRUE(view) << key;
    EXPECT_EQ(view->pending.reason, "WaitingForQuota") << key;
  }

  // A late member waits with the class, and says so at once.
  ASSERT_TRUE(e.apply(job("late", 300)));
  EXPECT_EQ(e.run_cycle(time_from_seconds(1003)).heads, 0u);
  EXPECT_EQ(explained(e.take_decisions(), "WaitingForQuota"), (std::set<std::string>{"default/late"}));

  // Echoes of the same objects write nothing new.
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(e.apply(job("w" + std::to_string(i), 200 + i)));
  e.run_cycle(time_from_seconds(1004));
  EXPECT_TRUE(e.take_decisions().pending.empty());
}

TEST(EngineClassExplanation, ANewExplanationReachesEveryMemberOnceAndTheSameOneNothing) {
  Engine e;
  setup(e);
  ASSERT_NO_FATAL_FAILURE(admit_three_of_four_cpus(e));

  for (int i = 0; i < 4; ++i) ASSERT_TRUE(e.apply(job("w" + std::to_string(i), 200 + i)));
  for (int c = 0; c < 3; ++c) e.run_cycle(time_from_seconds(1002 + c));
  Decisions first = e.take_decisions();
  EXPECT_EQ(explained(first, "WaitingForQuota").size(), 4u);
  const std::string before = e.workload("default/w3", false)->pending.message;

  // Quota freed, yet not enough: the head is evaluated again and its words change (less
  // is missing); every member takes them, each exactly once.
  ASSERT_TRUE(e.finish_workload("default/b"));
  for (int c = 0; c < 3; ++c) e.run_cycle(time_from_seconds(1010 + c));
  Decisions second = e.take_decisions();
  EXPECT_EQ(second.admissions.size(), 0u);
  EXPECT_EQ(second.pending.size(), 4u);
  EXPECT_EQ(explained(second, "WaitingForQuota").size(), 4u);
  const std::string after = e.workload("default/w0", false)->pending.message;
  EXPECT_NE(after, before);
  for (int i = 0; i < 4; ++i) {
    const std::string key = "default/w" + std::to_string(i);
    EXPECT_EQ(e.workload(key, false)->pending.message, after) << key;
    EXPECT_EQ(e.pending_status(key).message, after) << key;
  }

  // Evaluated again with the same outcome (a small workload comes and goes, which
  // flushes the queue): nothing to say, to anyone.
  ASSERT_TRUE(e.apply(testing::cpu_workload("d", 1, 0, 150, "lq")));
  e.run_cycle(time_from_seconds(1020));
  ASSERT_EQ(e.take_decisions().admissions.size(), 1u);
  ASSERT_TRUE(e.finish_workload("default/d"));
  CycleSummary again = e.run_cycle(time_from_seconds(1021));
  EXPECT_EQ(again.heads, 1u);
  EXPECT_TRUE(e.take_decisions().pending.empty());
  EXPECT_EQ(e.workload("default/w3", false)->pending.message, after);
}

TEST(EngineClassExplanation, AWorkloadJoiningWithOtherWordsIsToldAtTheNextEvaluation) {
  Engine e;
  setup(e);
  ASSERT_NO_FATAL_FAILURE(admit_three_of_four_cpus(e));
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(e.apply(job("w" + std::to_string(i), 200 + i)));
  for (int c = 0; c < 3; ++c) e.run_cycle(time_from_seconds(1002 + c));
  ASSERT_EQ(explained(e.take_decisions(), "WaitingForQuota").size(), 2u);
  const std::string words = e.workload("default/w0", false)->pending.message;

  // A workload of the same shape waits in a LocalQueue that does not exist, then moves
  // to the class's queue: it joins the parked class still saying why it waited before.
  ASSERT_TRUE(e.apply(testing::cpu_workload("x", 4, 0, 300, "missing")));
  e.run_cycle(time_from_seconds(1010));
  (void)e.take_decisions();
  ASSERT_NE(e.workload("default/x", false)->pending.message, words);
  ASSERT_TRUE(e.apply(job("x", 300)));
  e.run_cycle(time_from_seconds(1011));
  (void)e.take_decisions();

  // The class head is evaluated again with the same outcome (a small workload comes and
  // goes): the members told before hear nothing, the newcomer hears the class's words.
  ASSERT_TRUE(e.apply(testing::cpu_workload("d", 1, 0, 150, "lq")));
  e.run_cycle(time_from_seconds(1020));
  ASSERT_EQ(e.take_decisions().admissions.size(), 1u);
  ASSERT_TRUE(e.finish_workload("default/d"));
  EXPECT_EQ(e.run_cycle(time_from_seconds(1021)).heads, 1u);
  EXPECT_EQ(explained(e.take_decisions(), "WaitingForQuota"), (std::set<std::string>{"default/x"}));
  EXPECT_EQ(e.workload("default/x", false)->pending.message, words);
}

/// Cohort "co": "cq" lends 4 CPUs; "cq-b" and "cq-c" own none and borrow them.
void setup_borrowing_cohort(Engine& e) {
  e.apply(ResourceFlavor{"default-flavor", {}, {}, {}, {}});
  for (const auto& [name, cpus] : {std::pair<std::string, int>{"cq", 4}, {"cq-b", 0}, {"cq-c", 0}}) {
    ClusterQueue cq = testing::cpu_cluster_queue(name, {testing::cpu_quota("default-flavor", cpus)});
    cq.cohort = "co";
    e.apply(cq);
  }
  e.apply(LocalQueue{"default", "lq", "cq", StopPolicy::None, 1.0});
  e.apply(LocalQueue{"default", "lq-b", "cq-b", StopPolicy::None, 1.0});
  e.apply(LocalQueue{"default", "lq-c", "cq-c", StopPolicy::None, 1.0});
  e.apply(testing::default_namespace());
}

TEST(EngineClassExplanation, AHeadBackToTheClassWordsIsToldAloneWithoutAWalk) {
  Engine e;
  setup_borrowing_cohort(e);
  ASSERT_NO_FATAL_FAILURE(admit_three_of_four_cpus(e));
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(e.apply(testing::cpu_workload("w" + std::to_string(i), 2, 0, 200 + i, "lq-b")));
  }
  for (int c = 0; c < 3; ++c) e.run_cycle(time_from_seconds(1002 + c));
  ASSERT_EQ(explained(e.take_decisions(), "WaitingForQuota").size(), 4u);
  const std::string words = e.workload("default/w0", false)->pending.message;
  const std::uint64_t walks = e.class_walks();

  // "b" ends (2 CPUs free) as a higher-priority 1-CPU workload comes to another queue:
  // both fit the cycle's snapshot, the other goes first (both borrow), and the class's
  // head no longer fits. It alone says so.
  ASSERT_TRUE(e.finish_workload("default/b"));
  ASSERT_TRUE(e.apply(testing::cpu_workload("z", 1, 10, 300, "lq-c")));
  CycleSummary both = e.run_cycle(time_from_seconds(1010));
  ASSERT_EQ(both.heads, 2u);
  Decisions nominated = e.take_decisions();
  ASSERT_EQ(nominated.admissions.size(), 1u);
  ASSERT_EQ(nominated.pending.size(), 1u);
  EXPECT_EQ(nominated.pending[0].workload, "default/w0");
  EXPECT_NE(e.workload("default/w0", false)->pending.message, words);

  // Evaluated again, the head finds what the class was told (1 CPU free): it is told
  // again, the members are not, and nobody walks the class to find that out.
  for (int c = 0; c < 3; ++c) e.run_cycle(time_from_seconds(1011 + c));
  EXPECT_EQ(explained(e.take_decisions(), "WaitingForQuota"), (std::set<std::string>{"default/w0"}));
  for (int i = 0; i < 4; ++i) {
    const std::string key = "default/w" + std::to_string(i);
    EXPECT_EQ(e.workload(key, false)->pending.message, words) << key;
  }
  EXPECT_EQ(e.class_walks(), walks);
}

}  // namespace
}  // namespace kueuepp::core
