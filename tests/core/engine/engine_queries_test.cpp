// The engine's read-only queries that the controller calls at every status publish: they
// must agree with the full WorkloadView, for workloads in every state.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/engine/engine.hpp"
#include "tests/core/engine/test_objects.hpp"

namespace kueuepp::core {
namespace {

using testing::cpu_workload;

void setup(Engine& e) { testing::apply_one_queue(e, 4); }

struct Tally {
  std::string local_queue, cluster_queue;
  bool reserved = false, admitted = false;
  std::map<std::pair<std::string, std::string>, std::int64_t> usage;
};

std::map<std::string, Tally> tallies(const Engine& e) {
  std::map<std::string, Tally> out;
  e.for_each_workload_tally([&](const WorkloadTally& w) {
    Tally& t = out[std::string(w.key)];
    t.local_queue = w.local_queue;
    t.cluster_queue = w.cluster_queue;
    t.reserved = w.reserved;
    t.admitted = w.admitted;
    for (const auto& u : *w.usage) t.usage[{std::string(u.flavor), std::string(u.resource)}] += u.milli;
  });
  return out;
}

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

TEST(EngineQueries, TalliesAgreeWithTheWorkloadViews) {
  Engine e;
  setup(e);
  ASSERT_TRUE(e.apply(cpu_workload("running", 3, 0, 100, "lq")));
  e.run_cycle(time_from_seconds(1000));
  ASSERT_TRUE(e.apply(cpu_workload("done", 1, 0, 101, "lq")));
  e.run_cycle(time_from_seconds(1001));
  ASSERT_TRUE(e.finish_workload("default/done"));
  ASSERT_TRUE(e.apply(cpu_workload("waiting", 4, 0, 102, "lq")));
  ASSERT_TRUE(e.apply(cpu_workload("lost", 1, 0, 103, "no-such-queue")));
  e.run_cycle(time_from_seconds(1002));

  auto t = tallies(e);
  ASSERT_EQ(t.size(), 3u);  // the finished one is counted apart
  for (const auto& view : e.workloads()) {
    SCOPED_TRACE(view.key);
    if (view.finished) {
      EXPECT_EQ(t.count(view.key), 0u);
      continue;
    }
    const Tally& w = t.at(view.key);
    EXPECT_EQ(w.reserved, view.reserved);
    EXPECT_EQ(w.admitted, view.admitted);
    EXPECT_EQ(w.cluster_queue, view.cluster_queue);
    std::map<std::pair<std::string, std::string>, std::int64_t> usage;
    if (view.admission) {
      for (const auto& ps : view.admission->pod_set_assignments) {
        for (const auto& [r, q] : ps.resource_usage) usage[{ps.flavors.at(r), r}] += q.milli();
      }
    }
    EXPECT_EQ(w.usage, usage);
  }
  EXPECT_EQ(t.at("default/running").usage.at({"default-flavor", "cpu"}), 3000);
  EXPECT_EQ(t.at("default/waiting").cluster_queue, "cq");
  EXPECT_EQ(t.at("default/waiting").local_queue, "lq");
  EXPECT_EQ(t.at("default/lost").cluster_queue, "");
  // A finished workload is counted in the queue its admission names; finished here by
  // the engine, it keeps the queue it was admitted to.
  EXPECT_EQ(finished(e), (std::map<std::string, std::size_t>{{"cq default lq", 1}}));
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
  EXPECT_EQ(tallies(e).count("default/a"), 1u);
  // Finished by the engine twice, and deleted.
  e.run_cycle(time_from_seconds(1000));
  ASSERT_TRUE(e.finish_workload("default/a"));
  ASSERT_TRUE(e.finish_workload("default/a"));
  EXPECT_EQ(finished(e), (std::map<std::string, std::size_t>{{"cq default lq", 1}, {"other-cq default other-lq", 1}}));
  e.remove_workload("default/b");
  e.remove_workload("default/a");
  EXPECT_TRUE(finished(e).empty());
  EXPECT_TRUE(tallies(e).empty());
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
