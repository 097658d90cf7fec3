// The ClusterQueue actor's status writes on CAF's test coordinator: what changed is
// written, what is unchanged is not, and a write that failed is tried again from the
// latest snapshot even when no newer snapshot comes (an idle queue would otherwise keep
// a wrong status for good).

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "actors/cluster_queue_actor.hpp"
#include "tests/actors/deterministic_actor_test.hpp"
#include "kube/client/object.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::actors {
namespace {

using namespace messages;

/// What the fake writer was asked, and how it answers: failing the first `failures`.
struct WriterScript {
  std::vector<WriteRequest> asked;
  int failures = 0;
};

writer_actor spawn_fake_writer(caf::actor_system& system, WriterScript* script) {
  return system.spawn([script]() -> writer_actor::behavior_type {
    return {
        [script](WriteRequest& r) -> WriteOutcome {
          script->asked.push_back(r);
          WriteOutcome o;
          if (script->failures > 0) {
            --script->failures;
            o.http_status = 500;
            o.reason = "InternalError";
            o.message = "etcdserver: request timed out";
            return o;
          }
          o.ok = true;
          o.http_status = 200;
          return o;
        },
        [](WriteDone&) {},
        [](ShardOwnership&) {},
        [](DrainWrites) -> WritesDrained { return WritesDrained{0}; },
        [](IntrospectActor) -> ActorInfo { return ActorInfo{}; },
    };
  });
}

introspection_actor spawn_registry(caf::actor_system& system) {
  return system.spawn([]() -> introspection_actor::behavior_type {
    return {[](ActorRegistered&) {}, [](HttpQuery&) {}};
  });
}

ObjectPtr cluster_queue_object() {
  auto doc = json::parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ClusterQueue",
    "metadata":{"name":"cq","resourceVersion":"7","generation":1},
    "spec":{"resourceGroups":[{"coveredResources":["cpu"],"flavors":[{"name":"rf","resources":[{"name":"cpu","nominalQuota":"20"}]}]}]},
    "status":{"pendingWorkloads":340,"reservingWorkloads":4,"admittedWorkloads":4}})");
  return std::make_shared<const kube::client::Object>(std::move(*doc));
}

ObjectPtr local_queue_object() {
  auto doc = json::parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"LocalQueue",
    "metadata":{"name":"lq","namespace":"team","resourceVersion":"8","generation":1},
    "spec":{"clusterQueue":"cq"},
    "status":{"pendingWorkloads":0,"reservingWorkloads":1,"admittedWorkloads":1}})");
  return std::make_shared<const kube::client::Object>(std::move(*doc));
}

ClusterQueueSnapshot snapshot(std::size_t pending) {
  ClusterQueueSnapshot s;
  s.view.name = "cq";
  s.view.active = true;
  s.view.pending = pending;
  s.object = cluster_queue_object();
  s.generation = 1;
  return s;
}

/// The same, with LocalQueue team/lq counting `reserving` workloads.
ClusterQueueSnapshot snapshot_with_local_queue(std::size_t pending, std::int64_t reserving) {
  ClusterQueueSnapshot s = snapshot(pending);
  LocalQueueCounts lq;
  lq.ns = "team";
  lq.name = "lq";
  lq.object = local_queue_object();
  lq.counts.reserving = reserving;
  lq.counts.admitted = reserving;
  s.local_queues.push_back(std::move(lq));
  return s;
}

std::int64_t pending_written(const WriteRequest& r) {
  return r.body->as_object().at("status").as_object().at("pendingWorkloads").to_number<std::int64_t>();
}

class ClusterQueueActorTest : public DeterministicActorTest {
 protected:
  ClusterQueueActorTest() {
    writer_ = spawn_fake_writer(*system_, &script_);
    registry_ = spawn_registry(*system_);
    queue_ = spawn_cluster_queue(*system_, "cq", ClusterQueueLinks{writer_, registry_, metrics_actor{}},
                                 [] { return core::Time{}; });
    sched_->run();
  }
  ~ClusterQueueActorTest() override {
    for (const caf::actor& a : {caf::actor_cast<caf::actor>(queue_), caf::actor_cast<caf::actor>(writer_),
                                caf::actor_cast<caf::actor>(registry_)}) {
      caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    }
    sched_->run();
  }

