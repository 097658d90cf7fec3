// What the controller said of each workload: repeats folded, bounded in workloads and entries.

#include <gtest/gtest.h>

#include "actors/workload_history.hpp"

namespace kueuepp::actors {
namespace {

core::Time at(std::int64_t seconds) { return core::Time{std::chrono::seconds(seconds)}; }

TEST(WorkloadHistory, FoldsRepeatsAndKeepsOrder) {
  WorkloadHistory h;
  h.note("ns/a", at(1), "QuotaReserved", "Quota reserved in ClusterQueue cq", false);
  h.note("ns/a", at(2), "Preempted", "Preempted to accommodate a workload (UID: u)", false);
  h.note("ns/a", at(3), "Preempted", "Preempted to accommodate a workload (UID: u)", false);
  const auto* e = h.find("ns/a");
  ASSERT_NE(e, nullptr);
  ASSERT_EQ(e->size(), 2u);
  EXPECT_EQ((*e)[1].count, 2);
  EXPECT_EQ((*e)[1].first, at(2));
  EXPECT_EQ((*e)[1].last, at(3));
  EXPECT_EQ(h.find("ns/b"), nullptr);
}

TEST(WorkloadHistory, ForgetsTheLeastRecentlyNotedWorkloadsAndOldEntries) {
  WorkloadHistory h(2, 3);
  h.note("ns/a", at(1), "r1", "", false);
  h.note("ns/b", at(2), "r1", "", false);
  h.note("ns/a", at(3), "r2", "", false);  // a is now the most recent
  h.note("ns/c", at(4), "r1", "", false);
  EXPECT_EQ(h.size(), 2u);
  EXPECT_EQ(h.find("ns/b"), nullptr);
  ASSERT_NE(h.find("ns/a"), nullptr);
  for (int i = 0; i < 10; ++i) h.note("ns/a", at(10 + i), "r" + std::to_string(i + 3), "", false);
  ASSERT_EQ(h.find("ns/a")->size(), 3u);
  EXPECT_EQ(h.find("ns/a")->back().reason, "r12");
}

}  // namespace
}  // namespace kueuepp::actors
