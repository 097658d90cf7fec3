#include "core/engine/quota_tree.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

namespace kueuepp::core {
namespace {

constexpr FlavorResource kCpu{0, 0};
constexpr FlavorResource kMem{0, 1};
constexpr std::int64_t k1 = 1000;  // one unit in milli

QuotaTree::Quota nominal(std::int64_t units, std::int64_t bl = QuotaTree::kUnset,
                         std::int64_t ll = QuotaTree::kUnset) {
  QuotaTree::Quota q;
  q.nominal = units * k1;
  q.borrowing_limit = bl == QuotaTree::kUnset ? bl : bl * k1;
  q.lending_limit = ll == QuotaTree::kUnset ? ll : ll * k1;
  return q;
}

// Flat cohort of three queues with 3 cpu each.
struct FlatCohort : ::testing::Test {
  QuotaTree t;
  int root, a, b, c;
  void SetUp() override {
    root = t.add_node("cohort", false, QuotaTree::kNoParent, 1);
    a = t.add_node("a", true, root, 1);
    b = t.add_node("b", true, root, 1);
    c = t.add_node("c", true, root, 1);
    for (int n : {a, b, c}) t.set_quota(n, kCpu, nominal(3));
    t.finalize();
  }
};

TEST_F(FlatCohort, SubtreeQuotaSumsChildren) {
  EXPECT_EQ(t.subtree_quota(root, kCpu), 9 * k1);
  EXPECT_EQ(t.subtree_quota(a, kCpu), 3 * k1);
  EXPECT_EQ(t.available(a, kCpu), 9 * k1);
  EXPECT_EQ(t.potential_available(a, kCpu), 9 * k1);
  EXPECT_EQ(t.height(root), 1);
}

TEST_F(FlatCohort, UsageBubblesToTheCohortWithoutLendingLimits) {
  t.add_usage(b, kCpu, 6 * k1);
  EXPECT_EQ(t.usage(b, kCpu), 6 * k1);
  EXPECT_EQ(t.usage(root, kCpu), 6 * k1);
  EXPECT_EQ(t.available(a, kCpu), 3 * k1);
  EXPECT_TRUE(t.borrowing_with(b, kCpu, 0));
  EXPECT_FALSE(t.borrowing_with(a, kCpu, 3 * k1));
  EXPECT_TRUE(t.borrowing_with(a, kCpu, 4 * k1));
  t.remove_usage(b, kCpu, 6 * k1);
  EXPECT_EQ(t.usage(root, kCpu), 0);
  EXPECT_EQ(t.available(a, kCpu), 9 * k1);
}

TEST_F(FlatCohort, BorrowingLevelIsTheCohortHeight) {
  auto [level, reclaim] = t.lowest_subtree_that_fits(a, kCpu, 2 * k1);
  EXPECT_EQ(level, 0);
  EXPECT_TRUE(reclaim);  // has a parent
  std::tie(level, reclaim) = t.lowest_subtree_that_fits(a, kCpu, 5 * k1);
  EXPECT_EQ(level, 1);
  EXPECT_FALSE(reclaim);  // the cohort is the root
}

TEST(QuotaTree, BorrowingLimitCapsWhatAQueueTakesFromTheCohort) {
  QuotaTree t;
  int root = t.add_node("co", false, QuotaTree::kNoParent, 1);
  int a = t.add_node("a", true, root, 1);
  int b = t.add_node("b", true, root, 1);
  t.set_quota(a, kCpu, nominal(9, /*bl=*/1));
  t.set_quota(b, kCpu, nominal(12));
  t.finalize();
  // a may use 9 + 1 although the cohort has 21.
  EXPECT_EQ(t.available(a, kCpu), 10 * k1);
  EXPECT_EQ(t.potential_available(a, kCpu), 10 * k1);
  t.add_usage(a, kCpu, 10 * k1);
  EXPECT_EQ(t.available(a, kCpu), 0);
  EXPECT_EQ(t.available(b, kCpu), 11 * k1);
}

TEST(QuotaTree, LendingLimitKeepsTheRestLocal) {
  // Kueue's lending-limit doc example: team-b (nominal 12, lendingLimit 1) lends only 1.
  QuotaTree t;
  int root = t.add_node("co", false, QuotaTree::kNoParent, 1);
  int a = t.add_node("team-a", true, root, 1);
  int b = t.add_node("team-b", true, root, 1);
  t.set_quota(a, kCpu, nominal(9));
  t.set_quota(b, kCpu, nominal(12, QuotaTree::kUnset, /*ll=*/1));
  t.finalize();
  EXPECT_EQ(t.local_quota(b, kCpu), 11 * k1);
  EXPECT_EQ(t.subtree_quota(root, kCpu), 10 * k1);  // 9 + (12 - 11)
  EXPECT_EQ(t.available(a, kCpu), 10 * k1);
  EXPECT_EQ(t.available(b, kCpu), 21 * k1);  // 11 local + 10 in the cohort
  // b's first 11 never reach the cohort.
  t.add_usage(b, kCpu, 11 * k1);
  EXPECT_EQ(t.usage(root, kCpu), 0);
  EXPECT_EQ(t.available(a, kCpu), 10 * k1);
  t.add_usage(b, kCpu, 1 * k1);
  EXPECT_EQ(t.usage(root, kCpu), 1 * k1);
  EXPECT_EQ(t.available(a, kCpu), 9 * k1);
  t.remove_usage(b, kCpu, 12 * k1);
  EXPECT_EQ(t.usage(root, kCpu), 0);
  EXPECT_EQ(t.usage(b, kCpu), 0);
}

// root (10 cpu) <- team (0 cpu, borrowingLimit 4) <- x (2 cpu); y (0 cpu) under root.
struct Hierarchy : ::testing::Test {
  QuotaTree t;
  int root, team, x, y;
  void SetUp() override {
    root = t.add_node("root", false, QuotaTree::kNoParent, 1);
    team = t.add_node("team", false, root, 1);
    x = t.add_node("x", true, team, 1);
    y = t.add_node("y", true, root, 1);
    t.set_quota(root, kCpu, nominal(10));
    t.set_quota(team, kCpu, nominal(0, /*bl=*/4));
    t.set_quota(x, kCpu, nominal(2));
    t.set_quota(y, kCpu, nominal(0));
    t.finalize();
  }
};

TEST_F(Hierarchy, CohortQuotaAndBorrowingLimit) {
  EXPECT_EQ(t.subtree_quota(team, kCpu), 2 * k1);
  EXPECT_EQ(t.subtree_quota(root, kCpu), 12 * k1);
  EXPECT_EQ(t.available(x, kCpu), 6 * k1);  // 2 + borrowing limit 4
  EXPECT_EQ(t.potential_available(x, kCpu), 6 * k1);
  EXPECT_EQ(t.available(y, kCpu), 12 * k1);
  EXPECT_EQ(t.height(root), 2);
  EXPECT_EQ(t.height(team), 1);
  t.add_usage(x, kCpu, 4 * k1);
  EXPECT_EQ(t.usage(team, kCpu), 4 * k1);
  EXPECT_EQ(t.usage(root, kCpu), 4 * k1);
  EXPECT_EQ(t.available(x, kCpu), 2 * k1);
  t.add_usage(y, kCpu, 7 * k1);
  EXPECT_EQ(t.available(y, kCpu), 1 * k1);
  EXPECT_EQ(t.available(x, kCpu), 1 * k1);  // the root has only 1 left
  auto [level, reclaim] = t.lowest_subtree_that_fits(x, kCpu, 1 * k1);
  EXPECT_EQ(level, 2);  // x already borrows: the quota comes from the root
  EXPECT_FALSE(reclaim);
}

TEST_F(Hierarchy, AvailableGoesNegativeWhenQuotaIsOverUsedButAvailableClampsAtZero) {
  t.add_usage(y, kCpu, 15 * k1);  // an over-admission (quota lowered under usage)
  EXPECT_LT(t.available_raw(y, kCpu), 0);
  EXPECT_EQ(t.available(y, kCpu), 0);
}

TEST(QuotaTree, UnknownFlavorResourcesHaveNoQuota) {
  QuotaTree t;
  int a = t.add_node("a", true, QuotaTree::kNoParent, 1);
  t.set_quota(a, kCpu, nominal(4));
  t.finalize();
  EXPECT_EQ(t.available(a, kMem), 0);
  EXPECT_EQ(t.potential_available(a, kMem), 0);
  t.add_usage(a, kMem, 5);  // usage of a pair the queue does not define still counts
  EXPECT_EQ(t.usage(a, kMem), 5);
  EXPECT_EQ(t.available(a, kCpu), 4 * k1);
}

TEST(QuotaTree, DominantResourceShareOfABorrower) {
  // Weighted fair sharing doc numbers: cohort of 9 cpu, b borrows 3 -> 3/9*1000.
  SymbolTable names;
  names.intern("cpu");
  QuotaTree t;
  int root = t.add_node("all", false, QuotaTree::kNoParent, 1);
  int a = t.add_node("a", true, root, 2);
  int b = t.add_node("b", true, root, 1);
  int c = t.add_node("c", true, root, 1);
  for (int n : {a, b, c}) t.set_quota(n, kCpu, nominal(3));
  t.finalize();
  t.add_usage(b, kCpu, 6 * k1);
  auto drs_b = t.dominant_resource_share(b, nullptr, names);
  EXPECT_TRUE(drs_b.borrowing);
  EXPECT_NEAR(drs_b.weighted(), 333.333, 0.01);
  EXPECT_EQ(drs_b.rounded_weighted(), 334);
  Amounts extra;
  extra.set(kCpu, 5 * k1);  // a with 5 of 3 borrows 2 -> 2/9*1000 / weight 2
  auto drs_a = t.dominant_resource_share(a, &extra, names);
  EXPECT_NEAR(drs_a.weighted(), 111.111, 0.01);
  EXPECT_LT(compare_drs(drs_a, drs_b), 0);
  auto drs_c = t.dominant_resource_share(c, nullptr, names);
  EXPECT_FALSE(drs_c.borrowing);
  EXPECT_EQ(drs_c.weighted(), 0.0);
  auto root_drs = t.dominant_resource_share(root, nullptr, names);
  EXPECT_FALSE(root_drs.borrowing);  // the root never has a share
}

TEST(QuotaTree, ZeroWeightBorrowersRankLast) {
  DominantResourceShare zero;
  zero.fair_weight = 0;
  zero.unweighted_ratio = 10;
  zero.borrowing = true;
  DominantResourceShare big;
  big.unweighted_ratio = 900;
  EXPECT_GT(compare_drs(zero, big), 0);
  EXPECT_TRUE(std::isinf(zero.weighted()));
  EXPECT_EQ(zero.rounded_weighted(), std::numeric_limits<std::int64_t>::max());
}

/// Three levels with lending and borrowing limits: root "r" over cohort "m" (queues q1,
/// q2) and queue q3.
struct ThreeLevelTree {
  QuotaTree t;
  int root = t.add_node("r", false, QuotaTree::kNoParent, 1);
  int mid = t.add_node("m", false, root, 1);
  int q1 = t.add_node("q1", true, mid, 1);
  int q2 = t.add_node("q2", true, mid, 1);
  int q3 = t.add_node("q3", true, root, 1);
  ThreeLevelTree() {
    t.set_quota(mid, kCpu, nominal(2, 3, 1));
    t.set_quota(q1, kCpu, nominal(5, 4, 2));
    t.set_quota(q2, kCpu, nominal(3, QuotaTree::kUnset, 3));
    t.set_quota(q3, kCpu, nominal(1));
    t.finalize();
  }
};

TEST(QuotaTree, AddThenRemoveRestoresEveryNode) {
  // Random walk of additions and removals on a three-level tree with lending and
  // borrowing limits; after undoing everything all usage is zero again.
  ThreeLevelTree tree;
  QuotaTree& t = tree.t;
  const int root = tree.root, mid = tree.mid, q1 = tree.q1, q2 = tree.q2, q3 = tree.q3;
  std::vector<std::pair<int, std::int64_t>> done;
  std::uint32_t seed = 7;
  auto next = [&] { return seed = seed * 1664525u + 1013904223u; };
  for (int i = 0; i < 200; ++i) {
    int node = std::array{q1, q2, q3}[next() % 3];
    std::int64_t v = static_cast<std::int64_t>(next() % 4000);
    t.add_usage(node, kCpu, v);
    done.emplace_back(node, v);
  }
  for (auto it = done.rbegin(); it != done.rend(); ++it) t.remove_usage(it->first, kCpu, it->second);
  for (int n : {root, mid, q1, q2, q3}) EXPECT_EQ(t.usage(n, kCpu), 0) << t.name(n);
}

TEST(QuotaTree, TakingASumOutOrBackEqualsItsPartsInTurn) {
  // The preemptor's early check takes out the usage of many workloads per queue as one
  // sum: every node (usage, borrowing) must end as if the workloads went one by one.
  ThreeLevelTree tree;
  QuotaTree& t = tree.t;
  const int root = tree.root, mid = tree.mid, q1 = tree.q1, q2 = tree.q2, q3 = tree.q3;
  const std::array nodes{root, mid, q1, q2, q3};
  const QuotaTree::DenseIndexes dense = t.dense_indexes({kCpu});
  auto same = [&](const QuotaTree& a, const QuotaTree& b, const char* when) {
    for (int n : nodes) {
      EXPECT_EQ(a.usage(n, kCpu), b.usage(n, kCpu)) << when << ": " << a.name(n);
      EXPECT_EQ(a.within_nominal_dense(n, dense), b.within_nominal_dense(n, dense)) << when << ": " << a.name(n);
      EXPECT_EQ(a.any_borrowing_cq_below(n, dense), b.any_borrowing_cq_below(n, dense)) << when << ": " << a.name(n);
    }
  };
  std::uint32_t seed = 11;
  auto next = [&] { return seed = seed * 1664525u + 1013904223u; };
  for (int trial = 0; trial < 200; ++trial) {
    QuotaTree parts = t;
    std::vector<std::pair<int, std::int64_t>> held;
    for (int i = 0; i < 12; ++i) {
      int node = std::array{q1, q2, q3}[next() % 3];
      std::int64_t v = static_cast<std::int64_t>(next() % 4000);
      parts.add_usage(node, kCpu, v);
      held.emplace_back(node, v);
    }
    // Some of what is held, grouped by queue (as candidates come).
    std::vector<std::pair<int, std::int64_t>> taken;
    for (int q : {q1, q2, q3}) {
      for (const auto& [node, v] : held) {
        if (node == q && next() % 2 == 0) taken.emplace_back(node, v);
      }
    }
    std::vector<std::pair<int, std::int64_t>> per_queue;
    for (int q : {q1, q2, q3}) {
      std::int64_t sum = 0;
      for (const auto& [node, v] : taken) sum += node == q ? v : 0;
      if (sum > 0) per_queue.emplace_back(q, sum);
    }
    QuotaTree sums = parts;
    const QuotaTree before = parts;
    for (const auto& [node, v] : taken) parts.remove_usage(node, kCpu, v);
    for (const auto& [node, sum] : per_queue) sums.remove_usage(node, kCpu, sum);
    same(parts, sums, "taken out");
    for (const auto& [node, v] : taken) parts.add_usage(node, kCpu, v);
    for (const auto& [node, sum] : per_queue) sums.add_usage(node, kCpu, sum);
    same(parts, sums, "given back");
    same(parts, before, "restored");
    if (::testing::Test::HasFailure()) break;
  }
}

}  // namespace
}  // namespace kueuepp::core
