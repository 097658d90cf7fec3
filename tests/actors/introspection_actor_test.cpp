// The introspection actor's web-view endpoints on CAF's test coordinator, with real
// ClusterQueue actors behind it: the cohort trees, a queue's last hour, message rates,
// and clear answers for bad queries.

#include <caf/actor_system.hpp>
#include <caf/send.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "actors/cluster_queue_actor.hpp"
#include "actors/event_recorder.hpp"
#include "actors/introspection_actor.hpp"
#include "kube/client/object.hpp"
#include "kube/json/json.hpp"
#include "tests/actors/deterministic_actor_test.hpp"

namespace kueuepp::actors {
namespace {

using namespace messages;

struct Answer {
  int status = 0;
  std::string type;
  std::string body;
};

ObjectPtr cluster_queue_object(const std::string& name, const std::string& nominal) {
  auto doc = json::parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ClusterQueue","metadata":{"name":")" + name +
                         R"(","generation":1},"spec":{"cohort":"team","resourceGroups":[{"coveredResources":["cpu"],)"
                         R"("flavors":[{"name":"rf","resources":[{"name":"cpu","nominalQuota":")" + nominal + R"("}]}]}]}})");
  return std::make_shared<const kube::client::Object>(std::move(*doc));
}

ClusterQueueSnapshot snapshot(const std::string& name, std::size_t pending, std::int64_t reserved_milli,
                              std::int64_t borrowed_milli) {
  ClusterQueueSnapshot s;
  s.view.name = name;
  s.view.active = true;
  s.view.pending = pending;
  s.view.reserving = 1;
  s.view.admitted = 1;
  s.view.reservation.push_back({"rf", "cpu", reserved_milli, borrowed_milli});
  s.view.usage.push_back({"rf", "cpu", reserved_milli, borrowed_milli});
  s.object = cluster_queue_object(name, "4");
  s.root_cohort = "team";
  s.cohort_path = {"team"};
  s.write_status = false;  // another replica writes: this test sends no writes
  return s;
}

/// A snapshot actor that knows one workload, default/w, and registers itself.
snapshot_actor spawn_fake_snapshot(caf::actor_system& system, introspection_actor introspection) {
  return system.spawn([introspection](snapshot_actor::pointer self) -> snapshot_actor::behavior_type {
    self->send(introspection, ActorRegistered{"snapshot", "snapshot", self->address(),
                                              caf::actor_cast<caf::strong_actor_ptr>(self)});
    return {
        [](ObjectsRelisted&) {},
        [](ObjectChanged&) {},
        [](ObjectChanges&) {},
        [](ShardOwnership&) {},
        [](Explain& q) -> ExplainReply {
          if (q.key != "default/w") return ExplainReply{404, R"({"error":"not found"})"};
          return ExplainReply{200, R"({"workload":"default/w","state":"Admitted"})"};
        },
        [](PendingWorkloadsCall&) {},
        [](WhatIfCall&) {},
        [](IntrospectActor) -> ActorInfo { return ActorInfo{"snapshot", "snapshot", 0, 0, "{}"}; },
    };
  });
}

/// A writer that accepts every write (the recorder writes the Events it is given), counting them.
writer_actor spawn_accepting_writer(caf::actor_system& system, int* writes) {
  return system.spawn([writes]() -> writer_actor::behavior_type {
    return {
        [writes](WriteRequest&) -> WriteOutcome {
          ++*writes;
          WriteOutcome o;
          o.ok = true;
          o.http_status = 201;
          return o;
        },
        [](WriteDone&) {},
        [](ShardOwnership&) {},
        [](DrainWrites) -> WritesDrained { return WritesDrained{0}; },
        [](IntrospectActor) -> ActorInfo { return ActorInfo{}; },
    };
  });
}

class IntrospectionActorTest : public DeterministicActorTest {
 protected:
  IntrospectionActorTest() {
    introspection_ = spawn_introspection(*system_, std::chrono::seconds(2), [this] { return steady_now_; });
    auto clock = [this] { return now_; };
    borrower_ = spawn_cluster_queue(*system_, "borrower", ClusterQueueLinks{{}, introspection_, {}}, clock);
    lender_ = spawn_cluster_queue(*system_, "lender", ClusterQueueLinks{{}, introspection_, {}}, clock);
    sched_->run();
  }
  ~IntrospectionActorTest() override {
    for (auto a : {caf::actor_cast<caf::actor>(introspection_), caf::actor_cast<caf::actor>(borrower_),
                   caf::actor_cast<caf::actor>(lender_)}) {
      caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    }
    sched_->run();
  }

  Answer get(const std::string& target) {
    auto answer = std::make_shared<std::optional<Answer>>();
    caf::anon_send(introspection_, HttpQuery{target, [answer](int status, std::string type, std::string body) {
                                               *answer = Answer{status, std::move(type), std::move(body)};
                                             }});
    sched_->run();
    EXPECT_TRUE(answer->has_value()) << target << " was not answered";
    return answer->value_or(Answer{});
  }

  json::object get_json(const std::string& target, int want_status = 200) {
    Answer a = get(target);
    EXPECT_EQ(a.status, want_status) << a.body;
    auto doc = json::parse(a.body);
    EXPECT_TRUE(doc && doc->is_object()) << a.body;
    return doc && doc->is_object() ? doc->as_object() : json::object{};
  }

