// The snapshot actor's routing: every object reaches the tree that needs it, moves with
// its ClusterQueue, and trees come and go with their queues.

#include <gtest/gtest.h>

#include "actors/tree_router.hpp"
#include "kube/client/watch_event.hpp"

namespace kueuepp::actors {
namespace {

using messages::ObjectChanged;
using messages::ObjectKind;
using messages::ObjectPtr;
using messages::TreeObjectChange;

ObjectPtr object(std::string_view json_text) {
  auto doc = json::parse(json_text);
  EXPECT_TRUE(doc) << json_text;
  return std::make_shared<const kube::client::Object>(std::move(*doc));
}

ObjectPtr cluster_queue(const std::string& name, const std::string& cohort) {
  std::string spec = cohort.empty() ? "{}" : R"({"cohortName":")" + cohort + R"("})";
  return object(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ClusterQueue","metadata":{"name":")" + name +
                R"("},"spec":)" + spec + "}");
}

ObjectPtr cohort(const std::string& name, const std::string& parent) {
  std::string spec = parent.empty() ? "{}" : R"({"parentName":")" + parent + R"("})";
  return object(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Cohort","metadata":{"name":")" + name +
                R"("},"spec":)" + spec + "}");
}

ObjectPtr local_queue(const std::string& name, const std::string& cq) {
  return object(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"LocalQueue","metadata":{"name":")" + name +
                R"(","namespace":"ns"},"spec":{"clusterQueue":")" + cq + R"("}})");
}

ObjectPtr workload(const std::string& name, const std::string& queue) {
  return object(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":")" + name +
                R"(","namespace":"ns","uid":"u-)" + name + R"("},"spec":{"queueName":")" + queue +
                R"(","podSets":[{"name":"main","count":1,"template":{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]}}}]}})");
}

ObjectPtr flavor(const std::string& name) {
  return object(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ResourceFlavor","metadata":{"name":")" + name +
                R"("},"spec":{}})");
}

TreeRouter::Output change(TreeRouter& r, ObjectKind kind, ObjectPtr obj, bool deleted = false) {
  TreeRouter::Output out;
  r.on_changed(ObjectChanged{kind, deleted, std::move(obj)}, out);
  return out;
}

/// "+Kind/key" or "-Kind/key" per change, for compact expectations.
std::vector<std::string> summary(const std::vector<TreeObjectChange>& changes) {
  std::vector<std::string> s;
  for (const auto& c : changes) s.push_back((c.removed ? "-" : "+") + std::string(to_string(c.kind)) + "/" + c.key);
  return s;
}

TEST(TreeRouter, AQueueWithoutCohortIsItsOwnTreeSeededWithClusterWideObjects) {
  TreeRouter r;
  change(r, ObjectKind::ResourceFlavor, flavor("f"));
  auto out = change(r, ObjectKind::ClusterQueue, cluster_queue("a", ""));
  EXPECT_EQ(out.created, std::vector<std::string>{"cq/a"});
  EXPECT_EQ(summary(out.batches["cq/a"]), (std::vector<std::string>{"+ResourceFlavor/f", "+ClusterQueue/a"}));
}

TEST(TreeRouter, QueuesOfOneCohortHierarchyShareTheRootsTree) {
  TreeRouter r;
  change(r, ObjectKind::Cohort, cohort("child", "root"));
  change(r, ObjectKind::Cohort, cohort("root", ""));
  change(r, ObjectKind::ClusterQueue, cluster_queue("a", "child"));
  change(r, ObjectKind::ClusterQueue, cluster_queue("b", "root"));
  EXPECT_EQ(r.trees(), std::vector<std::string>{"cohort/root"});
  EXPECT_EQ(r.tree_of_cluster_queue("a"), "cohort/root");
  EXPECT_EQ(r.tree_of_cluster_queue("b"), "cohort/root");
}

