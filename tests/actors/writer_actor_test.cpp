// The writer actor's scheduling on CAF's test coordinator: urgent writes first, the other
// kinds of object served in turn (a backlog of Workload writes does not starve
// ClusterQueue status), coalescing of status rewrites, and one outcome per request.

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>
#include <gtest/gtest.h>

#include <optional>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "actors/writer_actor.hpp"
#include "tests/actors/deterministic_actor_test.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::actors {
namespace {

using namespace messages;

/// Holds every write until the test answers it.
struct HeldApi {
  struct Held {
    WriteRequest request;
    SendOptions send;
    std::function<void(WriteOutcome)> done;
  };
  std::vector<Held> held;
  std::vector<std::string> order;  ///< "Kind/name" in the order the writer sent them

  WriteTransport transport() {
    return [this](const WriteRequest& req, const SendOptions& send, std::function<void(WriteOutcome)> done) {
      order.push_back(std::string(to_string(req.kind)) + "/" + req.name);
      held.push_back(Held{req, send, std::move(done)});
    };
  }

  /// Answers the oldest unanswered write with `outcome`.
  bool answer_one_with(WriteOutcome outcome) {
    for (auto& h : held) {
      if (h.done) {
        auto done = std::move(h.done);
        h.done = nullptr;
        done(std::move(outcome));
        return true;
      }
    }
    return false;
  }

  /// Answers the oldest unanswered write with success.
  bool answer_one() {
    for (auto& h : held) {
      if (h.done) {
        WriteOutcome ok;
        ok.ok = true;
        ok.http_status = 200;
        auto done = std::move(h.done);
        h.done = nullptr;
        done(std::move(ok));
        return true;
      }
    }
    return false;
  }
};

/// A status rewrite of the kind's own intent unless `intent` says otherwise.
WriteRequest write(ObjectKind kind, std::string name, std::optional<WriteIntent> intent = std::nullopt) {
  WriteRequest r;
  r.intent = intent ? *intent
         : kind == ObjectKind::Event ? WriteIntent::Event
         : kind == ObjectKind::Workload ? WriteIntent::PendingExplanation
                                        : WriteIntent::QueueStatus;
  r.kind = kind;
  r.verb = WriteVerb::MergePatchStatus;
  r.ns = kind == ObjectKind::ClusterQueue ? "" : "ns";
  r.name = std::move(name);
  r.body = std::make_shared<const json::value>(json::object{{"status", json::object{}}});
  return r;
}

class WriterActorTest : public DeterministicActorTest {
 protected:
  WriterActorTest() {
    writer_ = spawn_writer(*system_, api_.transport(), WriterOptions{1});
  }

  /// One write at a time, a queue status overdue after 5 s on the test's clock, a turn
  /// for it after 3 urgent writes.
  void respawn_with_a_status_delay() {
    WriterOptions options;
    options.max_in_flight = 1;
    options.urgent_streak = 3;
    options.max_status_delay = std::chrono::seconds(5);
    options.clock = [this] { return now_; };
    respawn(options);
  }

  /// Four writes in flight, the normal ones in the background (at most
  /// `max_normal_in_flight` of them, 0: no bound of their own), a queue status overdue
  /// after 5 s on the test's clock and given a turn after every urgent write.
  void respawn_with_background_writes(std::size_t max_normal_in_flight = 0) {
    WriterOptions options;
    options.max_in_flight = 4;
    options.max_normal_in_flight = max_normal_in_flight;
    options.urgent_streak = 1;
    options.max_status_delay = std::chrono::seconds(5);
    options.clock = [this] { return now_; };
    options.normal_writes_in_background = true;
    respawn(options);
  }

  /// Two writes in flight: a rewrite and the admission that may follow it.
  void respawn_with_two_in_flight() {
    WriterOptions options;
    options.max_in_flight = 2;
    respawn(options);
  }

  /// Replaces the writer by one with `options` (before anything was sent).
  void respawn(WriterOptions options) {
    caf::anon_send_exit(writer_, caf::exit_reason::user_shutdown);
    sched_->run();
    writer_ = spawn_writer(*system_, api_.transport(), options);
  }
  ~WriterActorTest() override {
    caf::anon_send_exit(writer_, caf::exit_reason::user_shutdown);
    sched_->run();
  }

