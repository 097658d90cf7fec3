// Protocol tests of the controller's actors on CAF's test coordinator: no threads, no
// sleeps; the test drives every message and timer. The API server is a scripted write
// transport, so the tests decide which writes fail and see every write the actors make.

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <optional>
#include <set>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "actors/cohort_tree_actor.hpp"
#include "actors/event_recorder.hpp"
#include "actors/introspection_actor.hpp"
#include "actors/metrics_actor.hpp"
#include "actors/scheduler_actor.hpp"
#include "actors/snapshot_actor.hpp"
#include "actors/writer_actor.hpp"
#include "tests/actors/deterministic_actor_test.hpp"
#include "core/model/time.hpp"
#include "kube/apiserver/patch/patch.hpp"

namespace kueuepp::actors {
namespace {

using namespace messages;

/// Every write the actors make, answered by a script: `fail_next` answers (in order)
/// override the default success.
struct ScriptedApi {
  std::vector<WriteRequest> writes;
  std::deque<WriteOutcome> fail_next;
  std::deque<WriteOutcome> fail_next_eviction;
  /// Pending-reason writes are held here (unanswered) while `hold_pending` is set.
  bool hold_pending = false;
  std::vector<std::function<void(WriteOutcome)>> held_pending;
  /// Stops holding, and answers every held pending-reason write with `outcome`.
  void answer_held_pending(const WriteOutcome& outcome) {
    hold_pending = false;
    for (auto& done : std::exchange(held_pending, {})) done(outcome);
  }

  static bool is_pending_write(const WriteRequest& req) {
    return req.kind == ObjectKind::Workload && req.body &&
           json::dump(*req.body).find(R"("type":"QuotaReserved","status":"False")") != std::string::npos;
  }

  std::vector<const WriteRequest*> pending_writes(std::string_view workload) const {
    std::vector<const WriteRequest*> out;
    for (const auto& w : writes) {
      if (w.name == workload && is_pending_write(w)) out.push_back(&w);
    }
    return out;
  }

  /// Reads (WriteVerb::Get), held unanswered until the test answers them, in order.
  std::deque<std::pair<WriteRequest, std::function<void(WriteOutcome)>>> held_reads;
  std::size_t reads = 0;
  /// Answers the oldest held read with `outcome`.
  void answer_read(WriteOutcome outcome) {
    ASSERT_FALSE(held_reads.empty()) << "no read is waiting";
    auto done = std::move(held_reads.front().second);
    held_reads.pop_front();
    done(std::move(outcome));
  }

  WriteTransport transport() {
    return [this](const WriteRequest& req, const SendOptions&, std::function<void(WriteOutcome)> done) {
      if (req.verb == WriteVerb::Get) {
        ++reads;
        held_reads.emplace_back(req, std::move(done));
        return;
      }
      writes.push_back(req);
      if (hold_pending && is_pending_write(req)) {
        held_pending.push_back(std::move(done));
        return;
      }
      bool is_admission = req.kind == ObjectKind::Workload && req.body &&
                          json::dump(*req.body).find("\"admission\":{") != std::string::npos;
      bool is_eviction = req.kind == ObjectKind::Workload && req.body &&
                         json::dump(*req.body).find("\"type\":\"Evicted\",\"status\":\"True\"") != std::string::npos;
      if (is_eviction && !fail_next_eviction.empty()) {
        WriteOutcome o = fail_next_eviction.front();
        fail_next_eviction.pop_front();
        done(std::move(o));
        return;
      }
      if (is_admission && !fail_next.empty()) {
        WriteOutcome o = fail_next.front();
        fail_next.pop_front();
        done(std::move(o));
        return;
      }
      WriteOutcome ok;
      ok.ok = true;
      ok.http_status = 200;
      done(std::move(ok));
    };
  }

  /// The eviction writes of `workload`, in order.
  std::vector<const WriteRequest*> eviction_writes(std::string_view workload) const {
    std::vector<const WriteRequest*> out;
    for (const auto& w : writes) {
      if (w.kind == ObjectKind::Workload && w.name == workload && w.body &&
          json::dump(*w.body).find("\"type\":\"Evicted\",\"status\":\"True\"") != std::string::npos) {
        out.push_back(&w);
      }
    }
    return out;
  }

  std::size_t admission_writes(std::string_view workload) const {
    std::size_t n = 0;
    for (const auto& w : writes) {
      if (w.kind == ObjectKind::Workload && w.name == workload && w.body &&
          json::dump(*w.body).find("\"admission\":{") != std::string::npos) {
        ++n;
      }
    }
    return n;
  }

  std::size_t event_creates() const {
    return static_cast<std::size_t>(std::count_if(writes.begin(), writes.end(), [](const WriteRequest& w) {
      return w.kind == ObjectKind::Event && w.verb == WriteVerb::Create;
    }));
  }
};

ObjectPtr object(const std::string& text) {
  auto parsed = json::parse(text);
  EXPECT_TRUE(parsed.has_value()) << text;
  return std::make_shared<const kube::client::Object>(parsed.has_value() ? *parsed : json::value(json::object{}));
}

/// How far the tests' decision clock moved from its start (most tests leave it still).
std::chrono::milliseconds clock_offset{0};

core::Time fixed_now() {
  auto t = core::parse_rfc3339("2026-01-01T00:00:00Z");
  return (t.has_value() ? *t : core::Time{}) + clock_offset;
}

class ControllerProtocolTest : public DeterministicActorTest {
 protected:
  ControllerProtocolTest() {
    clock_offset = std::chrono::milliseconds(0);
  }