TEST(TreeRouter, WorkloadsFollowTheirLocalQueueAndWaitForIt) {
  TreeRouter r;
  change(r, ObjectKind::ClusterQueue, cluster_queue("a", ""));
  auto early = change(r, ObjectKind::Workload, workload("w", "lq"));
  EXPECT_TRUE(early.batches.empty());  // its LocalQueue does not exist yet
  EXPECT_EQ(r.unrouted_workloads(), 1u);
  auto out = change(r, ObjectKind::LocalQueue, local_queue("lq", "a"));
  EXPECT_EQ(summary(out.batches["cq/a"]), (std::vector<std::string>{"+LocalQueue/ns/lq", "+Workload/ns/w"}));
  EXPECT_EQ(r.tree_of_workload("ns/w"), "cq/a");
  // The router keeps no workload model after an event: a later send decodes it again.
  const auto& sent = out.batches["cq/a"].at(1);
  ASSERT_TRUE(sent.model);
  EXPECT_EQ(std::get<core::Workload>(*sent.model).queue_name, "lq");
  EXPECT_EQ(std::get<core::Workload>(*sent.model).pod_sets.size(), 1u);
}

/// A change as the watch decoder gives it for a kind kept packed: the object's metadata
/// as a document, the whole object as its packed text.
ObjectChanged packed_change(ObjectKind kind, const ObjectPtr& whole) {
  kube::client::WatchEventDecoder decoder(kube::client::DecodeOptions{true, false, true});
  auto event = decoder.decode(R"({"type":"MODIFIED","object":)" + json::dump(whole->json()) + "}");
  EXPECT_TRUE(event && event->packed);
  if (!event) return {};
  return ObjectChanged{kind, false,
                       messages::CachedObject(std::make_shared<const kube::client::Object>(std::move(event->object)), event->packed)};
}

TEST(TreeRouter, AWorkloadThatCamePackedIsRoutedAndDecodedFromItsText) {
  TreeRouter r;
  ObjectChanged event = packed_change(ObjectKind::Workload, workload("w", "lq"));
  ASSERT_TRUE(event.object);
  EXPECT_EQ(event.object->find({"spec"}), nullptr);  // only the metadata came as a document
  TreeRouter::Output early;
  r.on_changed(event, early);
  EXPECT_TRUE(early.errors.empty());
  EXPECT_EQ(r.unrouted_workloads(), 1u);
  // The pending explanation is computed from the whole document, not the metadata.
  auto blocker = r.why_unrouted("ns/w");
  ASSERT_TRUE(blocker && blocker->workload);
  EXPECT_EQ(blocker->workload->string_at({"spec", "queueName"}), "lq");
  EXPECT_EQ(blocker->message, "LocalQueue lq doesn't exist");

  change(r, ObjectKind::ClusterQueue, cluster_queue("a", ""));
  auto out = change(r, ObjectKind::LocalQueue, local_queue("lq", "a"));
  EXPECT_EQ(summary(out.batches["cq/a"]), (std::vector<std::string>{"+LocalQueue/ns/lq", "+Workload/ns/w"}));
  const auto& seeded = out.batches["cq/a"].at(1);
  ASSERT_TRUE(seeded.model && seeded.object.is_packed());
  EXPECT_EQ(std::get<core::Workload>(*seeded.model).pod_sets.size(), 1u);

  // A new version in its own event: the tree gets the model read from the text, the
  // packed text, and the event's metadata.
  TreeRouter::Output next;
  r.on_changed(packed_change(ObjectKind::Workload, workload("w", "lq")), next);
  ASSERT_EQ(next.batches["cq/a"].size(), 1u);
  const auto& sent = next.batches["cq/a"].front();
  ASSERT_TRUE(sent.model && sent.object.is_packed());
  EXPECT_EQ(std::get<core::Workload>(*sent.model).queue_name, "lq");
  EXPECT_EQ(std::get<core::Workload>(*sent.model).uid, "u-w");
  EXPECT_EQ(sent.object->name(), "w");
}