  /// Sends `req` from a fresh requester that records the outcome in `outcomes_`.
  void send(WriteRequest req) {
    auto* outcomes = &outcomes_;
    const std::string label = std::string(to_string(req.kind)) + "/" + req.name;
    system_->spawn([writer = writer_, req = std::move(req), outcomes, label](caf::event_based_actor* self) {
      self->request(writer, caf::infinite, req)
          .then([outcomes, label](const WriteOutcome& o) {
            const std::string superseded = !o.superseded_by_urgent     ? " superseded"
                                           : o.superseding_write_landed ? " superseded, landed"
                                                                        : " superseded, refused";
            outcomes->push_back(label + (o.superseded ? superseded : o.ok ? " ok" : " failed " + o.reason));
          });
    });
    sched_->run();
  }

  /// Answers writes one at a time until none is left.
  void drain() {
    while (api_.answer_one()) sched_->run();
  }

  /// The writer's introspection summary.
  json::value summary() {
    std::string text;
    system_->spawn([writer = writer_, &text](caf::event_based_actor* self) {
      self->request(writer, caf::infinite, IntrospectActor{}).then([&text](const ActorInfo& info) { text = info.summary; });
    });
    sched_->run();
    auto parsed = json::parse(text);
    return parsed ? *parsed : json::value();
  }