  ~ControllerProtocolTest() override {
    caf::anon_send_exit(snapshot_, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(scheduler_, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(metrics_, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(events_, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(writer_, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(introspection_, caf::exit_reason::user_shutdown);
    if (sched_ != nullptr) sched_->run();
  }

  void start() {
    ASSERT_NE(sched_, nullptr);
    auto& sys = *system_;
    introspection_ = spawn_introspection(sys);
    writer_ = spawn_writer(sys, api_.transport(), WriterOptions{4});
    scheduler_ = spawn_scheduler(sys, SchedulerOptions{std::chrono::milliseconds(2), fixed_now, {}}, introspection_);
    metrics_ = spawn_metrics(sys, metrics::KueueMetricsOptions{}, introspection_);
    events_ = spawn_event_recorder(sys, writer_, introspection_, fixed_now);
    CohortTreeOptions options;
    options.clock = fixed_now;
    options.status_interval = std::chrono::milliseconds(100);
    options.explanation_interval = explanation_interval_;
    snapshot_ = spawn_snapshot(sys, options, CohortTreeLinks{writer_, scheduler_, introspection_, metrics_, events_});
    settle();
  }

  /// 0 (every explanation written at once) unless a test is about pacing them.
  std::chrono::milliseconds explanation_interval_{0};

  /// Runs every message and fires every timer, a bounded number of times (the
  /// scheduler's timers re-arm while rounds keep finding work).
  /// Workload "big" (`cpu`, version 10) waits for 1 cpu of quota; its explanation is
  /// written and held unanswered.
  void hold_the_explanation_of_big(const std::string& cpu = "2") {
    start();
    cluster("1");
    api_.hold_pending = true;
    relist(ObjectKind::Workload, {workload("big", cpu, 10)});
    settle();
    ASSERT_EQ(api_.pending_writes("big").size(), 1u);
  }

  /// The held explanation of "big" is answered "superseded by an urgent write", which
  /// `landed` or not.
  void supersede_the_explanation_of_big(bool landed) {
    hold_the_explanation_of_big();
    WriteOutcome superseded;
    superseded.superseded = true;
    superseded.superseded_by_urgent = true;
    superseded.superseding_write_landed = landed;
    api_.answer_held_pending(superseded);
    settle();
  }

  void settle(int rounds = 20) {
    for (int i = 0; i < rounds; ++i) {
      sched_->run();
      sched_->clock().advance_time(std::chrono::milliseconds(200));
    }
    sched_->run();
  }

  void relist(ObjectKind kind, std::vector<ObjectPtr> items) {
    caf::anon_send(snapshot_, ObjectsRelisted{kind, std::make_shared<const std::vector<CachedObject>>(items.begin(), items.end())});
  }

  void cluster(const std::string& cpu_quota, const std::string& preemption = "") {
    relist(ObjectKind::Namespace, {object(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ns","uid":"n1","resourceVersion":"1"}})")});
    relist(ObjectKind::ResourceFlavor,
           {object(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ResourceFlavor","metadata":{"name":"default","uid":"f1","resourceVersion":"2"}})")});
    relist(ObjectKind::ClusterQueue,
           {object(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ClusterQueue","metadata":{"name":"cq","uid":"c1","resourceVersion":"3","generation":1},)"
                   R"("spec":{"namespaceSelector":{},)" + preemption + R"("resourceGroups":[{"coveredResources":["cpu"],"flavors":[{"name":"default","resources":[{"name":"cpu","nominalQuota":")" +
                   cpu_quota + R"("}]}]}]}})")});
    relist(ObjectKind::LocalQueue,
           {object(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"LocalQueue","metadata":{"name":"lq","namespace":"ns","uid":"l1","resourceVersion":"4"},"spec":{"clusterQueue":"cq"}})")});
    for (ObjectKind k : {ObjectKind::Cohort, ObjectKind::WorkloadPriorityClass, ObjectKind::PriorityClass,
                         ObjectKind::AdmissionCheck}) {
      relist(k, {});
    }
  }

  /// A new quota for "cq" (a spec change: every pending workload is looked at again).
  void set_quota(const std::string& cpu_quota, int rv) {
    caf::anon_send(snapshot_, ObjectChanged{ObjectKind::ClusterQueue, false,
                                            object(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ClusterQueue","metadata":{"name":"cq","uid":"c1","resourceVersion":")" +
                                                   std::to_string(rv) + R"(","generation":2},)"
                                                   R"("spec":{"namespaceSelector":{},"resourceGroups":[{"coveredResources":["cpu"],"flavors":[{"name":"default","resources":[{"name":"cpu","nominalQuota":")" +
                                                   cpu_quota + R"("}]}]}]}})")});
  }

  static ObjectPtr workload(const std::string& name, const std::string& cpu, int rv, int priority = 0,
                            const std::string& status = "") {
    return object(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":")" + name +
                  R"(","namespace":"ns","uid":"uid-)" + name + R"(","resourceVersion":")" + std::to_string(rv) +
                  R"(","creationTimestamp":"2025-12-31T23:59:50Z","generation":1},)" +
                  (status.empty() ? std::string() : R"("status":)" + status + ",") +
                  R"("spec":{"priority":)" + std::to_string(priority) + R"(,"queueName":"lq","podSets":[{"name":"main","count":1,"template":{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":")" +
                  cpu + R"("}}}]}}}]}})");
  }

  /// How many messages `whom` has handled (its introspection answer).
  template <class Handle>
  std::uint64_t handled_by(const Handle& whom) {
    std::uint64_t handled = 0;
    auto target = caf::actor_cast<caf::actor>(whom);
    system_->spawn([&handled, target](caf::event_based_actor* self) {
      self->request(target, caf::infinite, IntrospectActor{}).then([&handled](ActorInfo& info) { handled = info.handled; });
    });
    sched_->run();
    return handled;
  }

  std::string scrape() {
    std::string body;
    caf::anon_send(metrics_, ScrapeMetrics{[&body](std::string, std::string b) { body = std::move(b); }});
    sched_->run();
    return body;
  }

  ScriptedApi api_;
  introspection_actor introspection_;
  writer_actor writer_;
  scheduler_actor scheduler_;
  metrics_actor metrics_;
  event_recorder_actor events_;
  snapshot_actor snapshot_;
};