TEST(TreeRouter, AWorkloadHoldingQuotaGoesToTheQueueItsAdmissionNames) {
  TreeRouter r;
  change(r, ObjectKind::ClusterQueue, cluster_queue("a", ""));
  change(r, ObjectKind::ClusterQueue, cluster_queue("b", ""));
  change(r, ObjectKind::LocalQueue, local_queue("lq", "a"));
  auto out = change(
      r, ObjectKind::Workload,
      object(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":"w","namespace":"ns","uid":"u"},)"
             R"("spec":{"queueName":"lq","podSets":[{"name":"main","count":1,"template":{"spec":{"containers":[{"name":"c"}]}}}]},)"
             R"("status":{"admission":{"clusterQueue":"b","podSetAssignments":[{"name":"main","count":1}]}}})"));
  EXPECT_EQ(summary(out.batches["cq/b"]), (std::vector<std::string>{"+Workload/ns/w"}));
  EXPECT_EQ(r.tree_of_workload("ns/w"), "cq/b");
  EXPECT_FALSE(r.why_unrouted("ns/w"));
  // Its quota released, it follows its LocalQueue again.
  out = change(r, ObjectKind::Workload, workload("w", "lq"));
  EXPECT_EQ(summary(out.batches["cq/b"]), (std::vector<std::string>{"-Workload/ns/w"}));
  EXPECT_EQ(summary(out.batches["cq/a"]), (std::vector<std::string>{"+Workload/ns/w"}));
}

TEST(TreeRouter, TheUnroutedWorkloadsFollowEveryChangeOfTheirQueuesAndThemselves) {
  // Kept incrementally (the snapshot actor asks after every queue event): each step
  // that routes or un-routes a workload must show in the set.
  using Keys = std::vector<std::string>;
  TreeRouter r;
  change(r, ObjectKind::Workload, workload("w1", "lq"));
  change(r, ObjectKind::Workload, workload("w2", "other"));
  EXPECT_EQ(r.unrouted_workload_keys(), (Keys{"ns/w1", "ns/w2"}));
  change(r, ObjectKind::LocalQueue, local_queue("lq", "a"));
  EXPECT_EQ(r.unrouted_workloads(), 2u);  // its ClusterQueue does not exist yet
  change(r, ObjectKind::ClusterQueue, cluster_queue("a", ""));
  EXPECT_EQ(r.unrouted_workload_keys(), (Keys{"ns/w2"}));
  change(r, ObjectKind::LocalQueue, local_queue("lq", "a"), /*deleted=*/true);
  EXPECT_EQ(r.unrouted_workload_keys(), (Keys{"ns/w1", "ns/w2"}));
  change(r, ObjectKind::Workload, workload("w1", "lq"), /*deleted=*/true);
  EXPECT_EQ(r.unrouted_workload_keys(), (Keys{"ns/w2"}));
  // An undecodable version keeps the workload known but routed nowhere.
  change(r, ObjectKind::LocalQueue, local_queue("other", "a"));
  EXPECT_TRUE(r.unrouted_workload_keys().empty());
  change(r, ObjectKind::Workload,
         object(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":"w2","namespace":"ns"},"spec":{"podSets":"nope"}})"));
  EXPECT_EQ(r.unrouted_workload_keys(), (Keys{"ns/w2"}));
  // A relist without it forgets it.
  TreeRouter::Output out;
  auto items = std::make_shared<std::vector<messages::CachedObject>>();
  r.on_relisted(messages::ObjectsRelisted{ObjectKind::Workload, items}, out);
  EXPECT_TRUE(r.unrouted_workload_keys().empty());
  EXPECT_EQ(r.unrouted_workloads(), 0u);
}

