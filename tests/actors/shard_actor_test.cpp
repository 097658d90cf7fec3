// Several replicas' shard actors in one actor system against the embedded API server
// (real HTTP, real Leases), with short durations (lease 2 s, renew 1.5 s, retry 0.25 s):
//   - every shard is held by exactly one replica, spread evenly, also after one joins;
//   - the shards of a replica that dies are taken by the others about a lease duration later;
//   - a graceful stop hands its shards over within a few retry periods;
//   - at no moment do two replicas claim the same shard.
// Claims are recorded from what each replica's sink receives: a ShardOwnership claims its
// shards from its arrival until the replica's next message, its death, or its
// valid_until (where the writer's fence stops acting), whichever comes first. All waiting
// polls with a deadline.

#include <caf/actor_system.hpp>
#include <caf/after.hpp>
#include <caf/system_messages.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scheduler/coordinator.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "actors/introspection_actor.hpp"
#include "actors/shard_actor.hpp"
#include "actors/wake_on_backlog_policy.hpp"
#include "kube/client/blocking_client.hpp"
#include "kube/client/client.hpp"
#include "kube/json/json.hpp"
#include "kube/leader/lease_names.hpp"
#include "kube/apiserver/server/api_server.hpp"

namespace kueuepp::actors {
namespace {

using namespace std::chrono_literals;
using messages::ShardOwnership;
using Clock = std::chrono::steady_clock;

constexpr std::uint32_t kShards = 4;
constexpr auto kLease = 2000ms;
constexpr auto kRenew = 1500ms;
constexpr auto kRetry = 250ms;
constexpr const char* kNamespace = "kueuepp-system";

/// Every ownership message any replica's sink received, with its arrival time.
class OwnershipLog {
 public:
  struct Event {
    std::string replica;
    Clock::time_point at;
    ShardOwnership ownership;
  };
  struct Claim {
    std::string replica;
    std::uint32_t shard;
    Clock::time_point from;
    Clock::time_point until;
  };

  void record(const std::string& replica, const ShardOwnership& o) {
    std::lock_guard lock(mutex_);
    events_.push_back(Event{replica, Clock::now(), o});
  }
  void died(const std::string& replica) {
    std::lock_guard lock(mutex_);
    dead_[replica] = Clock::now();
  }

  /// The shards each replica claims now (its last message, still valid, not dead).
  std::map<std::string, std::set<std::uint32_t>> current() const {
    std::lock_guard lock(mutex_);
    const auto now = Clock::now();
    std::map<std::string, std::set<std::uint32_t>> out;
    for (const auto& e : events_) {
      if (dead_.count(e.replica) != 0) continue;
      out[e.replica] = now < e.ownership.valid_until ? e.ownership.held : std::set<std::uint32_t>{};
    }
    return out;
  }

  /// Every claim so far (see the file comment).
  std::vector<Claim> claims() const {
    std::lock_guard lock(mutex_);
    const auto now = Clock::now();
    std::map<std::string, std::vector<const Event*>> by_replica;
    for (const auto& e : events_) by_replica[e.replica].push_back(&e);
    std::vector<Claim> out;
    for (const auto& [replica, events] : by_replica) {
      auto dead = dead_.find(replica);
      const auto end = dead == dead_.end() ? now : dead->second;
      for (std::size_t i = 0; i < events.size(); ++i) {
        auto until = std::min({i + 1 < events.size() ? events[i + 1]->at : end, end, events[i]->ownership.valid_until});
        for (auto shard : events[i]->ownership.held) out.push_back(Claim{replica, shard, events[i]->at, until});
      }
    }
    return out;
  }

  /// Versions of each replica's messages increase.
  bool versions_increase() const {
    std::lock_guard lock(mutex_);
    std::map<std::string, std::uint64_t> last;
    for (const auto& e : events_) {
      auto& v = last[e.replica];
      if (e.ownership.version <= v) return false;
      v = e.ownership.version;
    }
    return true;
  }