TEST_F(ControllerProtocolTest, AScrapeBeforeAnyQueueExistsShowsTheBuild) {
  // As Kueue: kueue_build_info is always there, so /metrics is never empty.
  start();
  const std::string text = scrape();
  EXPECT_NE(text.find("kueue_build_info{build_date="), std::string::npos) << text;
  EXPECT_NE(text.find(R"(git_version="v0.1.0",go_version=")"), std::string::npos) << text;
  EXPECT_NE(text.find(R"(platform="linux/)"), std::string::npos) << text;
}

TEST_F(ControllerProtocolTest, AdmitsAndCountsTheAdmissionOnceItsWriteLanded) {
  start();
  cluster("2");
  relist(ObjectKind::Workload, {workload("w1", "1", 10)});
  settle();
  EXPECT_EQ(api_.admission_writes("w1"), 1u);
  std::string text = scrape();
  EXPECT_NE(text.find(R"(kueue_admitted_workloads_total{cluster_queue="cq",priority_class="",replica_role="standalone"} 1)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("kueue_admission_attempts_total{replica_role=\"standalone\",result=\"success\"} 1"), std::string::npos)
      << text;
}

TEST_F(ControllerProtocolTest, ATreesMetricReportsAndEventsTravelTogetherWithItsStatus) {
  start();
  cluster("3");
  relist(ObjectKind::Workload, {workload("a", "1", 10), workload("b", "1", 11), workload("c", "1", 12)});
  settle();
  ASSERT_EQ(api_.admission_writes("a") + api_.admission_writes("b") + api_.admission_writes("c"), 3u);
  // Three admissions, each with two Events (QuotaReserved, Admitted) and an admission
  // metric, plus the round's attempts: one message to each actor within the interval.
  EXPECT_EQ(handled_by(events_), 1u);
  EXPECT_EQ(handled_by(metrics_), 2u) << "one tree report, one queue status";
  std::string text = scrape();
  EXPECT_NE(text.find(R"(kueue_admitted_workloads_total{cluster_queue="cq",priority_class="",replica_role="standalone"} 3)"),
            std::string::npos)
      << text;
  EXPECT_EQ(api_.event_creates(), 6u);
}

TEST_F(ControllerProtocolTest, ATreeTellsTheSchedulerItIsDirtyOncePerRound) {
  start();
  cluster("1");
  relist(ObjectKind::Workload, {workload("a", "1", 10)});
  settle();
  ASSERT_EQ(api_.admission_writes("a"), 1u);
  // The queue is full: each burst of new workloads costs the scheduler the same
  // messages (one TreeDirty, its tick, the round's RoundDone), however many changes the
  // tree applied before its round. (Each asks for a different amount, so that each is
  // evaluated: one of a shape already waiting would join it without a round.)
  auto scheduler_messages_for = [&](std::vector<std::string> names, int rv) {
    const std::uint64_t before = handled_by(scheduler_);
    for (const auto& name : names) {
      caf::anon_send(snapshot_, ObjectChanged{ObjectKind::Workload, false,
                                              workload(name, std::to_string(rv * 10) + "m", rv)});
      ++rv;
    }
    settle();
    return handled_by(scheduler_) - before;
  };
  const std::uint64_t one = scheduler_messages_for({"b"}, 20);
  const std::uint64_t five = scheduler_messages_for({"c", "d", "e", "f", "g"}, 30);
  EXPECT_EQ(five, one);
  EXPECT_LE(one, 4u);
}

/// `before` as the API server leaves it after `write` (a status merge patch), at `rv`.
ObjectPtr as_written(const ObjectPtr& before, const WriteRequest& write, int rv) {
  kube::client::Object after = *before;
  EXPECT_TRUE(kube::patch::merge_patch_into(after.json(), *write.body).has_value());
  after.set_resource_version(std::to_string(rv));
  return std::make_shared<const kube::client::Object>(std::move(after));
}

TEST_F(ControllerProtocolTest, TheEchoesOfATreesOwnWritesAskForNoRound) {
  start();
  cluster("1");
  ObjectPtr a = workload("a", "1", 10);
  ObjectPtr b = workload("b", "1", 20);
  relist(ObjectKind::Workload, {a});
  settle();
  caf::anon_send(snapshot_, ObjectChanged{ObjectKind::Workload, false, b});
  settle();
  ASSERT_EQ(api_.admission_writes("a"), 1u);
  ASSERT_EQ(api_.pending_writes("b").size(), 1u);
  const WriteRequest admission = api_.writes.front();
  const WriteRequest explanation = *api_.pending_writes("b").front();

  // Both writes come back on the watch: nothing for a round to do, and none is asked for.
  const std::uint64_t before = handled_by(scheduler_);
  ObjectPtr a_admitted = as_written(a, admission, 30);
  caf::anon_send(snapshot_, ObjectChanged{ObjectKind::Workload, false, a_admitted});
  caf::anon_send(snapshot_, ObjectChanged{ObjectKind::Workload, false, as_written(b, explanation, 31)});
  settle();
  EXPECT_EQ(handled_by(scheduler_), before);

  // A workload of b's shape joins b's parked class: it is told why it waits, still
  // without a round.
  caf::anon_send(snapshot_, ObjectChanged{ObjectKind::Workload, false, workload("c", "1", 32)});
  settle();
  EXPECT_EQ(api_.pending_writes("c").size(), 1u);
  EXPECT_EQ(handled_by(scheduler_), before);

  // Freed quota is work: a goes, and b is admitted in the round that follows.
  caf::anon_send(snapshot_, ObjectChanged{ObjectKind::Workload, true, a_admitted});
  settle();
  EXPECT_EQ(api_.admission_writes("b"), 1u);
  EXPECT_GT(handled_by(scheduler_), before);
}

TEST_F(ControllerProtocolTest, AFailedAdmissionWriteIsRolledBackAndRetried) {
  start();
  cluster("1");
  WriteOutcome conflict;
  conflict.http_status = 409;
  conflict.reason = "Conflict";
  conflict.message = "the object has been modified";
  api_.fail_next.push_back(conflict);
  relist(ObjectKind::Workload, {workload("w1", "1", 10)});
  settle();
  // Refused on the version it saw: the engine forgot the admission, and the workload
  // waits for its newer version instead of being refused again and again.
  EXPECT_EQ(api_.admission_writes("w1"), 1u);
  caf::anon_send(snapshot_, ObjectChanged{ObjectKind::Workload, false, workload("w1", "1", 11)});
  settle();
  // The newer version arrived: the next round admitted it, once; the quota was never
  // held twice.
  EXPECT_EQ(api_.admission_writes("w1"), 2u);
  std::string text = scrape();
  EXPECT_NE(text.find(R"(kueue_admitted_workloads_total{cluster_queue="cq",priority_class="",replica_role="standalone"} 1)"),
            std::string::npos)
      << text;
}

/// The answer of a write that was sent and then lost (a reset): it may have landed.
WriteOutcome lost_answer() {
  WriteOutcome o;
  o.maybe_landed = true;
  o.message = "reading the response from 127.0.0.1:6443 failed: Connection reset by peer";
  return o;
}

WriteOutcome read_of(ObjectPtr object) {
  WriteOutcome o;
  o.ok = true;
  o.http_status = 200;
  o.object = std::move(object);
  return o;
}

WriteOutcome unavailable() {
  WriteOutcome o;
  o.http_status = 503;
  o.reason = "ServiceUnavailable";
  return o;
}

const std::string kAdmittedStatus =
    R"({"admission":{"clusterQueue":"cq","podSetAssignments":[{"name":"main","flavors":{"cpu":"default"},"resourceUsage":{"cpu":"1"},"count":1}]},)"
    R"("conditions":[{"type":"QuotaReserved","status":"True","reason":"QuotaReserved","message":"Quota reserved in ClusterQueue cq","lastTransitionTime":"2026-01-01T00:00:00Z"},)"
    R"({"type":"Admitted","status":"True","reason":"Admitted","message":"The workload is admitted","lastTransitionTime":"2026-01-01T00:00:00Z"}]})";

TEST_F(ControllerProtocolTest, AnAdmissionWhoseAnswerWasLostHoldsItsQuotaUntilAReadSaysItLanded) {
  start();
  cluster("1");
  api_.fail_next.push_back(lost_answer());
  ObjectPtr a = workload("a", "1", 10);
  relist(ObjectKind::Workload, {a});
  settle();
  ASSERT_EQ(api_.admission_writes("a"), 1u);
  ASSERT_EQ(api_.held_reads.size(), 1u) << "the workload is read back";
  EXPECT_EQ(api_.held_reads.front().first.name, "a");
  const WriteRequest admission = api_.writes.front();

  // While the read is unanswered, the quota stays with "a": "b" waits, and "a" is not
  // admitted again (on a server where the first write landed, a second attempt is
  // refused, and the old rollback then gave the quota to "b" as well).
  caf::anon_send(snapshot_, ObjectChanged{ObjectKind::Workload, false, workload("b", "1", 11)});
  settle();
  EXPECT_EQ(api_.admission_writes("a"), 1u);
  EXPECT_EQ(api_.admission_writes("b"), 0u);

  // The read shows the admission: it landed, and is counted once.
  api_.answer_read(read_of(as_written(a, admission, 12)));
  settle();
  EXPECT_EQ(api_.admission_writes("a"), 1u);
  EXPECT_EQ(api_.admission_writes("b"), 0u);
  std::string text = scrape();
  EXPECT_NE(text.find(R"(kueue_admitted_workloads_total{cluster_queue="cq",priority_class="",replica_role="standalone"} 1)"),
            std::string::npos)
      << text;
  caf::anon_send(snapshot_, ObjectChanged{ObjectKind::Workload, false, workload("a", "1", 12, 0, kAdmittedStatus)});
  settle();
  EXPECT_EQ(api_.admission_writes("b"), 0u);
  // "a" goes: its quota goes to "b".
  caf::anon_send(snapshot_, ObjectChanged{ObjectKind::Workload, true, workload("a", "1", 13, 0, kAdmittedStatus)});
  settle();
  EXPECT_EQ(api_.admission_writes("b"), 1u);
}

// A read that still shows the version the lost write was conditional on does not prove
// it will not land: the write may still be on its way (seen under injected 503s, where
// the read overtook it, and the quota given away admitted a cohort over its quota). The
// same admission is written again on that version: one of the two lands, and this
// one's answer settles which, while the quota stays held.
TEST_F(ControllerProtocolTest, AnAdmissionWhoseReadStillShowsItsVersionIsWrittenAgainOnItWithTheQuotaHeld) {
  start();
  cluster("1");
  api_.fail_next.push_back(lost_answer());
  relist(ObjectKind::Workload, {workload("a", "1", 10)});
  settle();
  caf::anon_send(snapshot_, ObjectChanged{ObjectKind::Workload, false, workload("b", "1", 11)});
  settle();
  ASSERT_EQ(api_.held_reads.size(), 1u);
  EXPECT_EQ(api_.admission_writes("a"), 1u);
  api_.answer_read(read_of(workload("a", "1", 10)));
  settle();
  ASSERT_EQ(api_.admission_writes("a"), 2u);
  EXPECT_EQ(api_.admission_writes("b"), 0u) << "the quota went to b while a's admission could still land";
  const auto second = std::find_if(api_.writes.rbegin(), api_.writes.rend(), [](const WriteRequest& w) {
    return w.name == "a" && w.body && json::dump(*w.body).find("\"admission\":{") != std::string::npos;
  });
  EXPECT_EQ(second->precondition_rv, "10");
  // It landed (answered 200): counted once, and b still waits.
  std::string text = scrape();
  EXPECT_NE(text.find(R"(kueue_admitted_workloads_total{cluster_queue="cq",priority_class="",replica_role="standalone"} 1)"),
            std::string::npos)
      << text;
  EXPECT_EQ(api_.admission_writes("b"), 0u);
}

TEST_F(ControllerProtocolTest, AFenceRefusedBecauseTheLostAdmissionLandedIsReadAndCountedOnce) {
  start();
  cluster("1");
  api_.fail_next.push_back(lost_answer());
  WriteOutcome conflict;
  conflict.http_status = 409;
  conflict.reason = "Conflict";
  api_.fail_next.push_back(conflict);
  ObjectPtr a = workload("a", "1", 10);
  relist(ObjectKind::Workload, {a});
  settle();
  const WriteRequest admission = api_.writes.front();
  caf::anon_send(snapshot_, ObjectChanged{ObjectKind::Workload, false, workload("b", "1", 11)});
  settle();
  // The read overtook the lost write; the fence meets the version that write made.
  api_.answer_read(read_of(a));
  settle();
  ASSERT_EQ(api_.admission_writes("a"), 2u);
  ASSERT_EQ(api_.held_reads.size(), 1u) << "a refused fence is settled by a read";
  EXPECT_EQ(api_.admission_writes("b"), 0u);
  api_.answer_read(read_of(as_written(a, admission, 12)));
  settle();
  EXPECT_EQ(api_.admission_writes("a"), 2u);
  EXPECT_EQ(api_.admission_writes("b"), 0u);
  std::string text = scrape();
  EXPECT_NE(text.find(R"(kueue_admitted_workloads_total{cluster_queue="cq",priority_class="",replica_role="standalone"} 1)"),
            std::string::npos)
      << text;
}

TEST_F(ControllerProtocolTest, AReadBackThatFailsIsTriedAgainWhileTheQuotaStaysHeld) {
  start();
  cluster("1");
  api_.fail_next.push_back(lost_answer());
  relist(ObjectKind::Workload, {workload("a", "1", 10)});
  settle();
  caf::anon_send(snapshot_, ObjectChanged{ObjectKind::Workload, false, workload("b", "1", 11)});
  api_.answer_read(unavailable());
  settle();
  ASSERT_EQ(api_.reads, 2u) << "read again after a pause";
  EXPECT_EQ(api_.admission_writes("b"), 0u);
  api_.answer_read(lost_answer());  // a read whose answer is lost: no news either
  settle();
  ASSERT_EQ(api_.reads, 3u);
  EXPECT_EQ(api_.admission_writes("b"), 0u);
  EXPECT_EQ(api_.admission_writes("a"), 1u);
  // Gone meanwhile: nothing holds the quota any more.
  WriteOutcome gone;
  gone.http_status = 404;
  gone.reason = "NotFound";
  api_.answer_read(gone);
  caf::anon_send(snapshot_, ObjectChanged{ObjectKind::Workload, true, workload("a", "1", 12)});
  settle();
  EXPECT_EQ(api_.admission_writes("b"), 1u);
}

TEST_F(ControllerProtocolTest, AnEvictionThatDidNotSettleIsReadBackAndWrittenAgain) {
  start();
  cluster("1", R"("preemption":{"withinClusterQueue":"LowerPriority"},)");
  relist(ObjectKind::Workload, {workload("low", "1", 10, 1)});
  settle();
  ASSERT_EQ(api_.admission_writes("low"), 1u);
  ObjectPtr admitted = workload("low", "1", 12, 1, kAdmittedStatus);
  caf::anon_send(snapshot_, ObjectChanged{ObjectKind::Workload, false, admitted});
  settle();
  // The eviction's answer is lost, then the second attempt is refused by a 503: each
  // time the workload is read back, and evicted again on what the read shows.
  api_.fail_next_eviction.push_back(lost_answer());
  api_.fail_next_eviction.push_back(unavailable());
  caf::anon_send(snapshot_, ObjectChanged{ObjectKind::Workload, false, workload("high", "1", 11, 100)});
  settle();
  ASSERT_EQ(api_.eviction_writes("low").size(), 1u);
  api_.answer_read(read_of(admitted));
  settle();
  ASSERT_EQ(api_.eviction_writes("low").size(), 2u);
  EXPECT_EQ(api_.eviction_writes("low")[1]->precondition_rv, "12");
  api_.answer_read(read_of(admitted));
  settle();
  ASSERT_EQ(api_.eviction_writes("low").size(), 3u);
  EXPECT_TRUE(api_.held_reads.empty());
  EXPECT_EQ(api_.admission_writes("high"), 0u) << "the quota is held until the eviction completes";
}

TEST_F(ControllerProtocolTest, OnlyWhatFitsIsAdmittedInOneRound) {
  start();
  cluster("2");
  relist(ObjectKind::Workload, {workload("a", "1", 10), workload("b", "1", 11), workload("c", "1", 12)});
  settle();
  std::size_t admitted = api_.admission_writes("a") + api_.admission_writes("b") + api_.admission_writes("c");
  EXPECT_EQ(admitted, 2u);
  EXPECT_EQ(api_.admission_writes("c"), 0u) << "c is last in queue order and does not fit";
  std::string text = scrape();
  EXPECT_NE(text.find(R"(kueue_pending_workloads{cluster_queue="cq",replica_role="standalone",status="active"} 0)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(R"(kueue_reserving_active_workloads{cluster_queue="cq",replica_role="standalone"} 2)"),
            std::string::npos)
      << text;
}

TEST_F(ControllerProtocolTest, AnEvictionIsWrittenOnTheAdmittedVersionNeverOverIt) {
  start();
  cluster("1", R"("preemption":{"withinClusterQueue":"LowerPriority"},)");
  relist(ObjectKind::Workload, {workload("low", "1", 10, 1)});
  settle();
  ASSERT_EQ(api_.admission_writes("low"), 1u);
  // The admitted version has not come back on the watch when a higher priority workload
  // arrives: the cached "low" is the pre-admission version 10.
  WriteOutcome conflict;
  conflict.http_status = 409;
  conflict.reason = "Conflict";
  api_.fail_next_eviction.push_back(conflict);
  caf::anon_send(snapshot_, ObjectChanged{ObjectKind::Workload, false, workload("high", "1", 11, 100)});
  settle();
  auto evictions = api_.eviction_writes("low");
  ASSERT_EQ(evictions.size(), 1u);
  EXPECT_EQ(evictions[0]->precondition_rv, "10") << "conditional on the version it was computed from";
  // Refused (the admission landed as version 12): computed again on the admitted version,
  // which it must not strip of QuotaReserved and Admitted.
  const std::string admitted_status =
      R"({"admission":{"clusterQueue":"cq","podSetAssignments":[{"name":"main","flavors":{"cpu":"default"},"resourceUsage":{"cpu":"1"},"count":1}]},)"
      R"("conditions":[{"type":"QuotaReserved","status":"True","reason":"QuotaReserved","message":"Quota reserved in ClusterQueue cq","lastTransitionTime":"2026-01-01T00:00:00Z"},)"
      R"({"type":"Admitted","status":"True","reason":"Admitted","message":"The workload is admitted","lastTransitionTime":"2026-01-01T00:00:00Z"}]})";
  caf::anon_send(snapshot_, ObjectChanged{ObjectKind::Workload, false, workload("low", "1", 12, 1, admitted_status)});
  settle();
  evictions = api_.eviction_writes("low");
  ASSERT_EQ(evictions.size(), 2u);
  EXPECT_EQ(evictions[1]->precondition_rv, "12");
  const std::string body = json::dump(*evictions[1]->body);
  EXPECT_NE(body.find(R"("type":"QuotaReserved","status":"True")"), std::string::npos) << body;
  EXPECT_NE(body.find(R"("type":"Preempted","status":"True")"), std::string::npos) << body;
}


TEST_F(ControllerProtocolTest, WorkloadsAreKeptPackedAndWritesAreComputedFromThePackedVersion) {
  // The decoded document of a workload is dropped once its event is handled (the router
  // and the tree keep it packed); a write computed later, from the packed version, sees
  // everything that version had.
  start();
  cluster("1", R"("preemption":{"withinClusterQueue":"LowerPriority"},)");
  ObjectPtr listed = workload("low", "1", 10, 1);
  std::weak_ptr<const kube::client::Object> listed_doc = listed;
  relist(ObjectKind::Workload, {std::move(listed)});
  settle();
  ASSERT_EQ(api_.admission_writes("low"), 1u);
  EXPECT_TRUE(listed_doc.expired()) << "the decoded document of a relisted workload is still held";

  const std::string admitted_status =
      R"({"admission":{"clusterQueue":"cq","podSetAssignments":[{"name":"main","flavors":{"cpu":"default"},"resourceUsage":{"cpu":"1"},"count":1}]},)"
      R"("conditions":[{"type":"QuotaReserved","status":"True","reason":"QuotaReserved","message":"Quota reserved in ClusterQueue cq","lastTransitionTime":"2026-01-01T00:00:00Z"},)"
      R"({"type":"Admitted","status":"True","reason":"Admitted","message":"The workload is admitted","lastTransitionTime":"2026-01-01T00:00:00Z"},)"
      R"({"type":"Custom","status":"True","reason":"ByAnotherController","message":"kept \"as is\" é","lastTransitionTime":"2026-01-01T00:00:00Z"}]})";
  ObjectPtr admitted = workload("low", "1", 12, 1, admitted_status);
  std::weak_ptr<const kube::client::Object> admitted_doc = admitted;
  caf::anon_send(snapshot_, ObjectChanged{ObjectKind::Workload, false, std::move(admitted)});
  settle();
  EXPECT_TRUE(admitted_doc.expired()) << "the decoded document of a changed workload is still held";

  caf::anon_send(snapshot_, ObjectChanged{ObjectKind::Workload, false, workload("high", "1", 11, 100)});
  settle();
  auto evictions = api_.eviction_writes("low");
  ASSERT_EQ(evictions.size(), 1u);
  EXPECT_EQ(evictions[0]->precondition_rv, "12");
  const std::string body = json::dump(*evictions[0]->body);
  // The conditions list is replaced whole: every condition of the packed version is in it.
  EXPECT_NE(body.find(R"("type":"QuotaReserved","status":"True")"), std::string::npos) << body;
  EXPECT_NE(body.find(R"("type":"Admitted","status":"True")"), std::string::npos) << body;
  EXPECT_NE(body.find(R"("message":"kept \"as is\" é")"), std::string::npos) << body;
  EXPECT_NE(body.find(R"("type":"Evicted","status":"True")"), std::string::npos) << body;
}

TEST_F(ControllerProtocolTest, APendingReasonRefusedAfterItsNewerVersionArrivedIsWrittenAgainAtOnce) {
  // The 409 answer of a pending-reason write can come after the watch already delivered
  // the version that caused it: nothing else would bring the rewrite, so it happens now.
  hold_the_explanation_of_big();
  EXPECT_EQ(api_.pending_writes("big")[0]->precondition_rv, "10");
  EXPECT_EQ(api_.pending_writes("big")[0]->policy().answer, WritePolicy::Answer::MetadataOnly)
      << "the tree reads only the version it made";
  caf::anon_send(snapshot_, ObjectChanged{ObjectKind::Workload, false, workload("big", "2", 11)});
  settle();
  WriteOutcome conflict;
  conflict.http_status = 409;
  conflict.reason = "Conflict";
  api_.answer_held_pending(conflict);
  settle();
  auto writes = api_.pending_writes("big");
  ASSERT_EQ(writes.size(), 2u) << "rewritten on the version already here";
  EXPECT_EQ(writes[1]->precondition_rv, "11");
}

TEST_F(ControllerProtocolTest, AnExplanationSupersededByARefusedUrgentWriteIsWrittenAgainAtOnce) {
  // No version follows from a refused write: the tree says its words again now instead
  // of waiting for one.
  supersede_the_explanation_of_big(/*landed=*/false);
  auto writes = api_.pending_writes("big");
  ASSERT_EQ(writes.size(), 2u) << "said again at once";
  EXPECT_EQ(writes[1]->precondition_rv, "10");
}

TEST_F(ControllerProtocolTest, AnExplanationSupersededByALandedUrgentWaitsForTheVersionItMade) {
  supersede_the_explanation_of_big(/*landed=*/true);
  EXPECT_EQ(api_.pending_writes("big").size(), 1u) << "the urgent write's version has not arrived yet";
  caf::anon_send(snapshot_, ObjectChanged{ObjectKind::Workload, false, workload("big", "2", 11)});
  settle();
  auto writes = api_.pending_writes("big");
  ASSERT_EQ(writes.size(), 2u) << "said again on the version the urgent write made";
  EXPECT_EQ(writes[1]->precondition_rv, "11");
}

TEST_F(ControllerProtocolTest, ANewerExplanationWaitsForTheOutstandingOneAndThenTheNewestIsWritten) {
  // While a workload's pending write is outstanding, newer explanations are not turned
  // into writes; when it lands, the engine's current explanation is written on the
  // version it made.
  hold_the_explanation_of_big("4");
  const std::string first = json::dump(*api_.pending_writes("big")[0]->body);
  set_quota("2", 20);  // "maximum capacity (1)" becomes "(2)"
  settle();
  set_quota("3", 21);  // and then "(3)"
  settle();
  EXPECT_EQ(api_.pending_writes("big").size(), 1u) << "nothing more while the first is outstanding";
  WriteOutcome ok;
  ok.ok = true;
  ok.http_status = 200;
  ok.object = workload("big", "4", 11);
  api_.answer_held_pending(ok);
  settle();
  EXPECT_EQ(api_.pending_writes("big").size(), 1u) << "the version it made has not arrived yet";
  caf::anon_send(snapshot_, ObjectChanged{ObjectKind::Workload, false, workload("big", "4", 11)});
  settle();
  auto writes = api_.pending_writes("big");
  ASSERT_EQ(writes.size(), 2u);
  EXPECT_EQ(writes[1]->precondition_rv, "11");
  const std::string second = json::dump(*writes[1]->body);
  EXPECT_NE(second, first);
  EXPECT_NE(second.find("maximum capacity (3)"), std::string::npos) << "the newest explanation: " << second;
}

TEST_F(ControllerProtocolTest, AWakeUpIsNotLostWhenTheTimerFiresBeforeTheDecisionClockGetsThere) {
  // A workload in requeue backoff until T+10 s: the scheduler arms a timer for it. The
  // timer runs on the actor clock; here the decision clock stands still meanwhile (as a
  // slewed system clock lags a steady one), so when the timer fires the wake-up is not due
  // yet. It must be armed again, not forgotten until some unrelated event comes.
  start();
  cluster("4");
  const std::string requeue_at = core::format_rfc3339(fixed_now() + std::chrono::seconds(10));
  relist(ObjectKind::Workload,
         {workload("w", "1", 10, 0,
                   R"({"requeueState":{"count":1,"requeueAt":")" + requeue_at +
                       R"("},"conditions":[{"type":"Requeued","status":"True","reason":"BackoffFinished","message":"m","lastTransitionTime":"2025-12-31T23:59:55Z"}]})")});
  settle();
  settle();
  settle();  // 12 s of actor time: the timer fired while the decision clock stood at T
  EXPECT_EQ(api_.admission_writes("w"), 0u) << "still backing off";
  clock_offset = std::chrono::seconds(10);
  settle();
  settle();
  settle();
  EXPECT_EQ(api_.admission_writes("w"), 1u) << "admitted once its backoff is over";
}

