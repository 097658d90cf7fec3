// A tree's visibility page: the engine's order and positions, the metadata read from the
// cached Workload text, and Kueue's answers for queues that do not exist.

#include <gtest/gtest.h>

#include <map>

#include "actors/visibility_page.hpp"
#include "tests/core/engine/test_objects.hpp"

namespace kueuepp::actors {
namespace {

namespace vis = kube::visibility;
using core::testing::cpu_workload;

struct Fixture {
  core::Engine engine;
  std::map<std::string, std::string, std::less<>> texts;

  Fixture() {
    core::testing::apply_one_queue(engine, 0);  // no quota: everything stays pending
    engine.apply(core::LocalQueue{"default", "other", "cq", core::StopPolicy::None, 1.0});
    engine.apply(core::LocalQueue{"default", "orphan", "no-such-cq", core::StopPolicy::None, 1.0});
    EXPECT_TRUE(engine.apply(cpu_workload("a", 1, 0, 10, "lq")));
    EXPECT_TRUE(engine.apply(cpu_workload("b", 1, 7, 20, "other")));
    EXPECT_TRUE(engine.apply(cpu_workload("c", 1, 0, 30, "lq")));
    texts["default/b"] = R"({"metadata":{"name":"b","namespace":"default","creationTimestamp":"2026-01-01T00:00:20Z",)"
                         R"("ownerReferences":[{"apiVersion":"batch/v1","kind":"Job","name":"job-b","uid":"u-b",)"
                         R"("controller":true}]}})";
  }

  vis::PendingWorkloadsResult page(vis::PendingWorkloadsQuery q) const {
    return visibility_page(engine, q, [this](std::string_view key) -> std::string_view {
      auto it = texts.find(key);
      return it == texts.end() ? std::string_view{} : std::string_view(it->second);
    });
  }
};

vis::PendingWorkloadsQuery cluster_queue(std::string name, std::int64_t limit = 1000, std::int64_t offset = 0) {
  vis::PendingWorkloadsQuery q;
  q.cluster_queue = std::move(name);
  q.page = core::bounded_page(limit, offset);
  return q;
}

vis::PendingWorkloadsQuery local_queue(std::string name, std::int64_t limit = 1000, std::int64_t offset = 0) {
  vis::PendingWorkloadsQuery q;
  q.ns = "default";
  q.local_queue = std::move(name);
  q.page = core::bounded_page(limit, offset);
  return q;
}

TEST(VisibilityPage, ClusterQueueInQueueOrderWithMetadata) {
  Fixture f;
  auto r = f.page(cluster_queue("cq"));
  ASSERT_TRUE(r.found);
  ASSERT_EQ(r.items.size(), 3u);
  EXPECT_EQ(r.items[0].name, "b");  // priority first
  EXPECT_EQ(r.items[0].priority, 7);
  EXPECT_EQ(r.items[0].local_queue, "other");
  EXPECT_EQ(r.items[0].creation_timestamp, "2026-01-01T00:00:20Z");
  ASSERT_EQ(r.items[0].owner_references.size(), 1u);
  EXPECT_EQ(r.items[0].owner_references[0].name, "job-b");
  EXPECT_EQ(r.items[0].owner_references[0].uid, "u-b");
  EXPECT_EQ(r.items[1].name, "a");
  EXPECT_EQ(r.items[1].ns, "default");
  EXPECT_TRUE(r.items[1].creation_timestamp.empty());  // no cached text: the key only
  EXPECT_EQ(r.items[2].name, "c");
  EXPECT_EQ(r.items[2].position_in_cluster_queue, 2);
  EXPECT_EQ(r.items[2].position_in_local_queue, 1);

  auto middle = f.page(cluster_queue("cq", 1, 1));
  ASSERT_EQ(middle.items.size(), 1u);
  EXPECT_EQ(middle.items[0].name, "a");
  EXPECT_EQ(middle.items[0].position_in_cluster_queue, 1);
  EXPECT_FALSE(f.page(cluster_queue("nope")).found);
}

TEST(VisibilityPage, LocalQueuesAsKueueAnswersThem) {
  Fixture f;
  auto lq = f.page(local_queue("lq"));
  ASSERT_TRUE(lq.found);
  ASSERT_EQ(lq.items.size(), 2u);
  EXPECT_EQ(lq.items[1].name, "c");
  EXPECT_EQ(lq.items[1].position_in_cluster_queue, 2);
  EXPECT_EQ(lq.items[1].position_in_local_queue, 1);
  auto second = f.page(local_queue("lq", 5, 1));
  ASSERT_EQ(second.items.size(), 1u);
  EXPECT_EQ(second.items[0].name, "c");
  // A LocalQueue whose ClusterQueue does not exist is found, with nothing pending.
  auto orphan = f.page(local_queue("orphan"));
  EXPECT_TRUE(orphan.found);
  EXPECT_TRUE(orphan.items.empty());
  EXPECT_FALSE(f.page(local_queue("nope")).found);
}

}  // namespace
}  // namespace kueuepp::actors