  core::Time now_{std::chrono::seconds(1'000'000)};
  std::chrono::steady_clock::time_point steady_now_{};
  introspection_actor introspection_;
  cluster_queue_actor borrower_;
  cluster_queue_actor lender_;
};

TEST_F(IntrospectionActorTest, CohortsGroupTheQueuesOfATreeWithTheirQuota) {
  caf::anon_send(borrower_, snapshot("borrower", 3, 6000, 2000));
  caf::anon_send(lender_, snapshot("lender", 0, 1000, 0));
  sched_->run();
  auto o = get_json("/debug/cohorts");
  EXPECT_EQ(o.at("clusterQueueCount").to_number<std::uint64_t>(), 2u);
  const auto& trees = o.at("trees").as_array();
  ASSERT_EQ(trees.size(), 1u);
  EXPECT_EQ(trees[0].as_object().at("root").as_string(), "team");
  const auto& queues = trees[0].as_object().at("clusterQueues").as_array();
  ASSERT_EQ(queues.size(), 2u);
  const auto& borrower = queues[0].as_object();
  EXPECT_EQ(borrower.at("name").as_string(), "borrower");
  EXPECT_EQ(borrower.at("pending").to_number<std::uint64_t>(), 3u);
  EXPECT_FALSE(borrower.contains("history"));  // the trees stay small: history is per queue
  const auto& line = borrower.at("resources").as_array()[0].as_object();
  EXPECT_EQ(line.at("nominal").as_string(), "4");
  EXPECT_EQ(line.at("reserved").as_string(), "6");
  EXPECT_EQ(line.at("borrowed").as_string(), "2");
  const auto& lender_line = queues[1].as_object().at("resources").as_array()[0].as_object();
  EXPECT_EQ(lender_line.at("lentMilli").as_int64(), 2000);
}

TEST_F(IntrospectionActorTest, AQueueHistoryHasOneSampleAnIntervalOverTheLastHour) {
  caf::anon_send(borrower_, snapshot("borrower", 3, 6000, 2000));
  sched_->run();
  now_ += std::chrono::seconds(30);
  caf::anon_send(borrower_, snapshot("borrower", 5, 6000, 2000));
  sched_->run();
  auto o = get_json("/debug/clusterqueues/borrower/history");
  const auto& history = o.at("history").as_array();
  ASSERT_EQ(history.size(), 2u);  // the report at the same time as the last snapshot adds none
  EXPECT_EQ(history[0].as_object().at("pending").as_int64(), 3);
  EXPECT_EQ(history[1].as_object().at("pending").as_int64(), 5);
  EXPECT_EQ(history[1].as_object().at("usedMilli").as_object().at("cpu").as_int64(), 6000);
  EXPECT_EQ(get("/debug/clusterqueues/nobody/history").status, 404);
}

TEST_F(IntrospectionActorTest, ActorsCarryTheirMessageRateFromTheSecondQuery) {
  auto first = get_json("/debug/actors");
  for (const auto& a : first.at("actors").as_array()) EXPECT_FALSE(a.as_object().contains("messagesPerSecond"));
  for (int i = 0; i < 4; ++i) caf::anon_send(borrower_, snapshot("borrower", 3, 6000, 2000));
  sched_->run();
  steady_now_ += std::chrono::seconds(2);
  auto second = get_json("/debug/actors");
  bool seen = false;
  for (const auto& v : second.at("actors").as_array()) {
    const auto& a = v.as_object();
    if (a.at("name").as_string() != "borrower") continue;
    seen = true;
    EXPECT_DOUBLE_EQ(a.at("messagesPerSecond").as_double(), 2.0);
  }
  EXPECT_TRUE(seen);
}

TEST_F(IntrospectionActorTest, AWorkloadCarriesWhatTheControllerSaidOfIt) {
  auto snapshot = spawn_fake_snapshot(*system_, introspection_);
  int writes = 0;
  auto writer = spawn_accepting_writer(*system_, &writes);
  auto recorder = spawn_event_recorder(*system_, writer, introspection_, [this] { return now_; });
  sched_->run();
  RecordEvent reserved{ObjectKind::Workload, "default", "w", "uid", false, "QuotaReserved",
                       "Quota reserved in ClusterQueue cq, wait time since queued was 1s", std::nullopt};
  RecordEvent other = reserved;
  other.name = "other";
  RecordEvent pending{ObjectKind::Workload, "default", "w", "uid", false, "Pending",
                      "WaitingForQuota: insufficient unused quota", std::nullopt};
  pending.history_only = true;
  caf::anon_send(recorder, RecordEvents{{pending, reserved, other}});
  sched_->run();
  EXPECT_EQ(writes, 2);  // the pending note is history only, not an Event
  auto o = get_json("/debug/workloads/default/w");
  EXPECT_EQ(o.at("state").as_string(), "Admitted");
  const auto& events = o.at("events").as_array();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].as_object().at("reason").as_string(), "Pending");
  EXPECT_EQ(events[1].as_object().at("reason").as_string(), "QuotaReserved");
  EXPECT_EQ(events[1].as_object().at("firstTimestamp").as_string(), "1970-01-12T13:46:40Z");
  // An unknown workload is the tree's 404, not an empty history.
  EXPECT_EQ(get("/debug/workloads/default/nobody").status, 404);
  for (auto a : {caf::actor_cast<caf::actor>(snapshot), caf::actor_cast<caf::actor>(writer),
                 caf::actor_cast<caf::actor>(recorder)}) {
    caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  }
  sched_->run();
}

TEST_F(IntrospectionActorTest, BadQueriesAreRefusedWithWhatToDo) {
  auto o = get_json("/debug/clusterqueues/borrower?limit=100000", 400);
  EXPECT_NE(std::string(o.at("error").as_string()).find("limit"), std::string::npos);
  o = get_json("/debug/nothing", 404);
  EXPECT_NE(std::string(o.at("error").as_string()).find("/debug/cohorts"), std::string::npos);
  // Without a snapshot actor the controller is still starting.
  EXPECT_EQ(get("/debug/clusterqueues/borrower?offset=0&limit=10").status, 503);
}

}  // namespace
}  // namespace kueuepp::actors
