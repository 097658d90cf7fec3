// The shard actor's safety protocol on CAF's test coordinator, with an in-memory Lease
// API and the coordinator's clock as the actor's clock: deterministic, no sleeps.
//   - the sinks hear that a shard is gone before its release is written;
//   - when renewals hang, the renew-deadline timer (not an answer) ends ownership at
//     exactly valid_until;
//   - a stop tells the sinks first, releases every held Lease, deletes the member Lease
//     and answers; a stop whose requests hang answers after stop_timeout.
// "Before the release is written" is observable: when a write is requested, the sink
// first handles whatever was already sent to it (and nothing sent later).

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "actors/shard_actor.hpp"
#include "tests/actors/deterministic_actor_test.hpp"
#include "kube/leader/lease_api.hpp"
#include "kube/leader/lease_names.hpp"
#include "kube/leader/lease_record.hpp"

namespace kueuepp::actors {
namespace {

using namespace std::chrono_literals;
using kube::client::ApiError;
using kube::client::Object;
using kube::client::Result;
using messages::ShardOwnership;

constexpr std::uint32_t kShards = 4;
constexpr const char* kMe = "a_01";
constexpr const char* kOther = "b_02";

ApiError status_error(int status, std::string reason) {
  ApiError e;
  e.kind = ApiError::Kind::Status;
  e.http_status = status;
  e.reason = std::move(reason);
  e.message = e.reason;
  return e;
}

/// Leases in memory, answering at once (or holding writes when told to), and noting
/// every request.
class FakeLeases final : public kube::leader::LeaseApi {
 public:
  std::map<std::string, Object> stored;
  /// Writes (create, update, delete) are kept unanswered in `held`, lists in `held_lists`.
  bool hold_writes = false;
  bool hold_lists = false;
  std::vector<std::function<void()>> held;
  std::vector<std::function<void()>> held_lists;

  static void answer(std::vector<std::function<void()>>& answers) {
    auto now = std::move(answers);
    answers.clear();
    for (auto& a : now) a();
  }
  /// "update NAME holder=X", "create NAME", "delete NAME", in request order.
  std::vector<std::string> requests;
  /// Runs when a write is requested, before anything is answered.
  std::function<void(const std::string& request, const Object& lease)> on_write;
  /// Runs first (the test delivers what the actor already sent to its sink).
  std::function<void()> before_write;

  void get(std::string_view name, ObjectDone done) override {
    auto it = stored.find(std::string(name));
    if (it == stored.end()) return done(unexpected(status_error(404, "NotFound")));
    done(it->second);
  }

  void list(std::string_view selector, ListDone done) override {
    // What is stored when the answer is given.
    auto answer = [this, label = std::string(selector), done] {
      kube::client::ObjectList list;
      for (const auto& [name, lease] : stored) {
        if (lease.label(label)) list.items.push_back(lease);
      }
      done(std::move(list));
    };
    if (hold_lists) {
      held_lists.push_back(std::move(answer));
    } else {
      answer();
    }
  }

  /// Every create is refused so while set (a missing namespace, a forbidden write).
  std::optional<ApiError> refuse_creates;

  void create(Object lease, ObjectDone done) override {
    write("create " + std::string(lease.name()), lease, [this, lease, done]() mutable {
      if (refuse_creates) return done(unexpected(*refuse_creates));
      if (stored.count(std::string(lease.name())) != 0) return done(unexpected(status_error(409, "AlreadyExists")));
      done(store(std::move(lease)));
    });
  }

  void update(Object lease, ObjectDone done) override {
    std::string request = "update " + std::string(lease.name()) + " holder=" +
                          std::string(lease.string_at({"spec", "holderIdentity"}));
    write(request, lease, [this, lease, done]() mutable {
      auto it = stored.find(std::string(lease.name()));
      if (it == stored.end()) return done(unexpected(status_error(404, "NotFound")));
      if (it->second.resource_version() != lease.resource_version()) {
        return done(unexpected(status_error(409, "Conflict")));
      }
      done(store(std::move(lease)));
    });
  }

  void remove(std::string_view name, DeleteDone done, std::string_view) override {
    std::string key(name);
    Object none;
    none.set_name(key);
    write("delete " + key, none, [this, key, done] {
      stored.erase(key);
      done({});
    });
  }