  HeldApi api_;
  writer_actor writer_;
  std::vector<std::string> outcomes_;
  std::chrono::steady_clock::time_point now_{std::chrono::hours(1)};
};

TEST_F(WriterActorTest, ABacklogOfOneKindDoesNotStarveTheOthers) {
  for (int i = 0; i < 6; ++i) send(write(ObjectKind::Workload, "wl-" + std::to_string(i)));
  send(write(ObjectKind::ClusterQueue, "cq"));
  send(write(ObjectKind::LocalQueue, "lq"));
  drain();
  // wl-0 went out at once (nothing else was waiting); then the kinds take turns.
  ASSERT_EQ(api_.order.size(), 8u);
  EXPECT_EQ(api_.order[0], "Workload/wl-0");
  std::vector<std::string> next(api_.order.begin() + 1, api_.order.begin() + 4);
  EXPECT_NE(std::find(next.begin(), next.end(), "ClusterQueue/cq"), next.end()) << "order: " << next[0] << " "
                                                                                 << next[1] << " " << next[2];
  EXPECT_NE(std::find(next.begin(), next.end(), "LocalQueue/lq"), next.end());
  EXPECT_EQ(outcomes_.size(), 8u);
}

TEST_F(WriterActorTest, UrgentWritesGoFirst) {
  send(write(ObjectKind::Workload, "first"));
  send(write(ObjectKind::ClusterQueue, "cq"));
  send(write(ObjectKind::Workload, "admit", WriteIntent::Eviction));
  drain();
  ASSERT_EQ(api_.order.size(), 3u);
  EXPECT_EQ(api_.order[1], "Workload/admit");
}

TEST_F(WriterActorTest, NormalWritesHoldOnlyTheirShareOfTheSlotsInFlight) {
  WriterOptions options;
  options.max_in_flight = 8;
  options.max_normal_in_flight = 2;
  respawn(options);
  for (int i = 0; i < 5; ++i) send(write(ObjectKind::Workload, "explained-" + std::to_string(i)));
  // Two explanations went out; the other three wait although six slots are free.
  ASSERT_EQ(api_.order, (std::vector<std::string>{"Workload/explained-0", "Workload/explained-1"}));
  EXPECT_EQ(summary().as_object().at("normalInFlight").to_number<int>(), 2);
  // An admission does not wait behind them: it takes a free slot at once.
  send(write(ObjectKind::Workload, "admitted", WriteIntent::Eviction));
  ASSERT_EQ(api_.order.size(), 3u);
  EXPECT_EQ(api_.order[2], "Workload/admitted");
  // Each answered explanation lets the next one go.
  ASSERT_TRUE(api_.answer_one());
  sched_->run();
  ASSERT_EQ(api_.order.size(), 4u);
  EXPECT_EQ(api_.order[3], "Workload/explained-2");
  drain();
  EXPECT_EQ(api_.order.size(), 6u);
  EXPECT_EQ(outcomes_.size(), 6u);
  EXPECT_EQ(summary().as_object().at("normalInFlight").to_number<int>(), 0);
}

TEST_F(WriterActorTest, TheIntrospectionCountsTheUrgentWritesAmongThoseWritten) {
  send(write(ObjectKind::ClusterQueue, "cq"));
  ASSERT_TRUE(api_.answer_one());
  sched_->run();
  send(write(ObjectKind::Workload, "explained"));
  send(write(ObjectKind::Workload, "admitted", WriteIntent::Eviction));
  send(write(ObjectKind::Workload, "refused", WriteIntent::Eviction));
  ASSERT_TRUE(api_.answer_one());  // "explained" went out at once
  sched_->run();
  ASSERT_TRUE(api_.answer_one());  // "admitted"
  sched_->run();
  WriteOutcome conflict;
  conflict.http_status = 409;
  conflict.reason = "Conflict";
  ASSERT_TRUE(api_.answer_one_with(conflict));  // "refused"
  sched_->run();
  ASSERT_EQ(api_.order, (std::vector<std::string>{"ClusterQueue/cq", "Workload/explained", "Workload/admitted",
                                                  "Workload/refused"}));
  const json::value s = summary();
  ASSERT_TRUE(s.is_object());
  EXPECT_EQ(s.at("written").to_number<int>(), 3);
  EXPECT_EQ(s.at("writtenUrgent").to_number<int>(), 1);
  EXPECT_EQ(s.at("failed").to_number<int>(), 1);
  // Per kind, of those written (the refused one is not counted).
  EXPECT_EQ(s.at("writtenByKind"), *json::parse(R"({"Workload": 2, "ClusterQueue": 1})"));
}

TEST_F(WriterActorTest, OverdueQueueStatusGetsATurnAfterAStreakOfUrgentWrites) {
  respawn_with_a_status_delay();
  send(write(ObjectKind::Workload, "busy"));     // occupies the single slot
  send(write(ObjectKind::Workload, "pending"));  // a pending explanation: waits for the urgent ones
  send(write(ObjectKind::ClusterQueue, "cq"));
  send(write(ObjectKind::LocalQueue, "lq"));
  now_ += std::chrono::seconds(6);
  for (int i = 0; i < 7; ++i) send(write(ObjectKind::Workload, "admit-" + std::to_string(i), WriteIntent::Eviction));
  drain();
  EXPECT_EQ(api_.order,
            (std::vector<std::string>{"Workload/busy", "Workload/admit-0", "Workload/admit-1", "Workload/admit-2",
                                      "ClusterQueue/cq", "Workload/admit-3", "Workload/admit-4", "Workload/admit-5",
                                      "LocalQueue/lq", "Workload/admit-6", "Workload/pending"}));
}

TEST_F(WriterActorTest, NormalWritesGoInTheBackgroundExceptAnOverdueQueueStatus) {
  respawn_with_background_writes(/*max_normal_in_flight=*/1);
  send(write(ObjectKind::Workload, "explained"));  // in the background, holding the normal slot
  send(write(ObjectKind::ClusterQueue, "cq"));     // no normal slot left: it waits
  now_ += std::chrono::seconds(6);                 // and is overdue now
  send(write(ObjectKind::Workload, "admit-0", WriteIntent::Eviction));
  send(write(ObjectKind::Workload, "admit-1", WriteIntent::Eviction));
  send(write(ObjectKind::LocalQueue, "lq"));  // not overdue: waits for the normal slot
  // The overdue status took its turn after one urgent write although the explanation,
  // still waiting for a token the urgent writes leave, holds the normal slot.
  ASSERT_EQ(api_.order,
            (std::vector<std::string>{"Workload/explained", "Workload/admit-0", "ClusterQueue/cq", "Workload/admit-1"}));
  drain();
  ASSERT_EQ(api_.order.size(), 5u);
  EXPECT_EQ(api_.order[4], "LocalQueue/lq");
  std::vector<bool> background;
  for (const auto& h : api_.held) background.push_back(h.send.background);
  EXPECT_EQ(background, (std::vector<bool>{true, false, false, false, true}));
  EXPECT_EQ(summary().as_object().at("normalInFlight").to_number<int>(), 0);
}

TEST_F(WriterActorTest, WithoutTheOptionEveryWriteKeepsItsPlaceInLine) {
  send(write(ObjectKind::Workload, "explained"));
  send(write(ObjectKind::Workload, "admitted", WriteIntent::Eviction));
  drain();
  ASSERT_EQ(api_.held.size(), 2u);
  EXPECT_FALSE(api_.held[0].send.background);
  EXPECT_FALSE(api_.held[1].send.background);
}

TEST_F(WriterActorTest, QueueStatusNotYetOverdueWaitsForTheUrgentWrites) {
  respawn_with_a_status_delay();
  send(write(ObjectKind::Workload, "busy"));
  send(write(ObjectKind::ClusterQueue, "cq"));
  now_ += std::chrono::seconds(4);
  for (int i = 0; i < 5; ++i) send(write(ObjectKind::Workload, "admit-" + std::to_string(i), WriteIntent::Eviction));
  drain();
  ASSERT_EQ(api_.order.size(), 7u);
  EXPECT_EQ(api_.order[5], "Workload/admit-4");
  EXPECT_EQ(api_.order[6], "ClusterQueue/cq");
}

TEST_F(WriterActorTest, AnUrgentWriteCancelsTheWaitingRewriteOfTheSameObject) {
  send(write(ObjectKind::Workload, "busy"));  // occupies the single slot
  send(write(ObjectKind::Workload, "a"));     // a pending explanation, waiting
  send(write(ObjectKind::Workload, "b"));
  send(write(ObjectKind::Workload, "a", WriteIntent::Eviction));  // its admission
  drain();
  EXPECT_EQ(api_.order, (std::vector<std::string>{"Workload/busy", "Workload/a", "Workload/b"}));
  EXPECT_EQ(std::count(outcomes_.begin(), outcomes_.end(), "Workload/a superseded, landed"), 1);
  EXPECT_EQ(std::count(outcomes_.begin(), outcomes_.end(), "Workload/a ok"), 1);
  EXPECT_EQ(outcomes_.size(), 4u);
}

/// A pending explanation (coalescable rewrite) or an admission of workload `name`,
/// decided on resourceVersion `rv`.
WriteRequest explanation(std::string name, std::string rv) {
  WriteRequest r = write(ObjectKind::Workload, std::move(name));
  r.precondition_rv = std::move(rv);
  return r;
}
WriteRequest admission(std::string name, std::string rv) {
  WriteRequest r = write(ObjectKind::Workload, std::move(name), WriteIntent::Admission);
  r.precondition_rv = std::move(rv);
  return r;
}

WriteOutcome written_as(std::string rv) {
  WriteOutcome o;
  o.ok = true;
  o.http_status = 200;
  o.object = std::make_shared<const kube::client::Object>(
      json::value(json::object{{"metadata", json::object{{"name", "a"}, {"resourceVersion", rv}}}}));
  return o;
}

WriteOutcome conflict() {
  WriteOutcome o;
  o.http_status = 409;
  o.reason = "Conflict";
  return o;
}

TEST_F(WriterActorTest, AnAdmissionFollowsThePendingExplanationInFlightOnTheVersionItMade) {
  respawn_with_two_in_flight();
  send(explanation("a", "10"));  // in flight
  send(admission("a", "10"));    // decided on the same version: waits for the answer
  ASSERT_EQ(api_.held.size(), 1u) << "the admission went out beside the explanation it would be refused for";
  ASSERT_TRUE(api_.answer_one_with(written_as("11")));
  sched_->run();
  ASSERT_EQ(api_.held.size(), 2u);
  EXPECT_EQ(api_.held[1].request.precondition_rv, "11");
  drain();
  EXPECT_EQ(outcomes_, (std::vector<std::string>{"Workload/a ok", "Workload/a ok"}));
}

TEST_F(WriterActorTest, AnAdmissionDecidedBeforeTheLandedExplanationWasSeenGoesOnTheVersionItMade) {
  send(explanation("a", "10"));
  ASSERT_TRUE(api_.answer_one_with(written_as("11")));  // landed; the tree still caches 10
  sched_->run();
  send(admission("a", "10"));
  send(admission("b", "10"));  // another object's version 10: untouched
  ASSERT_EQ(api_.held.size(), 2u);
  EXPECT_EQ(api_.held[1].request.precondition_rv, "11");
  drain();
  ASSERT_EQ(api_.held.size(), 3u);
  EXPECT_EQ(api_.held[2].request.precondition_rv, "10");
}

TEST_F(WriterActorTest, AnAdmissionFollowingARefusedExplanationKeepsItsVersion) {
  respawn_with_two_in_flight();
  send(explanation("a", "10"));
  send(admission("a", "10"));
  send(admission("b", "20"));  // another object: not held
  ASSERT_EQ(api_.order, (std::vector<std::string>{"Workload/a", "Workload/b"}));
  ASSERT_TRUE(api_.answer_one_with(conflict()));  // someone else changed "a"
  sched_->run();
  ASSERT_EQ(api_.held.size(), 3u);
  EXPECT_EQ(api_.held[2].request.name, "a");
  EXPECT_EQ(api_.held[2].request.precondition_rv, "10");  // refused in turn, as it must be
  drain();
  EXPECT_EQ(outcomes_.size(), 3u);
}

TEST_F(WriterActorTest, AnAdmissionDecidedOnAnotherVersionIsNotRebased) {
  respawn_with_two_in_flight();
  send(explanation("a", "9"));
  send(admission("a", "10"));
  ASSERT_TRUE(api_.answer_one_with(written_as("11")));
  sched_->run();
  ASSERT_EQ(api_.held.size(), 2u);
  EXPECT_EQ(api_.held[1].request.precondition_rv, "10");
  drain();
  EXPECT_EQ(outcomes_.size(), 2u);
}

TEST_F(WriterActorTest, ARewriteSupersededByAnUrgentWriteHearsWhetherThatWriteLanded) {
  send(write(ObjectKind::Workload, "busy"));  // occupies the single slot
  send(write(ObjectKind::Workload, "a"));     // a pending explanation, waiting
  send(write(ObjectKind::Workload, "a", WriteIntent::Eviction));  // its admission
  EXPECT_TRUE(outcomes_.empty()) << "the explanation was answered before the admission settled";
  ASSERT_TRUE(api_.answer_one());  // busy; the admission goes out
  sched_->run();
  ASSERT_EQ(outcomes_, (std::vector<std::string>{"Workload/busy ok"}));
  // Refused: no version follows from it, and the explanation hears so after the
  // admission's own answer (whose rollback comes first).
  ASSERT_TRUE(api_.answer_one_with(conflict()));
  sched_->run();
  EXPECT_EQ(outcomes_, (std::vector<std::string>{"Workload/busy ok", "Workload/a failed Conflict",
                                                 "Workload/a superseded, refused"}));
  EXPECT_EQ(api_.order, (std::vector<std::string>{"Workload/busy", "Workload/a"}));
}

TEST_F(WriterActorTest, EventsBeyondTheBoundAreDroppedOldestFirst) {
  WriterOptions options;
  options.max_in_flight = 1;
  options.max_queued_events = 2;
  respawn(options);
  send(write(ObjectKind::Workload, "busy"));  // occupies the single slot
  for (int i = 0; i < 5; ++i) send(write(ObjectKind::Event, "e" + std::to_string(i)));
  send(write(ObjectKind::ClusterQueue, "cq"));  // other kinds are never dropped
  drain();
  EXPECT_EQ(api_.order, (std::vector<std::string>{"Workload/busy", "Event/e3", "ClusterQueue/cq", "Event/e4"}));
  for (const char* e : {"Event/e0", "Event/e1", "Event/e2"}) {
    EXPECT_EQ(std::count(outcomes_.begin(), outcomes_.end(), std::string(e) + " failed Dropped"), 1) << e;
  }
  EXPECT_EQ(outcomes_.size(), 7u);
}

TEST_F(WriterActorTest, AWaitingStatusRewriteIsReplacedByTheNewerOne) {
  send(write(ObjectKind::Workload, "busy"));  // occupies the single slot
  send(write(ObjectKind::ClusterQueue, "cq"));
  send(write(ObjectKind::ClusterQueue, "cq"));
  drain();
  EXPECT_EQ(api_.order, (std::vector<std::string>{"Workload/busy", "ClusterQueue/cq"}));
  ASSERT_EQ(outcomes_.size(), 3u);
  EXPECT_EQ(outcomes_[0], "ClusterQueue/cq superseded");
  EXPECT_EQ(std::count(outcomes_.begin(), outcomes_.end(), "ClusterQueue/cq ok"), 1);
}

TEST_F(WriterActorTest, ARewrittenStatusKeepsItsPlaceInItsLane) {
  send(write(ObjectKind::Workload, "busy"));  // occupies the single slot
  send(write(ObjectKind::Workload, "a"));
  send(write(ObjectKind::Workload, "b"));
  for (int i = 0; i < 5; ++i) send(write(ObjectKind::Workload, "a"));
  drain();
  // "a" was rewritten while it waited, not sent after "b": the newest body went out in
  // the place of the first, once.
  EXPECT_EQ(api_.order, (std::vector<std::string>{"Workload/busy", "Workload/a", "Workload/b"}));
  EXPECT_EQ(std::count(outcomes_.begin(), outcomes_.end(), "Workload/a superseded"), 5);
  EXPECT_EQ(std::count(outcomes_.begin(), outcomes_.end(), "Workload/a ok"), 1);
}

/// The body's "status": {"n": n} marker of a held write.
int marker(const WriteRequest& r) { return r.body->as_object().at("status").as_object().at("n").to_number<int>(); }

WriteRequest numbered(ObjectKind kind, std::string name, int n) {
  WriteRequest r = write(kind, std::move(name));
  r.body = std::make_shared<const json::value>(json::object{{"status", json::object{{"n", n}}}});
  return r;
}

TEST_F(WriterActorTest, ARewriteWaitsForTheAnswerOfTheRewriteOfItsObjectInFlight) {
  respawn_with_two_in_flight();
  send(numbered(ObjectKind::ClusterQueue, "cq", 1));
  send(numbered(ObjectKind::ClusterQueue, "cq", 2));  // a slot is free, but cq 1 is in flight
  send(numbered(ObjectKind::LocalQueue, "lq", 1));   // another object takes the slot
  ASSERT_EQ(api_.order, (std::vector<std::string>{"ClusterQueue/cq", "LocalQueue/lq"}));
  EXPECT_EQ(summary().as_object().at("parkedBehindRewrite").to_number<int>(), 1);
  send(numbered(ObjectKind::ClusterQueue, "cq", 3));  // replaces the waiting one
  ASSERT_EQ(api_.order.size(), 2u);
  drain();
  // Two writes of cq, in the order asked for, the second with the newest body: they can
  // only land in that order.
  ASSERT_EQ(api_.order, (std::vector<std::string>{"ClusterQueue/cq", "LocalQueue/lq", "ClusterQueue/cq"}));
  EXPECT_EQ(marker(api_.held[0].request), 1);
  EXPECT_EQ(marker(api_.held[2].request), 3);
  EXPECT_EQ(std::count(outcomes_.begin(), outcomes_.end(), "ClusterQueue/cq superseded"), 1);
  EXPECT_EQ(std::count(outcomes_.begin(), outcomes_.end(), "ClusterQueue/cq ok"), 2);
  EXPECT_EQ(outcomes_.size(), 4u);
  EXPECT_EQ(summary().as_object().at("parkedBehindRewrite").to_number<int>(), 0);
}

TEST_F(WriterActorTest, AnOverdueStatusDoesNotOvertakeTheBackgroundRewriteOfItsQueue) {
  // The perf baseline's stale status: cq's rewrite waits in the background for a token
  // while admissions use the budget; a newer one, overdue, would go in the foreground and
  // land first, and the older one would land last and stay.
  respawn_with_background_writes();
  send(numbered(ObjectKind::ClusterQueue, "cq", 1));  // in the background
  send(numbered(ObjectKind::ClusterQueue, "cq", 2));
  now_ += std::chrono::seconds(6);  // overdue now
  send(write(ObjectKind::Workload, "admit-0", WriteIntent::Eviction));
  send(write(ObjectKind::Workload, "admit-1", WriteIntent::Eviction));
  ASSERT_EQ(api_.order, (std::vector<std::string>{"ClusterQueue/cq", "Workload/admit-0", "Workload/admit-1"}));
  ASSERT_TRUE(api_.answer_one());  // cq 1 landed
  sched_->run();
  ASSERT_EQ(api_.order.size(), 4u);
  EXPECT_EQ(api_.order[3], "ClusterQueue/cq");
  EXPECT_EQ(marker(api_.held[3].request), 2);
  drain();
}

TEST_F(WriterActorTest, AWaitingRewriteCancelledByAnUrgentWriteIsNotSentAfterTheOneInFlight) {
  respawn_with_two_in_flight();
  send(numbered(ObjectKind::Workload, "a", 1));  // an explanation in flight
  send(numbered(ObjectKind::Workload, "a", 2));  // waits for it
  send(write(ObjectKind::Workload, "a", WriteIntent::Eviction));  // the admission cancels the waiting one
  drain();
  EXPECT_EQ(api_.order, (std::vector<std::string>{"Workload/a", "Workload/a"}));
  EXPECT_FALSE(api_.held[1].request.policy().coalesce);
  EXPECT_EQ(std::count(outcomes_.begin(), outcomes_.end(), "Workload/a superseded, landed"), 1);
  EXPECT_EQ(std::count(outcomes_.begin(), outcomes_.end(), "Workload/a ok"), 2);
  EXPECT_EQ(summary().as_object().at("parkedBehindRewrite").to_number<int>(), 0);
}

TEST_F(WriterActorTest, EveryRequestIsAnsweredOnceInEveryLane) {
  const ObjectKind kinds[] = {ObjectKind::Workload, ObjectKind::Job, ObjectKind::Event, ObjectKind::ClusterQueue,
                              ObjectKind::LocalQueue};
  int sent = 0;
  for (int round = 0; round < 4; ++round) {
    for (ObjectKind k : kinds) {
      send(write(k, "o" + std::to_string(round)));
      ++sent;
    }
  }
  drain();
  EXPECT_EQ(static_cast<int>(api_.order.size()), sent);
  EXPECT_EQ(static_cast<int>(outcomes_.size()), sent);
}

TEST_F(WriterActorTest, AShardsWriteCarriesTheEndOfItsLeaseToTheClient) {
  WriterOptions options;
  options.max_in_flight = 4;
  options.sharded = true;
  respawn(options);
  ShardOwnership held;
  held.held = {2};
  held.version = 1;
  held.valid_until = std::chrono::steady_clock::now() + std::chrono::hours(1);
  caf::anon_send(writer_, held);
  sched_->run();
  WriteRequest admission = write(ObjectKind::Workload, "admit", WriteIntent::Eviction);
  admission.shard = 2u;
  send(admission);
  send(write(ObjectKind::Event, "not-tree-scoped"));
  ASSERT_EQ(api_.held.size(), 2u);
  // Sent after the Lease ended (the process frozen meanwhile), the client drops it.
  ASSERT_TRUE(api_.held[0].send.send_before.has_value());
  EXPECT_EQ(*api_.held[0].send.send_before, held.valid_until);
  EXPECT_FALSE(api_.held[1].send.send_before.has_value());
  drain();
}

TEST_F(WriterActorTest, ADrainIsAnsweredOnlyOnceTheTreeScopedWritesInFlightCompleted) {
  // Graceful stop: nothing is held any more, then the drain; the Lease is released on its
  // answer, so a write sent earlier must have landed (or failed) by then.
  WriteRequest admission = write(ObjectKind::Workload, "admit", WriteIntent::Eviction);
  admission.shard = 2u;
  send(admission);  // in flight, held by the API
  ShardOwnership nothing;
  nothing.version = 1;
  caf::anon_send(writer_, nothing);
  std::optional<WritesDrained> drained;
  system_->spawn([writer = writer_, &drained](caf::event_based_actor* self) {
    self->request(writer, caf::infinite, DrainWrites{}).then([&drained](const WritesDrained& d) { drained = d; });
  });
  sched_->run();
  EXPECT_FALSE(drained.has_value()) << "answered while the admission is still in flight";
  ASSERT_TRUE(api_.answer_one());
  sched_->run();
  ASSERT_TRUE(drained.has_value());
  EXPECT_EQ(drained->waited_for, 1u);
  // With nothing tree-scoped in flight, a drain is answered at once.
  drained.reset();
  send(write(ObjectKind::Event, "not-tree-scoped"));  // in flight, but carries no shard
  system_->spawn([writer = writer_, &drained](caf::event_based_actor* self) {
    self->request(writer, caf::infinite, DrainWrites{}).then([&drained](const WritesDrained& d) { drained = d; });
  });
  sched_->run();
  ASSERT_TRUE(drained.has_value());
  EXPECT_EQ(drained->waited_for, 0u);
}

}  // namespace
}  // namespace kueuepp::actors
