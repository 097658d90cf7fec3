// Pages of a ClusterQueue's pending workloads with Kueue's positions (pkg/visibility/
// storage), and the order they come in: the order the engine's queue pops them.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/engine/engine.hpp"
#include "core/engine/pending_page.hpp"
#include "tests/core/engine/test_objects.hpp"

namespace kueuepp::core {
namespace {

using testing::cpu_workload;

/// Views of "ns/lq" strings in queue order (the strings outlive the views).
const std::vector<std::string> kQueues{"a/x", "a/y", "a/x", "b/x", "a/x", "a/y"};
std::vector<QueuedWorkloadRef> order_of(const std::vector<std::string>& queues) {
  std::vector<QueuedWorkloadRef> out;
  for (const auto& q : queues) {
    auto slash = q.find('/');
    out.push_back(QueuedWorkloadRef{std::string_view(q).substr(0, slash), std::string_view(q).substr(slash + 1)});
  }
  return out;
}

/// "index:cq:lq" per item.
std::vector<std::string> render(const std::vector<PagePosition>& page) {
  std::vector<std::string> out;
  for (const auto& p : page) {
    out.push_back(std::to_string(p.index) + ":" + std::to_string(p.in_cluster_queue) + ":" +
                  std::to_string(p.in_local_queue));
  }
  return out;
}

TEST(PendingPage, BoundsAsKueue) {
  struct Case {
    std::int64_t limit, offset, want_limit, want_offset;
  };
  for (const Case& c : std::vector<Case>{{1000, 0, 1000, 0},
                                         {5, 7, 5, 7},
                                         {-3, -2, 0, 0},
                                         {100'001, 0, 100'000, 0},
                                         {100'000, 3, 100'000, 3}}) {
    PageBounds b = bounded_page(c.limit, c.offset);
    EXPECT_EQ(b.limit, c.want_limit) << c.limit;
    EXPECT_EQ(b.offset, c.want_offset) << c.offset;
  }
}

TEST(PendingPage, ClusterQueuePagesCountLocalQueuePositionsFromTheHead) {
  auto order = order_of(kQueues);
  struct Case {
    std::int64_t limit, offset;
    std::vector<std::string> want;
  };
  for (const Case& c : std::vector<Case>{
           {1000, 0, {"0:0:0", "1:1:0", "2:2:1", "3:3:0", "4:4:2", "5:5:1"}},
           {2, 2, {"2:2:1", "3:3:0"}},
           {1, 5, {"5:5:1"}},
           {10, 6, {}},
           {0, 0, {}},
       }) {
    EXPECT_EQ(render(cluster_queue_page(order, PageBounds{c.limit, c.offset})), c.want)
        << "limit " << c.limit << " offset " << c.offset;
  }
}

TEST(PendingPage, LocalQueuePagesSkipOtherQueuesAndKeepClusterQueuePositions) {
  auto order = order_of(kQueues);
  struct Case {
    std::string ns, lq;
    std::int64_t limit, offset;
    std::vector<std::string> want;
  };
  for (const Case& c : std::vector<Case>{
           {"a", "x", 1000, 0, {"0:0:0", "2:2:1", "4:4:2"}},
           {"a", "x", 1, 1, {"2:2:1"}},
           {"a", "x", 5, 2, {"4:4:2"}},
           {"a", "y", 1000, 0, {"1:1:0", "5:5:1"}},
           {"b", "x", 1000, 0, {"3:3:0"}},  // same name, other namespace
           {"b", "y", 1000, 0, {}},
           {"a", "x", 0, 0, {}},
       }) {
    EXPECT_EQ(render(local_queue_page(order, c.ns, c.lq, PageBounds{c.limit, c.offset})), c.want)
        << c.ns << "/" << c.lq << " limit " << c.limit << " offset " << c.offset;
  }
}

std::vector<std::string> keys(const std::vector<PendingWorkloadRef>& refs) {
  std::vector<std::string> out;
  for (const auto& r : refs) out.emplace_back(r.key);
  return out;
}

TEST(PendingPage, EngineListsPendingWorkloadsInTheOrderItAdmitsThem) {
  Engine e;
  testing::apply_one_queue(e, 1);
  ASSERT_TRUE(e.apply(cpu_workload("running", 1, 100, 1, "lq")));
  e.run_cycle(time_from_seconds(10));
  e.take_decisions();
  // Priority first, then creation time; parked (NoFit) and fresh ones together.
  ASSERT_TRUE(e.apply(cpu_workload("low-old", 1, 0, 2, "lq")));
  ASSERT_TRUE(e.apply(cpu_workload("high-new", 1, 5, 9, "lq")));
  e.run_cycle(time_from_seconds(11));
  ASSERT_TRUE(e.apply(cpu_workload("low-new", 1, 0, 5, "lq")));
  ASSERT_TRUE(e.apply(cpu_workload("high-old", 1, 5, 3, "lq")));
  auto listed = e.pending_workloads("cq");
  ASSERT_TRUE(listed.has_value());
  const std::vector<std::string> want{"default/high-old", "default/high-new", "default/low-old", "default/low-new"};
  EXPECT_EQ(keys(*listed), want);
  EXPECT_EQ((*listed)[0].local_queue, "lq");
  EXPECT_EQ((*listed)[0].priority, 5);
  EXPECT_EQ(keys(*e.pending_workloads("cq", 2)), std::vector<std::string>(want.begin(), want.begin() + 2));

  // Free one CPU at a time: each cycle admits the head the list named.
  e.finish_workload("default/running");
  std::vector<std::string> admitted;
  int t = 20;
  for (std::size_t i = 0; i < want.size(); ++i) {
    e.run_cycle(time_from_seconds(t++));
    for (const auto& a : e.take_decisions().admissions) {
      admitted.push_back(a.workload);
      e.finish_workload(a.workload);
    }
  }
  EXPECT_EQ(admitted, want);
  EXPECT_FALSE(e.pending_workloads("no-such-cq").has_value());
}

TEST(PendingPage, PendingWorkloadsOnDemandShape) {
  // Kueue's pending_workloads_on_demand: one ClusterQueue, six Jobs of which three fit.
  Engine e;
  testing::apply_one_queue(e, 3);
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(e.apply(cpu_workload("job-" + std::to_string(i), 1, 0, 10 + i, "lq")));
  e.run_cycle(time_from_seconds(100));
  e.run_cycle(time_from_seconds(101));
  e.run_cycle(time_from_seconds(102));
  auto listed = e.pending_workloads("cq");
  ASSERT_TRUE(listed.has_value());
  ASSERT_EQ(keys(*listed), (std::vector<std::string>{"default/job-3", "default/job-4", "default/job-5"}));
  std::vector<QueuedWorkloadRef> order;
  for (const auto& r : *listed) order.push_back(QueuedWorkloadRef{"default", r.local_queue});
  EXPECT_EQ(render(cluster_queue_page(order, bounded_page(1000, 0))),
            (std::vector<std::string>{"0:0:0", "1:1:1", "2:2:2"}));
  EXPECT_EQ(render(cluster_queue_page(order, bounded_page(1, 1))), (std::vector<std::string>{"1:1:1"}));
  EXPECT_EQ(e.cluster_queue_of_local_queue("default", "lq"), std::optional<std::string>("cq"));
  EXPECT_FALSE(e.cluster_queue_of_local_queue("default", "nope").has_value());
}

}  // namespace
}  // namespace kueuepp::core