  /// A Lease held by `holder`, written now (another replica renewing it).
  void put(const std::string& name, std::string_view role, const std::string& holder) {
    Object lease = stored.count(name) != 0 ? stored[name] : Object();
    lease.set_name(name);
    lease.set_label(kube::leader::kLeaseRoleLabel, role);
    kube::leader::LeaseRecord r;
    r.holder_identity = holder;
    r.lease_duration_seconds = 2;
    r.renew_time = std::chrono::system_clock::time_point{} + std::chrono::microseconds(next_rv_);
    kube::leader::encode_lease_record(r, lease);
    store(std::move(lease));
  }

  std::string holder(const std::string& name) const {
    auto it = stored.find(name);
    return it == stored.end() ? "<none>" : std::string(it->second.string_at({"spec", "holderIdentity"}));
  }

  std::size_t count(const std::string& prefix) const {
    std::size_t n = 0;
    for (const auto& r : requests) n += r.rfind(prefix, 0) == 0 ? 1 : 0;
    return n;
  }

 private:
  void write(std::string request, const Object& lease, std::function<void()> answer) {
    requests.push_back(request);
    if (before_write) before_write();
    if (on_write) on_write(request, lease);
    if (hold_writes) {
      held.push_back(std::move(answer));
    } else {
      answer();
    }
  }

  Object store(Object lease) {
    lease.set_resource_version(std::to_string(next_rv_++));
    stored[std::string(lease.name())] = lease;
    return lease;
  }

  int next_rv_ = 1;
};

std::string shard_lease(std::uint32_t i) { return kube::leader::shard_lease_name("kueuepp", i); }

class ShardActorProtocolTest : public DeterministicActorTest {
 protected:
  static void SetUpTestSuite() { spdlog::set_level(spdlog::level::warn); }

  ShardActorProtocolTest() {
    sink_ = system_->spawn([this](messages::ownership_sink::pointer) -> messages::ownership_sink::behavior_type {
      return {[this](const ShardOwnership& o) { received_.push_back(o); }};
    });
    introspection_ = system_->spawn([](messages::introspection_actor::pointer)
                                        -> messages::introspection_actor::behavior_type {
      return {[](const messages::ActorRegistered&) {}, [](const messages::HttpQuery&) {}};
    });
  }

  ~ShardActorProtocolTest() override {
    if (actor_) caf::anon_send_exit(actor_, caf::exit_reason::kill);
    if (writes_) caf::anon_send_exit(writes_, caf::exit_reason::kill);
    caf::anon_send_exit(sink_, caf::exit_reason::kill);
    caf::anon_send_exit(introspection_, caf::exit_reason::kill);
    sched_->run();
  }

  void start() {
    ShardOptions o;
    o.ns = "ns";
    o.identity = kMe;
    o.shard_count = kShards;
    o.lease_duration = 2000ms;
    o.renew_deadline = 1500ms;
    o.retry_period = 250ms;
    o.stop_timeout = 1000ms;
    auto* sched = sched_;
    o.clock = [sched] { return sched->clock().now(); };
    o.writes = writes_;
    o.on_blocked = [this](const std::string& why) { blocked_.push_back(why); };
    // Runs inside the shard actor's handler: only the sink's pending messages are handled
    // here (the sink is moved to the front of the job queue and run alone).
    api_->before_write = [this] {
      while (sched_->prioritize(sink_)) sched_->run_once();
    };
    auto actor = spawn_shard_actor(*system_, api_, o, {sink_}, introspection_);
    ASSERT_TRUE(actor) << actor.error().message;
    actor_ = *actor;
    sched_->run();
  }

  /// Advances the actor's clock in 10 ms steps (firing its timers) for `d`, or until
  /// `until` holds; the other replica's member Lease (if any) is renewed every step.
  bool advance(std::chrono::milliseconds d, const std::function<bool()>& until = {}) {
    for (auto t = 0ms; t < d; t += 10ms) {
      if (until && until()) return true;
      if (other_renews_) api_->put(kube::leader::member_lease_name("kueuepp", kOther), "member", kOther);
      for (auto shard : other_shards_) api_->put(shard_lease(shard), "shard", kOther);
      sched_->clock().advance_time(10ms);
      sched_->run();
    }
    return until && until();
  }