TEST_F(ControllerProtocolTest, ChangesForwardedTogetherAreAppliedInOrder) {
  // The watch actor forwards the changes its mailbox held at once as one ObjectChanges:
  // each is applied in order, as if sent one by one.
  start();
  cluster("2");
  relist(ObjectKind::Workload, {});
  settle();
  ObjectChanges batch{ObjectKind::Workload, {}};
  batch.changes.push_back(ObjectChanged{ObjectKind::Workload, false, workload("w1", "1", 10)});
  batch.changes.push_back(ObjectChanged{ObjectKind::Workload, false, workload("w2", "1", 11)});
  batch.changes.push_back(ObjectChanged{ObjectKind::Workload, false, workload("w3", "1", 12)});
  batch.changes.push_back(ObjectChanged{ObjectKind::Workload, true, workload("w1", "1", 13)});  // gone again
  caf::anon_send(snapshot_, std::move(batch));
  settle();
  EXPECT_EQ(api_.admission_writes("w1"), 0u) << "deleted in the same batch";
  EXPECT_EQ(api_.admission_writes("w2"), 1u);
  EXPECT_EQ(api_.admission_writes("w3"), 1u) << "w1's quota was never taken";
}

TEST_F(ControllerProtocolTest, OnlyTheLastWordsOfARoundAreWritten) {
  // Two queues of one cohort, each head fits alone by borrowing, not both: the second is
  // told "no longer fits after processing another workload" in the first cycle and how
  // much it needs in the next, in the same round. Only the latter is written.
  start();
  relist(ObjectKind::Namespace, {object(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ns","uid":"n1","resourceVersion":"1"}})")});
  relist(ObjectKind::ResourceFlavor,
         {object(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ResourceFlavor","metadata":{"name":"default","uid":"f1","resourceVersion":"2"}})")});
  auto cq = [](const std::string& name, int rv) {
    return object(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"ClusterQueue","metadata":{"name":")" + name +
                  R"(","uid":"uid-)" + name + R"(","resourceVersion":")" + std::to_string(rv) +
                  R"(","generation":1},"spec":{"cohortName":"co","namespaceSelector":{},"resourceGroups":[{"coveredResources":["cpu"],"flavors":[{"name":"default","resources":[{"name":"cpu","nominalQuota":"2"}]}]}]}})");
  };
  auto lq = [](const std::string& name, const std::string& cq_name, int rv) {
    return object(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"LocalQueue","metadata":{"name":")" + name +
                  R"(","namespace":"ns","uid":"uid-)" + name + R"(","resourceVersion":")" + std::to_string(rv) +
                  R"("},"spec":{"clusterQueue":")" + cq_name + R"("}})");
  };
  relist(ObjectKind::ClusterQueue, {cq("cq-a", 3), cq("cq-b", 4)});
  relist(ObjectKind::LocalQueue, {lq("lq-a", "cq-a", 5), lq("lq-b", "cq-b", 6)});
  for (ObjectKind k : {ObjectKind::Cohort, ObjectKind::WorkloadPriorityClass, ObjectKind::PriorityClass,
                       ObjectKind::AdmissionCheck}) {
    relist(k, {});
  }
  auto on_queue = [](ObjectPtr wl, const std::string& queue) {
    std::string text = json::dump(wl->json());
    const std::string from = R"("queueName":"lq")";
    text.replace(text.find(from), from.size(), R"("queueName":")" + queue + R"(")");
    return object(text);
  };
  relist(ObjectKind::Workload, {on_queue(workload("a", "3", 10), "lq-a"), on_queue(workload("b", "3", 11), "lq-b")});
  settle();
  ASSERT_EQ(api_.admission_writes("a") + api_.admission_writes("b"), 1u) << "one of them fits";
  const std::string waiting = api_.admission_writes("a") == 1 ? "b" : "a";
  auto writes = api_.pending_writes(waiting);
  ASSERT_EQ(writes.size(), 1u) << "one explanation for the round";
  const std::string words = json::dump(*writes[0]->body);
  EXPECT_EQ(words.find("no longer fits"), std::string::npos) << words;
  EXPECT_NE(words.find("more needed"), std::string::npos) << words;
}