  WriterScript script_;
  writer_actor writer_;
  introspection_actor registry_;
  cluster_queue_actor queue_;
};

TEST_F(ClusterQueueActorTest, WritesTheStatusOnceWhileItIsUnchanged) {
  caf::anon_send(queue_, snapshot(0));
  sched_->run();
  caf::anon_send(queue_, snapshot(0));
  sched_->run();
  ASSERT_EQ(script_.asked.size(), 1u);
  EXPECT_EQ(pending_written(script_.asked[0]), 0);
  EXPECT_FALSE(sched_->trigger_timeouts());  // nothing failed: no retry pending
}

TEST_F(ClusterQueueActorTest, AFailedStatusWriteIsTriedAgainWithoutANewSnapshot) {
  script_.failures = 1;
  caf::anon_send(queue_, snapshot(0));
  sched_->run();
  ASSERT_EQ(script_.asked.size(), 1u);
  // The queue is idle: no snapshot comes. The retry timer writes it again.
  ASSERT_TRUE(sched_->trigger_timeouts());
  sched_->run();
  ASSERT_EQ(script_.asked.size(), 2u);
  EXPECT_EQ(pending_written(script_.asked[1]), 0);
  // Landed: nothing further.
  EXPECT_FALSE(sched_->trigger_timeouts());
  sched_->run();
  EXPECT_EQ(script_.asked.size(), 2u);
}

TEST_F(ClusterQueueActorTest, ARetryWritesTheLatestSnapshotAndKeepsTryingWhileItFails) {
  script_.failures = 3;
  caf::anon_send(queue_, snapshot(3));
  sched_->run();
  caf::anon_send(queue_, snapshot(1));  // newer, also refused
  sched_->run();
  ASSERT_EQ(script_.asked.size(), 2u);
  ASSERT_TRUE(sched_->trigger_timeouts());  // one timer for both failures
  sched_->run();
  ASSERT_EQ(script_.asked.size(), 3u);  // refused again
  EXPECT_EQ(pending_written(script_.asked[2]), 1);
  ASSERT_TRUE(sched_->trigger_timeouts());
  sched_->run();
  ASSERT_EQ(script_.asked.size(), 4u);  // landed
  EXPECT_EQ(pending_written(script_.asked[3]), 1);
  EXPECT_FALSE(sched_->trigger_timeouts());
}

TEST_F(ClusterQueueActorTest, AFailedLocalQueueStatusWriteIsTriedAgainToo) {
  // The ClusterQueue's status is written and lands; the LocalQueue's is refused.
  caf::anon_send(queue_, snapshot_with_local_queue(0, 1));
  sched_->run();
  ASSERT_EQ(script_.asked.size(), 2u);
  script_.failures = 1;
  caf::anon_send(queue_, snapshot_with_local_queue(0, 0));  // the last workload finished
  sched_->run();
  ASSERT_EQ(script_.asked.size(), 3u);
  EXPECT_EQ(script_.asked[2].kind, ObjectKind::LocalQueue);
  // Nothing changes any more: the retry timer alone writes it again, and not as
  // "already written".
  ASSERT_TRUE(sched_->trigger_timeouts());
  sched_->run();
  ASSERT_EQ(script_.asked.size(), 4u);
  EXPECT_EQ(script_.asked[3].kind, ObjectKind::LocalQueue);
  EXPECT_EQ(script_.asked[3].body->as_object().at("status").as_object().at("reservingWorkloads").to_number<int>(), 0);
  EXPECT_FALSE(sched_->trigger_timeouts());
}

}  // namespace
}  // namespace kueuepp::actors