  std::optional<ShardOwnership> last_of(const std::string& replica) const {
    std::lock_guard lock(mutex_);
    for (auto it = events_.rbegin(); it != events_.rend(); ++it) {
      if (it->replica == replica) return it->ownership;
    }
    return std::nullopt;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<Event> events_;
  std::map<std::string, Clock::time_point> dead_;
};

messages::ownership_sink::behavior_type record_ownership(messages::ownership_sink::pointer,
                                                          std::shared_ptr<OwnershipLog> log, std::string replica) {
  return {[log, replica](const ShardOwnership& o) { log->record(replica, o); }};
}

bool wait_until(const std::function<bool()>& condition, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (!condition()) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

/// Polls `condition` for `duration`: false as soon as it does not hold.
bool holds_throughout(const std::function<bool()>& condition, std::chrono::milliseconds duration) {
  const auto end = Clock::now() + duration;
  while (Clock::now() < end) {
    if (!condition()) return false;
    std::this_thread::sleep_for(10ms);
  }
  return condition();
}

std::string describe(const std::map<std::string, std::set<std::uint32_t>>& held) {
  std::string out;
  for (const auto& [replica, shards] : held) {
    out += replica + ":{";
    for (auto s : shards) out += std::to_string(s) + " ";
    out += "} ";
  }
  return out;
}

/// Every shard claimed by exactly one replica.
bool each_shard_held_once(const std::map<std::string, std::set<std::uint32_t>>& held) {
  std::map<std::uint32_t, int> count;
  for (const auto& [replica, shards] : held) {
    for (auto s : shards) ++count[s];
  }
  for (std::uint32_t s = 0; s < kShards; ++s) {
    if (count[s] != 1) return false;
  }
  return count.size() == kShards;
}

/// How many shards each replica holds, sorted.
std::vector<std::size_t> spread(const std::map<std::string, std::set<std::uint32_t>>& held) {
  std::vector<std::size_t> out;
  for (const auto& [replica, shards] : held) out.push_back(shards.size());
  std::sort(out.begin(), out.end());
  return out;
}

class ShardActorTest : public ::testing::Test {
 protected:
  struct Replica {
    std::string identity;
    messages::shard_actor actor;
    messages::ownership_sink sink;
    bool running = true;
  };

  static void SetUpTestSuite() { spdlog::set_level(spdlog::level::warn); }

  void SetUp() override {
    kube::server::ApiServerOptions o;
    o.listen = "127.0.0.1:0";
    o.fsync = false;
    auto server = kube::server::ApiServer::start(o);
    ASSERT_TRUE(server) << server.error().message;
    server_ = std::move(*server);
    kube::client::ClientConfig config;
    config.server = server_->url();
    config.source = "test";
    kube::client::ClientOptions options;
    options.qps = -1;
    auto client = kube::client::Client::create(config, options);
    ASSERT_TRUE(client) << client.error().message;
    client_ = std::move(*client);
    kube::client::Object ns;
    ns.set_type("v1", "Namespace");
    ns.set_name(kNamespace);
    ASSERT_TRUE(kube::client::BlockingClient(*client_).create(kube::client::resources::kNamespace, ns));
    cfg_.set("logger.verbosity", caf::atom("quiet"));
    // The controller's scheduler (actors/controller.cpp), which the shard actor runs on.
    cfg_.load<caf::scheduler::coordinator<WakeOnBacklogPolicy>>();
    system_ = std::make_unique<caf::actor_system>(cfg_);
    introspection_ = spawn_introspection(*system_);
  }

  void TearDown() override {
    if (system_) {
      for (auto& r : replicas_) {
        if (r.running) stop(r);
      }
      for (auto& r : replicas_) caf::anon_send_exit(r.sink, caf::exit_reason::user_shutdown);
      caf::anon_send_exit(introspection_, caf::exit_reason::user_shutdown);
      replicas_.clear();
      introspection_ = messages::introspection_actor();
      system_.reset();
    }
    if (client_) client_->shutdown();
    client_.reset();
    if (server_) server_->stop();
  }

  Replica& start_replica(const std::string& pod) {
    Replica r;
    r.identity = kube::leader::make_identity(pod);
    r.sink = system_->spawn(record_ownership, log_, r.identity);
    ShardOptions o;
    o.ns = kNamespace;
    o.identity = r.identity;
    o.shard_count = kShards;
    o.lease_duration = kLease;
    o.renew_deadline = kRenew;
    o.retry_period = kRetry;
    auto actor = spawn_shard_actor(*system_, *client_, o, {r.sink}, introspection_);
    EXPECT_TRUE(actor) << actor.error().message;
    r.actor = *actor;
    replicas_.push_back(std::move(r));
    return replicas_.back();
  }

  /// Graceful stop; waits for the answer.
  messages::ShardStopped stop(Replica& r) {
    messages::ShardStopped result;
    caf::scoped_actor self{*system_};
    self->request(r.actor, 10s, messages::ShardStop{})
        .receive([&](const messages::ShardStopped& stopped) { result = stopped; },
                 [&](const caf::error& e) { ADD_FAILURE() << "ShardStop: " << caf::to_string(e); });
    r.running = false;
    log_->died(r.identity);
    return result;
  }

  /// A crash: the actor dies without releasing anything.
  void kill(Replica& r) {
    caf::scoped_actor self{*system_};
    self->monitor(r.actor);
    caf::anon_send_exit(r.actor, caf::exit_reason::kill);
    self->receive([&](const caf::down_msg&) {}, caf::after(10s) >> [&] { ADD_FAILURE() << "still alive"; });
    log_->died(r.identity);
    r.running = false;
  }

  messages::ActorInfo introspect(Replica& r) {
    messages::ActorInfo info;
    caf::scoped_actor self{*system_};
    self->request(r.actor, 5s, messages::IntrospectActor{})
        .receive([&](const messages::ActorInfo& i) { info = i; },
                 [&](const caf::error& e) { ADD_FAILURE() << "IntrospectActor: " << caf::to_string(e); });
    return info;
  }

  /// holderIdentity of every shard Lease on the server.
  std::map<std::uint32_t, std::string> lease_holders() {
    std::map<std::uint32_t, std::string> out;
    for (std::uint32_t s = 0; s < kShards; ++s) {
      auto lease = kube::client::BlockingClient(*client_).get(kube::client::resources::kLease, kNamespace,
                                                              kube::leader::shard_lease_name("kueuepp", s));
      if (lease) out[s] = std::string(lease->string_at({"spec", "holderIdentity"}));
    }
    return out;
  }

  bool member_lease_exists(const std::string& identity) {
    return static_cast<bool>(kube::client::BlockingClient(*client_).get(
        kube::client::resources::kLease, kNamespace, kube::leader::member_lease_name("kueuepp", identity)));
  }

  /// What the sinks say agrees with the Leases on the server.
  void expect_server_agrees() {
    auto held = log_->current();
    auto holders = lease_holders();
    for (const auto& [replica, shards] : held) {
      for (auto s : shards) EXPECT_EQ(holders[s], replica) << "shard " << s;
    }
  }

  /// No two replicas ever claimed the same shard at the same time.
  void expect_no_overlap() {
    auto claims = log_->claims();
    for (std::size_t i = 0; i < claims.size(); ++i) {
      for (std::size_t j = i + 1; j < claims.size(); ++j) {
        const auto& a = claims[i];
        const auto& b = claims[j];
        if (a.shard != b.shard || a.replica == b.replica) continue;
        const bool overlap = std::max(a.from, b.from) < std::min(a.until, b.until);
        EXPECT_FALSE(overlap) << "shard " << a.shard << " claimed by " << a.replica << " and " << b.replica;
      }
    }
    EXPECT_TRUE(log_->versions_increase());
  }

  bool balanced(std::vector<std::size_t> expected_spread) {
    auto held = log_->current();
    return each_shard_held_once(held) && spread(held) == expected_spread;
  }

  std::unique_ptr<kube::server::ApiServer> server_;
  std::unique_ptr<kube::client::Client> client_;
  caf::actor_system_config cfg_;
  std::unique_ptr<caf::actor_system> system_;
  messages::introspection_actor introspection_;
  std::shared_ptr<OwnershipLog> log_ = std::make_shared<OwnershipLog>();
  std::vector<Replica> replicas_;
};

TEST_F(ShardActorTest, SpreadsTheShardsEvenlyAndAgainWhenAReplicaJoins) {
  start_replica("pod-a");
  start_replica("pod-b");
  ASSERT_TRUE(wait_until([&] { return balanced({2, 2}); }, 10s)) << describe(log_->current());
  start_replica("pod-c");
  ASSERT_TRUE(wait_until([&] { return balanced({1, 1, 2}); }, 10s)) << describe(log_->current());
  // Settled: no shard moves while everybody renews.
  EXPECT_TRUE(holds_throughout([&] { return balanced({1, 1, 2}); }, 1s)) << describe(log_->current());
  expect_server_agrees();

  // The introspection summary: shard count, what it holds, the members, every holder.
  auto info = introspect(replicas_[0]);
  EXPECT_EQ(info.kind, "shard");
  EXPECT_EQ(info.name, replicas_[0].identity);
  auto summary = json::parse(info.summary);
  ASSERT_TRUE(summary && summary->is_object()) << info.summary;
  const auto& o = summary->as_object();
  EXPECT_EQ(o.at("shardCount").to_number<std::int64_t>(), kShards);
  EXPECT_EQ(o.at("members").as_array().size(), 3u) << info.summary;
  EXPECT_EQ(o.at("held").as_array().size(), log_->current()[replicas_[0].identity].size());
  auto holders = lease_holders();
  const auto& shards = o.at("shards").as_array();
  ASSERT_EQ(shards.size(), kShards);
  for (std::uint32_t s = 0; s < kShards; ++s) {
    EXPECT_EQ(json::get_string(shards[s], "holder"), holders[s]) << info.summary;
  }
  expect_no_overlap();
}

TEST_F(ShardActorTest, TheShardsOfADeadReplicaAreTakenAboutALeaseDurationLater) {
  for (const char* pod : {"pod-a", "pod-b", "pod-c"}) start_replica(pod);
  ASSERT_TRUE(wait_until([&] { return balanced({1, 1, 2}); }, 10s)) << describe(log_->current());
  // The replica with two shards dies without a word (its Leases are left to expire).
  auto held = log_->current();
  auto victim = std::find_if(replicas_.begin(), replicas_.end(),
                             [&](const Replica& r) { return held[r.identity].size() == 2; });
  ASSERT_NE(victim, replicas_.end());
  const auto died = Clock::now();
  kill(*victim);
  ASSERT_TRUE(wait_until([&] { return balanced({2, 2}); }, 10s)) << describe(log_->current());
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - died);
  std::printf("shards of a dead replica taken over in %lld ms (lease %lld ms, retry %lld ms)\n",
              static_cast<long long>(took.count()), static_cast<long long>(kLease.count()),
              static_cast<long long>(kRetry.count()));
  // Expiry (one lease duration after the last renewal was seen) plus a few retry
  // periods to see it and write; generous for a loaded machine.
  EXPECT_LT(took, kLease + 8 * kRetry);
  // Nobody took a Lease before it could have expired: the victim's last renewal was at
  // most about one retry period before it died.
  EXPECT_GT(took, kLease - 2 * kRetry);
  expect_server_agrees();
  expect_no_overlap();
}

TEST_F(ShardActorTest, AGracefulStopHandsOverWithinRetryPeriods) {
  for (const char* pod : {"pod-a", "pod-b", "pod-c"}) start_replica(pod);
  ASSERT_TRUE(wait_until([&] { return balanced({1, 1, 2}); }, 10s)) << describe(log_->current());
  auto held = log_->current();
  auto leaving = std::find_if(replicas_.begin(), replicas_.end(),
                              [&](const Replica& r) { return held[r.identity].size() == 2; });
  ASSERT_NE(leaving, replicas_.end());
  const std::string identity = leaving->identity;
  const auto began = Clock::now();
  messages::ShardStopped stopped = stop(*leaving);
  EXPECT_EQ(stopped.released, 2u);
  EXPECT_EQ(stopped.failed, 0u);
  EXPECT_TRUE(stopped.member_deleted);
  // It told its sinks it holds nothing before it released anything.
  auto last = log_->last_of(identity);
  ASSERT_TRUE(last);
  EXPECT_TRUE(last->held.empty());
  EXPECT_FALSE(member_lease_exists(identity));
  ASSERT_TRUE(wait_until([&] { return balanced({2, 2}); }, 10s)) << describe(log_->current());
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - began);
  std::printf("graceful hand-over in %lld ms (lease %lld ms, retry %lld ms)\n", static_cast<long long>(took.count()),
              static_cast<long long>(kLease.count()), static_cast<long long>(kRetry.count()));
  EXPECT_LT(took, kLease);  // faster than waiting for expiry
  expect_server_agrees();
  expect_no_overlap();
}

TEST_F(ShardActorTest, OneShardIsTheClassicLeaderLease) {
  ShardOptions o;
  o.ns = kNamespace;
  o.identity = "solo_01";
  o.lease_duration = kLease;
  o.renew_deadline = kRenew;
  o.retry_period = kRetry;
  auto sink = system_->spawn(record_ownership, log_, o.identity);
  auto actor = spawn_shard_actor(*system_, *client_, o, {sink}, introspection_);
  ASSERT_TRUE(actor);
  replicas_.push_back(Replica{o.identity, *actor, sink, true});
  ASSERT_TRUE(wait_until([&] { return lease_holders()[0] == "solo_01"; }, 10s));
  ASSERT_TRUE(wait_until([&] { return log_->current()["solo_01"] == std::set<std::uint32_t>{0}; }, 10s));
  auto lease = kube::client::BlockingClient(*client_).get(kube::client::resources::kLease, kNamespace, "kueuepp-shard-0");
  ASSERT_TRUE(lease);
  EXPECT_EQ(lease->int_at({"spec", "leaseDurationSeconds"}), 2);
  EXPECT_EQ(lease->label("kueuepp.x-k8s.io/lease-role"), "shard");
  EXPECT_FALSE(lease->string_at({"spec", "renewTime"}).empty());
}

TEST_F(ShardActorTest, InvalidOptionsAreRefused) {
  ShardOptions o;
  o.identity = "x_1";
  o.renew_deadline = o.lease_duration;
  auto refused = spawn_shard_actor(*system_, *client_, o, {}, introspection_);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("renewDeadline"), std::string::npos) << refused.error().message;
  o = ShardOptions{};
  EXPECT_FALSE(spawn_shard_actor(*system_, *client_, o, {}, introspection_));  // no identity
  o.identity = "x_1";
  o.shard_count = 0;
  EXPECT_FALSE(spawn_shard_actor(*system_, *client_, o, {}, introspection_));
}

}  // namespace
}  // namespace kueuepp::actors