TEST_F(ControllerProtocolTest, ExplanationsThatChangeWithinTheIntervalAreWrittenOnceWhenItEnds) {
  // The first explanation goes out at once; the words that follow within the pacing
  // interval are not written until it ends, and then only the newest.
  explanation_interval_ = std::chrono::milliseconds(2000);
  start();
  cluster("1");
  relist(ObjectKind::Workload, {workload("big", "4", 10)});
  settle();
  ASSERT_EQ(api_.pending_writes("big").size(), 1u) << "the first explanation is not held back";
  caf::anon_send(snapshot_, ObjectChanged{ObjectKind::Workload, false, workload("big", "4", 11)});
  set_quota("2", 20);  // "maximum capacity (1)" becomes "(2)"
  settle();
  set_quota("3", 21);  // and then "(3)"
  settle();
  EXPECT_EQ(api_.pending_writes("big").size(), 1u) << "changes within the interval wait";
  clock_offset = std::chrono::milliseconds(1999);
  settle();
  EXPECT_EQ(api_.pending_writes("big").size(), 1u) << "not before the interval ends";
  clock_offset = std::chrono::milliseconds(2000);
  settle();
  auto writes = api_.pending_writes("big");
  ASSERT_EQ(writes.size(), 2u) << "written when the interval ends";
  EXPECT_EQ(writes[1]->precondition_rv, "11");
  const std::string second = json::dump(*writes[1]->body);
  EXPECT_NE(second.find("maximum capacity (3)"), std::string::npos) << "the newest words only: " << second;
  clock_offset = std::chrono::milliseconds(10000);
  settle();
  EXPECT_EQ(api_.pending_writes("big").size(), 2u) << "nothing new to say";
}

