// The engine's read-only queries that the controller calls at every status publish: they
// must agree with the full WorkloadView, for workloads in every state.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/engine/engine.hpp"
#include "tests/core/engine/local_queue_tallies_recount.hpp"
#include "tests/core/engine/test_objects.hpp"

namespace kueuepp::core {
namespace {

using testing::as_admitted;
using testing::cpu_workload;

void setup(Engine& e) { testing::apply_one_queue(e, 4); }

using Tally = testing::TallyCounts;

std::map<std::string, Tally> tallies(const Engine& e) { return testing::kept_tallies(e); }

/// "cq ns lq" -> count.
std::map<std::string, std::size_t> finished(const Engine& e) {
  std::map<std::string, std::size_t> out;
  e.for_each_finished_tally([&](const FinishedTally& f) {
    out[std::string(f.cluster_queue) + " " + std::string(f.ns) + " " + std::string(f.local_queue)] += f.count;
  });
  return out;
}

Workload finished_object(const std::string& name, const std::string& local_queue, const std::string& cluster_queue) {
  Workload wl = cpu_workload(name, 1, 0, 100, local_queue);
  Admission a;
  a.cluster_queue = cluster_queue;
  wl.admission = a;
  Condition done;
  done.type = "Finished";
  done.status = true;
  wl.conditions.push_back(done);
  return wl;
}

TEST(EngineQueries, TalliesGroupTheWorkloadViewsByLocalQueue) {
  Engine e;
  setup(e);
  e.apply(LocalQueue{"default", "lq2", "cq", StopPolicy::None, 1.0});
  e.apply(LocalQueue{"team-b", "lq", "cq", StopPolicy::None, 1.0});
  e.apply(Namespace{"team-b", {}});
  ASSERT_TRUE(e.apply(cpu_workload("running", 3, 0, 100, "lq")));
  e.run_cycle(time_from_seconds(1000));
  ASSERT_TRUE(e.apply(cpu_workload("done", 1, 0, 101, "lq")));
  e.run_cycle(time_from_seconds(1001));
  ASSERT_TRUE(e.finish_workload("default/done"));
  ASSERT_TRUE(e.apply(cpu_workload("waiting", 4, 0, 102, "lq")));
  ASSERT_TRUE(e.apply(cpu_workload("waiting-too", 2, 0, 103, "lq")));
  ASSERT_TRUE(e.apply(cpu_workload("other", 1, 0, 104, "lq2")));
  ASSERT_TRUE(e.apply(cpu_workload("elsewhere", 2, 0, 105, "lq", "team-b")));
  ASSERT_TRUE(e.apply(cpu_workload("lost", 1, 0, 106, "no-such-queue")));
  for (int t = 1002; t < 1008; ++t) e.run_cycle(time_from_seconds(t));  // one head per cycle

  // What the views say, grouped by hand (the local queue is the one each was created in).
  const std::map<std::string, std::string> queue_of = {
      {"default/running", "default lq"}, {"default/waiting", "default lq"}, {"default/waiting-too", "default lq"},
      {"default/other", "default lq2"},  {"team-b/elsewhere", "team-b lq"}};
  for (const auto& view : e.workloads()) {
    EXPECT_TRUE(queue_of.count(view.key) != 0 || view.finished || view.key == "default/lost") << view.key;
  }
  const auto expected = testing::recounted_tallies(e, [&](const std::string& key) { return queue_of.at(key); });
  EXPECT_EQ(tallies(e), expected);
  // And in figures: "running" (3) and "other" (1) hold the 4 CPUs, the rest wait.
  const Tally lq = tallies(e).at("cq default lq");
  EXPECT_EQ(lq.pending, 2);
  EXPECT_EQ(lq.reserving, 1);
  EXPECT_EQ(lq.admitted, 1);
  EXPECT_EQ(lq.reserved.at({"default-flavor", "cpu"}), 3000);
  EXPECT_EQ(lq.used.at({"default-flavor", "cpu"}), 3000);
  EXPECT_EQ(tallies(e).at("cq default lq2").reserving, 1);
  EXPECT_EQ(tallies(e).at("cq team-b lq").pending, 1);
  // A finished workload is counted in the queue its admission names; finished here by
  // the engine, it keeps the queue it was admitted to.
  EXPECT_EQ(finished(e), (std::map<std::string, std::size_t>{{"cq default lq", 1}}));
}

TEST(EngineQueries, TalliesFollowAQueueRenameAndAClusterQueueRemoval) {
  Engine e;
  setup(e);
  e.apply(LocalQueue{"default", "lq2", "cq", StopPolicy::None, 1.0});
  const Workload running = cpu_workload("running", 3, 0, 100, "lq");
  ASSERT_TRUE(e.apply(running));
  e.run_cycle(time_from_seconds(1000));
  Decisions d = e.take_decisions();
  ASSERT_EQ(d.admissions.size(), 1u);
  ASSERT_TRUE(e.apply(as_admitted(running, d.admissions[0])));  // its admission written
  ASSERT_TRUE(e.apply(cpu_workload("waiting", 4, 0, 101, "lq")));
  EXPECT_EQ(tallies(e).at("cq default lq").pending, 1);
  EXPECT_EQ(tallies(e).at("cq default lq").reserving, 1);

  // The pending one moves to lq2; then the admitted one's object names lq2 too.
  ASSERT_TRUE(e.apply(cpu_workload("waiting", 4, 0, 101, "lq2")));
  EXPECT_EQ(tallies(e).at("cq default lq").pending, 0);
  EXPECT_EQ(tallies(e).at("cq default lq2").pending, 1);
  Workload moved = as_admitted(running, d.admissions[0]);
  moved.queue_name = "lq2";
  ASSERT_TRUE(e.apply(moved));
  EXPECT_EQ(tallies(e).count("cq default lq"), 0u) << "a LocalQueue left without workloads is not listed";
  const Tally lq2 = tallies(e).at("cq default lq2");
  EXPECT_EQ(lq2.pending, 1);
  EXPECT_EQ(lq2.reserving, 1);
  EXPECT_EQ(lq2.admitted, 1);
  EXPECT_EQ(lq2.used.at({"default-flavor", "cpu"}), 3000);

  // Without its ClusterQueue neither is in a queue any more: counted nowhere; both are
  // again when it is back.
  e.remove_cluster_queue("cq");
  EXPECT_TRUE(tallies(e).empty());
  e.apply(testing::cpu_cluster_queue("cq", {testing::cpu_quota("default-flavor", 4)}));
  EXPECT_EQ(tallies(e).at("cq default lq2").pending, 1);
  EXPECT_EQ(tallies(e).at("cq default lq2").reserving, 1);
}

TEST(EngineQueries, AFinishedWorkloadAppliedFromItsObjectCountsInTheQueueItsAdmissionNames) {
  Engine e;
  setup(e);
  ASSERT_TRUE(e.apply(finished_object("old", "lq", "cq")));
  EXPECT_TRUE(tallies(e).empty());
  EXPECT_EQ(finished(e), (std::map<std::string, std::size_t>{{"cq default lq", 1}}));
}

TEST(EngineQueries, FinishedCountsFollowEveryChangeOfAFinishedWorkload) {
  Engine e;
  setup(e);
  ASSERT_TRUE(e.apply(finished_object("a", "lq", "cq")));
  ASSERT_TRUE(e.apply(finished_object("b", "lq", "cq")));
  ASSERT_TRUE(e.apply(finished_object("a", "lq", "cq")));  // the same again: counted once
  EXPECT_EQ(finished(e), (std::map<std::string, std::size_t>{{"cq default lq", 2}}));
  // Its object names other queues now: it moves.
  ASSERT_TRUE(e.apply(finished_object("b", "other-lq", "other-cq")));
  EXPECT_EQ(finished(e), (std::map<std::string, std::size_t>{{"cq default lq", 1}, {"other-cq default other-lq", 1}}));
  // No longer finished (its Finished condition was removed): counted as pending again.
  ASSERT_TRUE(e.apply(cpu_workload("a", 1, 0, 100, "lq")));
  EXPECT_EQ(finished(e), (std::map<std::string, std::size_t>{{"other-cq default other-lq", 1}}));
  EXPECT_EQ(tallies(e).at("cq default lq").pending, 1);
  // Finished by the engine twice, and deleted.
  e.run_cycle(time_from_seconds(1000));
  ASSERT_TRUE(e.finish_workload("default/a"));
  ASSERT_TRUE(e.finish_workload("default/a"));
  EXPECT_EQ(finished(e), (std::map<std::string, std::size_t>{{"cq default lq", 1}, {"other-cq default other-lq", 1}}));
  e.remove_workload("default/b");
  e.remove_workload("default/a");
  EXPECT_TRUE(finished(e).empty());
  EXPECT_TRUE(tallies(e).empty());
  // A new workload takes a removed one's place (its id) and is counted.
  ASSERT_TRUE(e.apply(cpu_workload("c", 9, 0, 110, "lq")));
  EXPECT_EQ(tallies(e).at("cq default lq").pending, 1);
}

TEST(EngineQueries, ALimitedQueueOrderIsThePrefixOfTheWholeOne) {
  Engine e;
  setup(e);
  // Priorities and creation times out of step, so that order is not insertion order.
  for (int i = 0; i < 12; ++i) {
    ASSERT_TRUE(e.apply(cpu_workload("w" + std::to_string(i), 5, (i * 7) % 4, 100 + (i * 5) % 12, "lq")));
  }
  e.run_cycle(time_from_seconds(1000));
  auto all = e.pending_in_order("cq");
  ASSERT_EQ(all.size(), 12u);
  for (std::size_t limit : {0u, 1u, 5u, 12u, 50u}) {
    auto some = e.pending_in_order("cq", limit);
    ASSERT_EQ(some.size(), std::min<std::size_t>(limit, all.size())) << limit;
    EXPECT_TRUE(std::equal(some.begin(), some.end(), all.begin())) << limit;
  }
  for (const auto& key : all) EXPECT_EQ(e.pending_status(key).message, e.workload(key, false)->pending.message) << key;
  EXPECT_TRUE(e.pending_status("default/nope").reason.empty());
}

}  // namespace
}  // namespace kueuepp::core