  std::vector<std::string> blocked_;  ///< what on_blocked was told, in order

  std::set<std::uint32_t> held() const { return received_.empty() ? std::set<std::uint32_t>{} : received_.back().held; }

  /// Starts alone and waits until it holds every shard.
  void start_holding_everything() {
    start();
    ASSERT_TRUE(advance(5s, [&] { return held().size() == kShards; })) << "held " << held().size();
  }

  std::shared_ptr<FakeLeases> api_ = std::make_shared<FakeLeases>();
  messages::ownership_sink sink_;
  messages::introspection_actor introspection_;
  messages::shard_actor actor_;
  std::vector<ShardOwnership> received_;
  /// With a drain target: the writer the shard actor drains before a hand-over release.
  messages::writer_actor writes_;
  /// The other replica is live (renews its member Lease) and holds these shards.
  bool other_renews_ = false;
  std::set<std::uint32_t> other_shards_;
};

TEST_F(ShardActorProtocolTest, AloneItTakesEveryShardOnceItsMembershipIsLive) {
  start();
  // The sinks learn at once that sharding is on and nothing is held yet.
  ASSERT_FALSE(received_.empty());
  EXPECT_EQ(received_.front().version, 1u);
  EXPECT_EQ(received_.front().shard_count, kShards);
  EXPECT_TRUE(received_.front().held.empty());
  ASSERT_TRUE(advance(5s, [&] { return held().size() == kShards; }));
  EXPECT_EQ(api_->holder(kube::leader::member_lease_name("kueuepp", kMe)), kMe);
  for (std::uint32_t i = 0; i < kShards; ++i) EXPECT_EQ(api_->holder(shard_lease(i)), kMe);
  for (std::size_t i = 1; i < received_.size(); ++i) EXPECT_GT(received_[i].version, received_[i - 1].version);
  // Renewals move valid_until: sent again, the same shards.
  const auto until = received_.back().valid_until;
  advance(1s);
  EXPECT_GT(received_.back().valid_until, until);
  EXPECT_EQ(held().size(), kShards);
}

TEST_F(ShardActorProtocolTest, TheSinksHearOfAHandOverBeforeTheReleaseIsWritten) {
  start_holding_everything();
  // Every release must find the sinks already told the shard is gone.
  std::vector<std::string> violations;
  api_->on_write = [&](const std::string& request, const Object& lease) {
    if (request.find("holder=") == std::string::npos || !lease.string_at({"spec", "holderIdentity"}).empty()) return;
    for (std::uint32_t i = 0; i < kShards; ++i) {
      if (lease.name() == shard_lease(i) && held().count(i) != 0) violations.push_back(request);
    }
  };
  // Another replica joins: a_01 keeps shards 0 and 1, shards 2 and 3 are b_02's.
  other_renews_ = true;
  ASSERT_TRUE(advance(3s, [&] { return held() == std::set<std::uint32_t>{0, 1}; })) << "held " << held().size();
  EXPECT_TRUE(violations.empty()) << violations.front();
  EXPECT_EQ(api_->count("update " + shard_lease(2) + " holder=" + kMe), api_->count("update " + shard_lease(2)) - 1)
      << "one release of shard 2";
  EXPECT_EQ(api_->holder(shard_lease(2)), "");
  EXPECT_EQ(api_->holder(shard_lease(3)), "");
  EXPECT_EQ(api_->holder(shard_lease(0)), kMe);
  // b_02 takes them and renews them; a_01 keeps to its own.
  other_shards_ = {2, 3};
  advance(3s);
  EXPECT_EQ(held(), (std::set<std::uint32_t>{0, 1}));
  EXPECT_EQ(api_->holder(shard_lease(2)), kOther);
  EXPECT_EQ(api_->holder(shard_lease(0)), kMe);
}

TEST_F(ShardActorProtocolTest, TheSinksHearOfAHandOverBeforeAReleaseWrittenAtOnce) {
  // A release is written at once when the shard's election is idle as the assignment
  // changes: its renewal was in flight when the list was sent and answered before it.
  start_holding_everything();
  std::vector<std::string> violations;
  std::size_t releases = 0;
  api_->on_write = [&](const std::string& request, const Object& lease) {
    if (!lease.string_at({"spec", "holderIdentity"}).empty() || request.rfind("update", 0) != 0) return;
    ++releases;
    for (std::uint32_t i = 0; i < kShards; ++i) {
      if (lease.name() == shard_lease(i) && held().count(i) != 0) violations.push_back(request);
    }
  };
  api_->hold_writes = true;
  api_->hold_lists = true;
  other_renews_ = true;  // b_02 joins
  ASSERT_TRUE(advance(1s, [&] { return api_->held_lists.size() == 1; }));
  FakeLeases::answer(api_->held_lists);  // b_02 seen (not settled yet); renewals sent
  sched_->run();
  ASSERT_FALSE(api_->held.empty());
  ASSERT_TRUE(advance(1s, [&] { return api_->held_lists.size() == 1; }));  // renewals still in flight
  FakeLeases::answer(api_->held);  // renewed: idle, leading
  sched_->run();
  ASSERT_EQ(releases, 0u);
  FakeLeases::answer(api_->held_lists);  // b_02 settled: hand over shards 2 and 3 now
  sched_->run();
  EXPECT_EQ(releases, 2u);
  EXPECT_TRUE(violations.empty()) << violations.front();
  EXPECT_EQ(held(), (std::set<std::uint32_t>{0, 1}));
}

TEST_F(ShardActorProtocolTest, AHandOverReleasesOnlyAfterTheWriterDrained) {
  // A fake writer that keeps every drain waiting until the test answers it (promises are
  // delivered from inside the actor: a ShardOwnership of version kAnswer says so).
  constexpr std::uint64_t kAnswer = 424242;
  std::vector<caf::typed_response_promise<messages::WritesDrained>> drains;
  writes_ = system_->spawn([&drains](messages::writer_actor::pointer self) -> messages::writer_actor::behavior_type {
    return {
        [](messages::WriteRequest&) { return messages::WriteOutcome{}; },
        [](messages::WriteDone&) {},
        [&drains](ShardOwnership& o) {
          if (o.version != kAnswer) return;
          for (auto& d : drains) d.deliver(messages::WritesDrained{1});
          drains.clear();
        },
        [self, &drains](messages::DrainWrites) -> caf::result<messages::WritesDrained> {
          drains.push_back(self->make_response_promise<messages::WritesDrained>());
          return drains.back();
        },
        [](messages::IntrospectActor) { return messages::ActorInfo{}; },
    };
  });
  start_holding_everything();
  std::size_t releases = 0;
  api_->on_write = [&](const std::string& request, const Object& lease) {
    if (request.rfind("update", 0) == 0 && lease.string_at({"spec", "holderIdentity"}).empty()) ++releases;
  };
  other_renews_ = true;  // b_02 joins: shards 2 and 3 are to be handed over
  ASSERT_TRUE(advance(3s, [&] { return !drains.empty(); })) << "no drain asked";
  EXPECT_EQ(held(), (std::set<std::uint32_t>{0, 1})) << "the sinks were told first";
  advance(200ms);
  EXPECT_EQ(releases, 0u) << "released while writes may still be in flight";
  EXPECT_EQ(api_->holder(shard_lease(2)), kMe) << "still renewed while draining";
  EXPECT_EQ(held(), (std::set<std::uint32_t>{0, 1})) << "a renewal while draining must not announce it again";
  ShardOwnership answer;
  answer.version = kAnswer;
  caf::anon_send(writes_, answer);
  sched_->run();
  EXPECT_TRUE(drains.empty());
  EXPECT_EQ(releases, 2u);
  EXPECT_EQ(api_->holder(shard_lease(2)), "");
  EXPECT_EQ(api_->holder(shard_lease(3)), "");
}

TEST_F(ShardActorProtocolTest, TheRenewDeadlineTimerEndsOwnershipWhileRenewalsHang) {
  start_holding_everything();
  api_->hold_writes = true;  // renewals are sent and never answered
  const std::size_t messages_before = received_.size();
  // Advance until the last renewal's valid_until is the latest there will be.
  advance(20ms);
  const auto valid_until = received_.back().valid_until;
  ASSERT_LT(sched_->clock().now(), valid_until);
  advance(std::chrono::ceil<std::chrono::milliseconds>(valid_until - sched_->clock().now()) - 10ms);
  EXPECT_EQ(held().size(), kShards) << "ownership ended before valid_until";
  advance(20ms);
  EXPECT_TRUE(held().empty()) << "still holding after valid_until";
  EXPECT_GE(received_.size(), messages_before + 1);
  EXPECT_FALSE(api_->held.empty());  // nothing was answered: the timer decided
}

TEST_F(ShardActorProtocolTest, StopTellsTheSinksReleasesAndDeletesTheMemberLease) {
  start_holding_everything();
  std::vector<std::string> written_while_holding;
  api_->on_write = [&](const std::string& request, const Object&) {
    if (!held().empty()) written_while_holding.push_back(request);
  };
  std::optional<messages::ShardStopped> answer;
  system_->spawn([&, actor = actor_](caf::event_based_actor* self) {
    self->request(actor, caf::infinite, messages::ShardStop{})
        .then([&](const messages::ShardStopped& s) { answer = s; });
  });
  sched_->run();
  advance(100ms, [&] { return answer.has_value(); });
  ASSERT_TRUE(answer);
  EXPECT_TRUE(written_while_holding.empty()) << written_while_holding.front();
  EXPECT_EQ(answer->released, kShards);
  EXPECT_EQ(answer->failed, 0u);
  EXPECT_TRUE(answer->member_deleted);
  for (std::uint32_t i = 0; i < kShards; ++i) EXPECT_EQ(api_->holder(shard_lease(i)), "");
  EXPECT_EQ(api_->holder(kube::leader::member_lease_name("kueuepp", kMe)), "<none>");
  EXPECT_TRUE(held().empty());
  actor_ = messages::shard_actor();  // it quit
}

TEST_F(ShardActorProtocolTest, AStopWhoseRequestsHangAnswersAfterTheStopTimeout) {
  start_holding_everything();
  api_->hold_writes = true;
  std::optional<messages::ShardStopped> answer;
  system_->spawn([&, actor = actor_](caf::event_based_actor* self) {
    self->request(actor, caf::infinite, messages::ShardStop{})
        .then([&](const messages::ShardStopped& s) { answer = s; });
  });
  sched_->run();
  EXPECT_TRUE(held().empty());  // told at once, whatever the requests do
  advance(900ms);
  EXPECT_FALSE(answer);
  advance(200ms);
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->released, 0u);
  EXPECT_GT(answer->failed, 0u);
  actor_ = messages::shard_actor();
}

TEST_F(ShardActorProtocolTest, AMissingLeaseNamespaceIsSaidOnceWithWhatToDoAndClearedWhenItExists) {
  ApiError missing = status_error(404, "NotFound");
  missing.message = "namespaces \"ns\" not found";
  missing.details.kind = "namespaces";
  missing.details.name = "ns";
  api_->refuse_creates = missing;
  start();
  advance(3s);
  EXPECT_TRUE(held().empty());
  ASSERT_EQ(blocked_.size(), 1u) << "told once, not at every retry";
  EXPECT_NE(blocked_[0].find("kubectl create namespace ns"), std::string::npos) << blocked_[0];
  EXPECT_NE(blocked_[0].find("--namespace"), std::string::npos) << blocked_[0];
  // The namespace is created: the election goes on, and readiness hears it.
  api_->refuse_creates.reset();
  ASSERT_TRUE(advance(5s, [&] { return held().size() == kShards; }));
  ASSERT_EQ(blocked_.size(), 2u);
  EXPECT_EQ(blocked_[1], "");
}

TEST_F(ShardActorProtocolTest, AForbiddenLeaseWriteNamesTheRoleToBind) {
  ApiError forbidden = status_error(403, "Forbidden");
  forbidden.message = "leases.coordination.k8s.io is forbidden";
  api_->refuse_creates = forbidden;
  start();
  advance(1s);
  ASSERT_EQ(blocked_.size(), 1u);
  EXPECT_NE(blocked_[0].find("deploy/rbac/role.yaml"), std::string::npos) << blocked_[0];
}

}  // namespace

}  // namespace kueuepp::actors