// Sharding: a replica acts only on the trees of the shards it holds. The tree of "cq"
// (no cohort) is in shard shard_of_root("cq", 4).
class ShardGatingTest : public ControllerProtocolTest {
 protected:
  static constexpr std::uint32_t kShards = 4;
  const std::uint32_t cq_shard = shard_of_root("cq", kShards);

  void hold(std::set<std::uint32_t> held,
            std::chrono::steady_clock::time_point valid_until = std::chrono::steady_clock::time_point::max()) {
    ShardOwnership o;
    o.shard_count = kShards;
    o.held = std::move(held);
    o.version = ++version_;
    o.valid_until = valid_until;
    caf::anon_send(writer_, o);
    caf::anon_send(snapshot_, o);
  }

  std::size_t writes_of(ObjectKind kind) const {
    return static_cast<std::size_t>(std::count_if(api_.writes.begin(), api_.writes.end(),
                                                  [kind](const WriteRequest& w) { return w.kind == kind; }));
  }

  std::uint64_t version_ = 0;
};

TEST_F(ShardGatingTest, ATreeOfAShardHeldElsewhereIsWatchedButNeverWrittenUntilItsShardComes) {
  start();
  hold({(cq_shard + 1) % kShards});
  cluster("2");
  relist(ObjectKind::Workload, {workload("w1", "1", 10)});
  settle();
  EXPECT_EQ(api_.admission_writes("w1"), 0u) << "another replica admits in this tree";
  EXPECT_EQ(writes_of(ObjectKind::ClusterQueue), 0u) << "another replica writes this queue's status";
  EXPECT_EQ(writes_of(ObjectKind::LocalQueue), 0u);
  // The introspection still knows the workload (the tree applies every change).
  const std::string text = scrape();
  EXPECT_NE(text.find(R"(kueue_pending_workloads{cluster_queue="cq",replica_role="standalone",status="active"} 1)"), std::string::npos) << text;

  hold({cq_shard});
  settle();
  EXPECT_EQ(api_.admission_writes("w1"), 1u) << "the shard came: its pending workload is admitted";
  ASSERT_GE(writes_of(ObjectKind::ClusterQueue), 1u) << "and its queue's status written";
  for (const auto& w : api_.writes) {
    if (w.kind == ObjectKind::Workload || w.kind == ObjectKind::ClusterQueue) {
      ASSERT_TRUE(w.shard.has_value()) << to_string(w.kind) << " " << w.name << " carries its shard for the fence";
      EXPECT_EQ(*w.shard, cq_shard);
    }
  }
}