TEST(TreeRouter, AQueueChangingCohortMovesWithEverythingItHolds) {
  TreeRouter r;
  change(r, ObjectKind::ClusterQueue, cluster_queue("a", "x"));
  change(r, ObjectKind::ClusterQueue, cluster_queue("b", "y"));
  change(r, ObjectKind::LocalQueue, local_queue("lq", "a"));
  change(r, ObjectKind::Workload, workload("w", "lq"));
  auto out = change(r, ObjectKind::ClusterQueue, cluster_queue("a", "y"));
  EXPECT_EQ(out.retired, std::vector<std::string>{"cohort/x"});
  EXPECT_EQ(out.batches.count("cohort/x"), 0u);  // a retired tree gets nothing more
  auto moved = summary(out.batches["cohort/y"]);
  EXPECT_NE(std::find(moved.begin(), moved.end(), "+ClusterQueue/a"), moved.end());
  EXPECT_NE(std::find(moved.begin(), moved.end(), "+LocalQueue/ns/lq"), moved.end());
  EXPECT_NE(std::find(moved.begin(), moved.end(), "+Workload/ns/w"), moved.end());
  EXPECT_EQ(r.tree_of_workload("ns/w"), "cohort/y");
}

TEST(TreeRouter, AQueueThatStaysInItsTreeSendsOnlyItself) {
  // Status writes to ClusterQueues and LocalQueues come back on the watch all the time;
  // they must not re-route every workload.
  TreeRouter r;
  change(r, ObjectKind::ClusterQueue, cluster_queue("a", "c"));
  change(r, ObjectKind::LocalQueue, local_queue("lq", "a"));
  change(r, ObjectKind::Workload, workload("w1", "lq"));
  change(r, ObjectKind::Workload, workload("w2", "lq"));
  auto cq = change(r, ObjectKind::ClusterQueue, cluster_queue("a", "c"));
  EXPECT_EQ(cq.batches.size(), 1u);
  EXPECT_EQ(summary(cq.batches["cohort/c"]), std::vector<std::string>{"+ClusterQueue/a"});
  auto lq = change(r, ObjectKind::LocalQueue, local_queue("lq", "a"));
  EXPECT_EQ(summary(lq.batches["cohort/c"]), std::vector<std::string>{"+LocalQueue/ns/lq"});
  // A move is still a move.
  auto moved = change(r, ObjectKind::ClusterQueue, cluster_queue("a", "d"));
  EXPECT_EQ(r.tree_of_workload("ns/w1"), "cohort/d");
  EXPECT_FALSE(moved.batches["cohort/d"].empty());
}

TEST(TreeRouter, DeletingTheLastQueueRetiresTheTree) {
  TreeRouter r;
  change(r, ObjectKind::ClusterQueue, cluster_queue("a", ""));
  auto out = change(r, ObjectKind::ClusterQueue, cluster_queue("a", ""), true);
  EXPECT_EQ(out.retired, std::vector<std::string>{"cq/a"});
  EXPECT_TRUE(r.trees().empty());
}

TEST(TreeRouter, AnUndecodableObjectIsReportedAndNotRouted) {
  TreeRouter r;
  auto out = change(r, ObjectKind::ClusterQueue,
                    object(R"({"kind":"ClusterQueue","metadata":{"name":"bad"},"spec":{"resourceGroups":"nope"}})"));
  ASSERT_EQ(out.errors.size(), 1u);
  EXPECT_NE(out.errors[0].find("ClusterQueue bad"), std::string::npos);
  EXPECT_TRUE(r.trees().empty());
}

TEST(TreeRouter, CohortCyclesStillGiveEveryMemberTheSameTree) {
  TreeRouter r;
  change(r, ObjectKind::Cohort, cohort("p", "q"));
  change(r, ObjectKind::Cohort, cohort("q", "p"));
  change(r, ObjectKind::ClusterQueue, cluster_queue("a", "p"));
  change(r, ObjectKind::ClusterQueue, cluster_queue("b", "q"));
  EXPECT_EQ(r.tree_of_cluster_queue("a"), r.tree_of_cluster_queue("b"));
}

}  // namespace
}  // namespace kueuepp::actors