TEST_F(ShardGatingTest, TheWriterRefusesWritesOfAShardNoLongerHeld) {
  start();
  hold({cq_shard});
  settle();
  hold({});
  settle();
  WriteRequest req;
  req.kind = ObjectKind::Workload;
  req.ns = "ns";
  req.name = "w1";
  req.body = std::make_shared<const json::value>(json::object{});
  req.shard = cq_shard;
  std::optional<WriteOutcome> outcome;
  auto self = system_->spawn([&outcome, req, this](caf::event_based_actor* me) {
    me->request(writer_, caf::infinite, req).then([&outcome](WriteOutcome& o) { outcome = o; });
  });
  settle();
  ASSERT_TRUE(outcome.has_value());
  EXPECT_FALSE(outcome->ok);
  EXPECT_EQ(outcome->reason, "NotOwner");
  EXPECT_TRUE(api_.writes.empty()) << "nothing reached the API server";
  // Writes that are not tree-scoped still go out.
  req.shard.reset();
  outcome.reset();
  auto again = system_->spawn([&outcome, req, this](caf::event_based_actor* me) {
    me->request(writer_, caf::infinite, req).then([&outcome](WriteOutcome& o) { outcome = o; });
  });
  settle();
  ASSERT_TRUE(outcome.has_value());
  EXPECT_TRUE(outcome->ok);
  EXPECT_EQ(api_.writes.size(), 1u);
}

TEST_F(ShardGatingTest, AShardWhoseRenewalDeadlinePassedIsFencedBeforeAnyoneSaysSo) {
  // A process paused past its renew deadline wakes up still "holding" the shard: the
  // writer's own clock check refuses the writes its trees decide before the shard
  // actor's timer catches up.
  start();
  hold({cq_shard}, std::chrono::steady_clock::now() - std::chrono::seconds(1));
  cluster("2");
  relist(ObjectKind::Workload, {workload("w1", "1", 10)});
  settle();
  EXPECT_EQ(api_.admission_writes("w1"), 0u);
  for (const auto& w : api_.writes) EXPECT_FALSE(w.shard.has_value()) << to_string(w.kind) << " " << w.name;
  hold({cq_shard});  // renewed
  caf::anon_send(snapshot_, ObjectChanged{ObjectKind::Workload, false, workload("w1", "1", 12)});
  settle();
  EXPECT_EQ(api_.admission_writes("w1"), 1u);
}

TEST_F(ShardGatingTest, LosingTheShardStopsFurtherAdmissions) {
  start();
  hold({cq_shard});
  cluster("4");
  relist(ObjectKind::Workload, {workload("w1", "1", 10)});
  settle();
  ASSERT_EQ(api_.admission_writes("w1"), 1u);
  hold({});
  caf::anon_send(snapshot_, ObjectChanged{ObjectKind::Workload, false, workload("w2", "1", 11)});
  settle();
  EXPECT_EQ(api_.admission_writes("w2"), 0u);
}

}  // namespace
}  // namespace kueuepp::actors
