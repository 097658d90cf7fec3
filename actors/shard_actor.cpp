#include "actors/shard_actor.hpp"

#include <caf/actor_cast.hpp>
#include <caf/actor_system.hpp>
#include <caf/exit_reason.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/typed_response_promise.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>

#include "kube/client/client.hpp"
#include "kube/json/json.hpp"
#include "kube/leader/lease_client.hpp"
#include "kube/leader/lease_election.hpp"
#include "kube/leader/lease_names.hpp"
#include "kube/leader/lease_record.hpp"
#include "kube/leader/shard_assignment.hpp"

namespace kueuepp::actors {

namespace {

namespace leader = kube::leader;
using kube::client::Object;
using kube::client::Result;
using leader::ElectionAction;
using leader::Instant;
using leader::LeaseElection;
using leader::LocalTime;
using messages::ShardOwnership;
using Kind = ElectionAction::Kind;

// -- the actor's own messages: timers, and client answers arriving from the io thread ----

struct ShardTimer {
  enum class Kind { Tick, Deadline, StopTimeout } kind = Kind::Tick;
};

/// The answer to one list of the labelled Leases (`round` says which): the Leases, or
/// the error.
struct LeasesListed {
  std::uint64_t round = 0;
  std::vector<Object> items;
  std::optional<kube::client::ApiError> error;
};

/// The answer to a Get of one Lease by name (slot index).
struct LeaseRead {
  std::size_t slot = 0;
  Result<Object> result;
};

/// The answer to a write of one Lease, sent at `sent_at`.
struct LeaseWritten {
  std::size_t slot = 0;
  Kind kind = Kind::None;
  LocalTime sent_at{};
  Result<Object> result;
};

struct MemberDeleted {
  Result<void> result;
};

}  // namespace
}  // namespace kueuepp::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::actors::ShardTimer)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::actors::LeasesListed)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::actors::LeaseRead)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::actors::LeaseWritten)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kueuepp::actors::MemberDeleted)

namespace kueuepp::actors {

namespace {

/// The public interface plus what only the actor (its timers, client callbacks) sends.
using shard_impl = messages::shard_actor::extend<caf::reacts_to<ShardTimer>, caf::reacts_to<LeasesListed>,
                                                 caf::reacts_to<LeaseRead>, caf::reacts_to<LeaseWritten>,
                                                 caf::reacts_to<MemberDeleted>>;

/// One Lease this replica runs an election for.
struct LeaseSlot {
  std::string name;
  std::string_view role;  ///< leader::kRoleShard or kRoleMember
  LeaseElection election;
  /// The Lease as last read or written: updates start from it, keeping unknown fields.
  std::optional<Object> object;
  /// The Lease exists but the labelled list does not show it (created by another tool
  /// without our label): read it by name until our own write has labelled it.
  bool direct_get = false;
  /// The election asked for a read that the next list will answer...
  bool read_requested = false;
  /// ...or that this list (by round) answers.
  std::optional<std::uint64_t> list_round;
};

/// Another replica's member Lease.
struct OtherMember {
  leader::LeaseObservation seen;
  /// Live (held and seen renewing) without interruption since.
  std::optional<LocalTime> live_since;
  /// When this replica last asked to delete it (stale member Leases are collected).
  std::optional<LocalTime> delete_sent_at;
};

/// A member Lease not renewed for this many lease durations belongs to a replica that
/// died without deleting it (SIGKILL, OOM): any replica deletes it, so restarts do not
/// pile up Leases that every replica lists every retry period.
constexpr int kStaleMemberLeaseDurations = 10;

struct Counters {
  std::uint64_t lists = 0;
  std::uint64_t list_failures = 0;
  std::uint64_t writes = 0;
  std::uint64_t conflicts = 0;
  std::uint64_t write_failures = 0;
  std::uint64_t releases = 0;
  /// Shards lost while wanted (renew deadline passed, or another holder seen).
  std::uint64_t lost = 0;
};

struct StopProgress {
  bool active = false;
  bool finished = false;
  caf::error reason;
  std::vector<caf::typed_response_promise<messages::ShardStopped>> promises;
  /// Shard slots whose release is awaited, and those whose release was already tried.
  std::set<std::size_t> pending;
  std::set<std::size_t> attempted;
  bool member_delete_sent = false;
  bool member_pending = true;
  messages::ShardStopped result;
};

struct ShardState {
  ShardOptions options;
  leader::ElectionTiming timing;
  std::shared_ptr<leader::LeaseApi> leases;
  std::vector<messages::ownership_sink> sinks;
  /// Shards 0..shard_count-1, then this replica's member Lease.
  std::vector<LeaseSlot> slots;
  std::string member_prefix;
  /// Other replicas' member Leases, by Lease name.
  std::map<std::string, OtherMember> others;
  /// This replica has been a live member (its member Lease led) since.
  std::optional<LocalTime> member_since;
  /// What the sinks were last told.
  std::uint64_t version = 0;
  std::set<std::uint32_t> announced;
  LocalTime announced_until = LocalTime::max();
  /// When the pending renew-deadline check fires.
  std::optional<LocalTime> deadline_timer;
  /// Shards announced as given up whose release waits for the writer's drain.
  std::set<std::uint32_t> draining;
  bool list_in_flight = false;
  std::uint64_t list_round = 0;
  std::mt19937_64 rng{std::random_device{}()};
  std::uint64_t handled = 0;
  Counters counters;
  StopProgress stop;
  /// Why Lease writes cannot succeed until an operator acts ("": they can), and when that
  /// was last logged (a reminder a minute, not a warning per retry).
  std::string blocked;
  std::optional<LocalTime> blocked_logged;
};

using Self = shard_impl::stateful_pointer<ShardState>;

// -- small helpers ----------------------------------------------------------------------

std::size_t member_slot(const ShardState& st) { return st.options.shard_count; }

LeaseSlot& member(ShardState& st) { return st.slots[member_slot(st)]; }

Instant instant(const ShardState& st) { return Instant{st.options.clock(), std::chrono::system_clock::now()}; }

std::string describe(const std::set<std::uint32_t>& shards) {
  std::string out = "[";
  for (auto s : shards) out += (out.size() > 1 ? "," : "") + std::to_string(s);
  return out + "]";
}

std::string_view op_name(Kind kind) {
  switch (kind) {
    case Kind::Create: return "create";
    case Kind::Update: return "update";
    case Kind::Release: return "release";
    case Kind::Get: return "get";
    case Kind::None: break;
  }
  return "none";
}

/// Client callbacks run on the io thread and hold only a weak handle: a strong one would
/// keep the actor alive after it quit.
template <class Message>
void deliver(const caf::weak_actor_ptr& weak, Message message) {
  if (auto strong = caf::actor_cast<caf::strong_actor_ptr>(weak)) {
    caf::anon_send(caf::actor_cast<shard_impl>(strong), std::move(message));
  }
}

caf::weak_actor_ptr weak_of(Self self) { return caf::actor_cast<caf::weak_actor_ptr>(self); }

/// What an operator must do for a Lease write refused so ("": nothing, a retry may do).
std::string operator_action(const ShardOptions& o, const kube::client::ApiError& e) {
  if (e.is_not_found() && (e.details.kind == "namespaces" || e.message.find("namespaces \"") != std::string::npos)) {
    return "the Leases' namespace \"" + o.ns + "\" does not exist: create it (kubectl create namespace " + o.ns +
           "), or run the controller with --namespace naming an existing one (or POD_NAMESPACE set); until then "
           "this replica acts on no cohort tree";
  }
  if (e.is_forbidden()) {
    return "the controller may not write Leases in namespace \"" + o.ns + "\" (" + e.message +
           "): bind its ServiceAccount to the Role in deploy/rbac/role.yaml there; until then this replica acts on "
           "no cohort tree";
  }
  return {};
}

void log_request_failure(std::string_view op, std::string_view lease, const kube::client::ApiError& e) {
  const bool race = e.http_status == 409;
  spdlog::log(race ? spdlog::level::debug : spdlog::level::warn,
              "shard election: lease request failed: op={} lease={} status={} reason={} error=\"{}\" (retried next "
              "period)",
              op, lease, e.http_status, e.reason, e.describe());
}

// -- telling the sinks ------------------------------------------------------------------

void arm_deadline_timer(Self self, LocalTime now) {
  auto& st = self->state;
  if (st.announced.empty() || st.announced_until == LocalTime::max()) return;
  // An earlier check is pending: it re-arms for the later deadline when it fires.
  if (st.deadline_timer && *st.deadline_timer <= st.announced_until) return;
  st.deadline_timer = st.announced_until;
  auto delay = std::chrono::ceil<std::chrono::milliseconds>(st.announced_until - now) + std::chrono::milliseconds(1);
  self->delayed_send(self, std::max(delay, std::chrono::milliseconds(1)), ShardTimer{ShardTimer::Kind::Deadline});
}

/// Sends ShardOwnership when the held set or its validity changed. `leaving` are shards
/// about to be released: they leave the set now, before the release is written.
void publish(Self self, const std::set<std::uint32_t>& leaving = {}, bool force = false) {
  auto& st = self->state;
  const LocalTime now = st.options.clock();
  std::set<std::uint32_t> held;
  LocalTime until = LocalTime::max();
  if (!st.stop.active) {
    for (std::uint32_t i = 0; i < st.options.shard_count; ++i) {
      auto deadline = st.slots[i].election.leading_until();
      if (!deadline || now >= *deadline || leaving.count(i) != 0 || st.draining.count(i) != 0) continue;
      held.insert(i);
      until = std::min(until, *deadline);
    }
  }
  if (!force && held == st.announced && until == st.announced_until) return;
  if (held != st.announced) {
    std::set<std::uint32_t> gained;
    std::set<std::uint32_t> lost;
    std::set_difference(held.begin(), held.end(), st.announced.begin(), st.announced.end(),
                        std::inserter(gained, gained.end()));
    std::set_difference(st.announced.begin(), st.announced.end(), held.begin(), held.end(),
                        std::inserter(lost, lost.end()));
    // Given up on purpose (hand-over, stop), or lost while still wanted: the renew
    // deadline passed, or a read showed another holder.
    std::set<std::uint32_t> given_up;
    std::set<std::uint32_t> lost_wanted;
    for (auto s : lost) {
      const bool wanted = leaving.count(s) == 0 && !st.stop.active && st.slots[s].election.wanted();
      (wanted ? lost_wanted : given_up).insert(s);
    }
    st.counters.lost += lost_wanted.size();
    spdlog::log(lost_wanted.empty() ? spdlog::level::info : spdlog::level::warn,
                "shard ownership: identity={} holding={} gained={} given_up={} lost={}", st.options.identity,
                describe(held), describe(gained), describe(given_up), describe(lost_wanted));
  }
  st.announced = held;
  st.announced_until = until;
  ShardOwnership ownership;
  ownership.shard_count = st.options.shard_count;
  ownership.held = std::move(held);
  ownership.version = ++st.version;
  ownership.valid_until = until;
  for (auto& sink : st.sinks) self->send(sink, ownership);
  arm_deadline_timer(self, now);
}

// -- carrying out election actions ------------------------------------------------------

void read_directly(Self self, std::size_t i) {
  auto& st = self->state;
  st.leases->get(st.slots[i].name, [weak = weak_of(self), i](Result<Object> r) {
    deliver(weak, LeaseRead{i, std::move(r)});
  });
}

void write(Self self, std::size_t i, const ElectionAction& action) {
  auto& st = self->state;
  auto& slot = st.slots[i];
  const bool create = action.kind == Kind::Create;
  Object lease = !create && slot.object ? *slot.object : Object();
  lease.set_name(slot.name);
  lease.set_resource_version(create ? std::string_view() : std::string_view(action.resource_version));
  lease.set_label(leader::kLeaseRoleLabel, slot.role);
  leader::encode_lease_record(action.record, lease);
  ++st.counters.writes;
  const LocalTime sent_at = st.options.clock();
  auto done = [weak = weak_of(self), i, kind = action.kind, sent_at](Result<Object> r) {
    deliver(weak, LeaseWritten{i, kind, sent_at, std::move(r)});
  };
  if (create) {
    st.leases->create(std::move(lease), std::move(done));
  } else {
    st.leases->update(std::move(lease), std::move(done));
  }
}

void execute(Self self, std::size_t i, const ElectionAction& action) {
  auto& slot = self->state.slots[i];
  switch (action.kind) {
    case Kind::None:
      return;
    case Kind::Get:
      if (slot.direct_get) {
        read_directly(self, i);
      } else {
        slot.read_requested = true;
      }
      return;
    case Kind::Create:
    case Kind::Update:
    case Kind::Release:
      write(self, i, action);
      return;
  }
}

// -- observing ----------------------------------------------------------------------------

using ByName = std::map<std::string, Object*, std::less<>>;

/// Deletes a member Lease that has not been renewed for a long time, unless it changed
/// since it was read (precondition). Best effort: nothing waits for the answer.
void collect_stale_member(ShardState& st, const std::string& name, OtherMember& other, LocalTime now) {
  auto free_since = other.seen.free_since(now);
  if (!free_since || now - *free_since < kStaleMemberLeaseDurations * st.timing.lease_duration) return;
  if (other.delete_sent_at && now - *other.delete_sent_at < st.timing.lease_duration) return;
  other.delete_sent_at = now;
  spdlog::info("shard election: deleting stale member lease={} holder={}", name, other.seen.holder());
  st.leases->remove(
      name,
      [name](Result<void> r) {
        if (!r) log_request_failure("delete", name, r.error());
      },
      other.seen.lease() != nullptr ? std::string_view(other.seen.lease()->resource_version) : std::string_view());
}

/// Other replicas' member Leases as listed now: who is live, and since when.
void observe_members(ShardState& st, const ByName& listed, LocalTime now) {
  const std::string& mine = member(st).name;
  for (auto it = st.others.begin(); it != st.others.end();) {
    it = listed.count(it->first) == 0 ? st.others.erase(it) : std::next(it);
  }
  for (const auto& [name, object] : listed) {
    if (name == mine || name.rfind(st.member_prefix, 0) != 0) continue;
    if (object->label(leader::kLeaseRoleLabel) != leader::kRoleMember) continue;
    OtherMember& other = st.others[name];
    other.seen.observe(leader::decode_observed_lease(*object), now);
    if (!other.seen.held(now)) {
      other.live_since.reset();
      collect_stale_member(st, name, other, now);
    } else if (!other.live_since) {
      other.live_since = now;
    }
  }
}

/// Releases (on a hand-over) shards already announced as given up.
void release_given_up(Self self, const std::set<std::uint32_t>& shards, const Instant& now) {
  auto& st = self->state;
  for (auto i : shards) {
    auto& e = st.slots[i].election;
    if (e.observation().holder() == st.options.identity) {
      spdlog::info("shard election: handing over shard={} lease={} identity={}", i, st.slots[i].name,
                   st.options.identity);
    }
    execute(self, i, e.set_wanted(false, now));
  }
}

/// The writer drained (or did not in time): the given-up shards are released, unless a
/// stop began meanwhile (it releases everything itself).
void after_drain(Self self, const std::set<std::uint32_t>& shards) {
  auto& st = self->state;
  for (auto i : shards) st.draining.erase(i);
  if (st.stop.active) return;
  release_given_up(self, shards, instant(st));
}

/// Who should hold what, from this replica's view; acts on the changes. Shards given up
/// leave the announced set before their releases are written.
void reassign(Self self, const Instant& now) {
  auto& st = self->state;
  if (st.stop.active) return;
  leader::AssignmentInput in;
  in.me = st.options.identity;
  in.timing = st.timing;
  in.now = now.local;
  if (member(st).election.leading(now.local)) {
    if (!st.member_since) st.member_since = now.local;
    in.members.push_back(leader::Member{st.options.identity, *st.member_since});
  } else {
    st.member_since.reset();
  }
  for (const auto& [name, other] : st.others) {
    if (other.live_since) in.members.push_back(leader::Member{std::string(other.seen.holder()), *other.live_since});
  }
  for (std::uint32_t i = 0; i < st.options.shard_count; ++i) {
    const auto& seen = st.slots[i].election.observation();
    std::string holder = seen.held(now.local) ? std::string(seen.holder()) : std::string();
    in.shards.push_back(leader::ShardView{std::move(holder), seen.free_since(now.local)});
  }
  const std::vector<bool> wanted = leader::wanted_shards(in);
  std::set<std::uint32_t> giving_up;
  for (std::uint32_t i = 0; i < st.options.shard_count; ++i) {
    auto& e = st.slots[i].election;
    if (wanted[i] == e.wanted() || st.draining.count(i) != 0) continue;
    if (wanted[i]) {
      execute(self, i, e.set_wanted(true, now));
    } else {
      giving_up.insert(i);
    }
  }
  if (giving_up.empty()) return;
  publish(self, giving_up);
  if (!st.options.writes) {
    release_given_up(self, giving_up, now);
    return;
  }
  // The sinks were told; the writes already in flight land before the Lease goes.
  st.draining.insert(giving_up.begin(), giving_up.end());
  self->request(st.options.writes, std::max(st.timing.renew_deadline / 2, std::chrono::milliseconds(1)),
                messages::DrainWrites{})
      .then([self, giving_up](const messages::WritesDrained&) { after_drain(self, giving_up); },
            [self, giving_up](caf::error& err) {
              spdlog::warn("shard election: writes still in flight when shards {} are released: {}",
                           describe(giving_up), caf::to_string(err));
              after_drain(self, giving_up);
            });
}

// -- stopping -----------------------------------------------------------------------------

void finish_stop(Self self) {
  auto& st = self->state;
  if (st.stop.finished) return;
  st.stop.finished = true;
  spdlog::info("shard election: stopped identity={} released={} failed={} member_deleted={}", st.options.identity,
               st.stop.result.released, st.stop.result.failed, st.stop.result.member_deleted);
  for (auto& promise : st.stop.promises) promise.deliver(st.stop.result);
  st.stop.promises.clear();
  self->quit(st.stop.reason);
}

void maybe_delete_member(Self self) {
  auto& st = self->state;
  // A member write in flight could land after the delete and leave a member Lease
  // behind: wait for it.
  if (st.stop.member_delete_sent || member(st).election.busy()) return;
  st.stop.member_delete_sent = true;
  st.leases->remove(member(st).name,
                    [weak = weak_of(self)](Result<void> r) { deliver(weak, MemberDeleted{std::move(r)}); });
}

/// After every answer while stopping: a second release attempt where the first could not
/// be sent or failed; done once nothing is awaited.
void drive_stop(Self self) {
  auto& st = self->state;
  if (!st.stop.active || st.stop.finished) return;
  maybe_delete_member(self);
  const Instant now = instant(st);
  for (auto it = st.stop.pending.begin(); it != st.stop.pending.end();) {
    auto& e = st.slots[*it].election;
    if (e.busy()) {
      ++it;
      continue;
    }
    if (e.release_pending() && st.stop.attempted.insert(*it).second) {
      execute(self, *it, e.set_wanted(false, now));
      ++it;
      continue;
    }
    if (e.release_pending()) ++st.stop.result.failed;
    it = st.stop.pending.erase(it);
  }
  if (st.stop.pending.empty() && !st.stop.member_pending) finish_stop(self);
}

void begin_stop(Self self, caf::error reason) {
  auto& st = self->state;
  if (st.stop.active) return;
  st.stop.active = true;
  st.stop.reason = std::move(reason);
  spdlog::info("shard election: stopping identity={} holding={}", st.options.identity, describe(st.announced));
  // Nothing acts on any shard any more before any release is written.
  publish(self, {}, /*force=*/true);
  const Instant now = instant(st);
  for (std::uint32_t i = 0; i < st.options.shard_count; ++i) {
    auto& e = st.slots[i].election;
    ElectionAction action = e.set_wanted(false, now);
    if (action.kind == Kind::Release) st.stop.attempted.insert(i);
    if (action.is_write() || e.release_pending() || e.busy()) st.stop.pending.insert(i);
    execute(self, i, action);
  }
  self->delayed_send(self, st.options.stop_timeout, ShardTimer{ShardTimer::Kind::StopTimeout});
  drive_stop(self);
}

// -- handlers -----------------------------------------------------------------------------

void schedule_tick(Self self) {
  auto& st = self->state;
  std::uniform_real_distribution<double> jitter(1.0, leader::kJitterFactor);
  auto delay = std::chrono::duration_cast<std::chrono::milliseconds>(st.timing.retry_period * jitter(st.rng));
  self->delayed_send(self, std::max(delay, std::chrono::milliseconds(1)), ShardTimer{ShardTimer::Kind::Tick});
}

/// One list answers the reads of every election (and shows the other members).
void start_list(Self self) {
  auto& st = self->state;
  if (st.list_in_flight) return;  // the reads wait for the next list
  st.list_in_flight = true;
  const std::uint64_t round = ++st.list_round;
  for (auto& slot : st.slots) {
    if (!slot.read_requested) continue;
    slot.read_requested = false;
    slot.list_round = round;
  }
  ++st.counters.lists;
  st.leases->list(leader::kLeaseRoleLabel, [weak = weak_of(self), round](Result<kube::client::ObjectList>&& r) {
    LeasesListed listed;
    listed.round = round;
    if (r) {
      listed.items = std::move(r->items);
    } else {
      listed.error = std::move(r).error();
    }
    deliver(weak, std::move(listed));
  });
}

void on_tick(Self self) {
  auto& st = self->state;
  if (st.stop.active) return;
  schedule_tick(self);
  const Instant now = instant(st);
  for (std::size_t i = 0; i < st.slots.size(); ++i) execute(self, i, st.slots[i].election.tick(now));
  start_list(self);
  publish(self);
}

void on_listed(Self self, LeasesListed& listed) {
  auto& st = self->state;
  st.list_in_flight = false;
  const Instant now = instant(st);
  if (listed.error) {
    ++st.counters.list_failures;
    log_request_failure("list", "*", *listed.error);
    for (auto& slot : st.slots) {
      if (slot.list_round != listed.round) continue;
      slot.list_round.reset();
      slot.election.read_failed(now);
    }
  } else {
    ByName by_name;
    for (auto& item : listed.items) by_name.emplace(std::string(item.name()), &item);
    observe_members(st, by_name, now.local);
    for (std::size_t i = 0; i < st.slots.size(); ++i) {
      auto& slot = st.slots[i];
      auto found = by_name.find(slot.name);
      if (found != by_name.end()) slot.direct_get = false;
      if (slot.list_round != listed.round) continue;  // busy writing when the list was sent
      slot.list_round.reset();
      std::optional<leader::ObservedLease> seen;
      if (found != by_name.end()) {
        seen = leader::decode_observed_lease(*found->second);
        slot.object = std::move(*found->second);
      } else {
        slot.object.reset();
      }
      execute(self, i, slot.election.observed(seen, now));
    }
    reassign(self, now);
  }
  publish(self);
  drive_stop(self);
}

void on_read(Self self, LeaseRead& read) {
  auto& st = self->state;
  auto& slot = st.slots[read.slot];
  const Instant now = instant(st);
  if (read.result) {
    slot.object = std::move(*read.result);
    execute(self, read.slot, slot.election.observed(leader::decode_observed_lease(*slot.object), now));
  } else if (read.result.error().is_not_found()) {
    slot.object.reset();
    slot.direct_get = false;
    execute(self, read.slot, slot.election.observed(std::nullopt, now));
  } else {
    log_request_failure("get", slot.name, read.result.error());
    slot.election.read_failed(now);
  }
  publish(self);
  drive_stop(self);
}

/// Lease writes are blocked for `why` (or no longer, for ""): said loudly once, reminded
/// once a minute, and passed on for readiness.
void note_blocked(Self self, std::string why) {
  auto& st = self->state;
  const LocalTime now = st.options.clock();
  if (why == st.blocked) {
    if (!why.empty() && st.blocked_logged && now - *st.blocked_logged >= std::chrono::minutes(1)) {
      spdlog::error("shard election: {}", why);
      st.blocked_logged = now;
    }
    return;
  }
  if (why.empty()) {
    spdlog::info("shard election: Lease writes succeed again in namespace {}", st.options.ns);
  } else {
    spdlog::error("shard election: {}", why);
  }
  st.blocked = std::move(why);
  st.blocked_logged = now;
  if (st.options.on_blocked) st.options.on_blocked(st.blocked);
}

void on_written(Self self, LeaseWritten& written) {
  auto& st = self->state;
  auto& slot = st.slots[written.slot];
  const Instant now = instant(st);
  ElectionAction next;
  if (written.result) {
    note_blocked(self, {});
    slot.object = std::move(*written.result);
    slot.direct_get = false;  // our write labelled it
    if (written.kind == Kind::Release) {
      ++st.counters.releases;
      if (st.stop.active) ++st.stop.result.released;
      spdlog::info("shard election: released lease={} identity={}", slot.name, st.options.identity);
    }
    next = slot.election.write_succeeded(leader::decode_observed_lease(*slot.object), written.sent_at, now);
  } else {
    const auto& error = written.result.error();
    const bool conflict = error.http_status == 409;
    // Created by someone, yet not in our labelled list: read it by name from now on.
    if (written.kind == Kind::Create && error.is_already_exists()) slot.direct_get = true;
    ++(conflict ? st.counters.conflicts : st.counters.write_failures);
    std::string why = operator_action(st.options, error);
    if (why.empty()) log_request_failure(op_name(written.kind), slot.name, error);
    note_blocked(self, std::move(why));
    next = slot.election.write_failed(conflict ? leader::WriteFailure::Conflict : leader::WriteFailure::Other, now);
  }
  execute(self, written.slot, next);
  publish(self);
  drive_stop(self);
}

void on_member_deleted(Self self, MemberDeleted& deleted) {
  auto& st = self->state;
  st.stop.member_pending = false;
  st.stop.result.member_deleted = static_cast<bool>(deleted.result);
  if (!deleted.result) {
    ++st.stop.result.failed;
    log_request_failure("delete", member(st).name, deleted.result.error());
  }
  drive_stop(self);
}

void on_stop_timeout(Self self) {
  auto& st = self->state;
  if (st.stop.finished) return;
  st.stop.result.failed += static_cast<std::uint32_t>(st.stop.pending.size() + (st.stop.member_pending ? 1 : 0));
  spdlog::warn("shard election: stop timed out identity={} waiting_for_shards={} member_pending={}",
               st.options.identity, st.stop.pending.size(), st.stop.member_pending);
  st.stop.pending.clear();
  finish_stop(self);
}

messages::ActorInfo introspect(Self self) {
  auto& st = self->state;
  const LocalTime now = st.options.clock();
  json::object summary;
  summary["identity"] = st.options.identity;
  summary["namespace"] = st.options.ns;
  summary["shardCount"] = st.options.shard_count;
  summary["version"] = st.version;
  json::array held;
  for (auto s : st.announced) held.push_back(s);
  summary["held"] = std::move(held);
  json::array members;
  if (member(st).election.leading(now)) members.push_back(json::value(st.options.identity));
  for (const auto& [name, other] : st.others) {
    if (other.live_since) members.push_back(json::value(std::string(other.seen.holder())));
  }
  summary["members"] = std::move(members);
  json::array shards;
  for (std::uint32_t i = 0; i < st.options.shard_count; ++i) {
    const auto& e = st.slots[i].election;
    json::object shard;
    shard["shard"] = i;
    shard["lease"] = st.slots[i].name;
    shard["holder"] = std::string(e.observation().holder());  // as last observed
    shard["observed"] = e.observation().known();
    shard["expired"] = e.observation().expired(now);
    shard["wanted"] = e.wanted();
    shard["leading"] = e.leading(now);
    shards.push_back(std::move(shard));
  }
  summary["shards"] = std::move(shards);
  json::object counters;
  counters["lists"] = st.counters.lists;
  counters["listFailures"] = st.counters.list_failures;
  counters["writes"] = st.counters.writes;
  counters["conflicts"] = st.counters.conflicts;
  counters["writeFailures"] = st.counters.write_failures;
  counters["releases"] = st.counters.releases;
  counters["shardsLost"] = st.counters.lost;
  summary["requests"] = std::move(counters);
  summary["stopping"] = st.stop.active;
  if (!st.blocked.empty()) summary["blocked"] = st.blocked;
  return messages::ActorInfo{"shard", st.options.identity, self->mailbox().size(), st.handled, json::dump(summary)};
}

shard_impl::behavior_type shard_behavior(Self self, std::shared_ptr<leader::LeaseApi> leases, ShardOptions options,
                                         std::vector<messages::ownership_sink> sinks,
                                         messages::introspection_actor introspection) {
  auto& st = self->state;
  st.options = std::move(options);
  st.timing = leader::ElectionTiming{st.options.lease_duration, st.options.renew_deadline, st.options.retry_period};
  st.leases = std::move(leases);
  st.sinks = std::move(sinks);
  st.member_prefix = leader::member_lease_prefix(st.options.prefix);
  for (std::uint32_t i = 0; i < st.options.shard_count; ++i) {
    st.slots.push_back(LeaseSlot{leader::shard_lease_name(st.options.prefix, i), leader::kRoleShard,
                                 LeaseElection(st.options.identity, st.timing, /*wanted=*/false), {}, false, false, {}});
  }
  st.slots.push_back(LeaseSlot{leader::member_lease_name(st.options.prefix, st.options.identity), leader::kRoleMember,
                               LeaseElection(st.options.identity, st.timing, /*wanted=*/true), {}, false, false, {}});
  self->send(introspection, messages::ActorRegistered{"shard", st.options.identity, self->address(),
                                                      caf::actor_cast<caf::strong_actor_ptr>(self)});
  // Sinks that never heard of sharding act on everything: tell them at once that this
  // replica holds nothing yet.
  publish(self, {}, /*force=*/true);
  // SIGTERM path: the controller's shutdown sends an exit message; hand over first.
  self->set_exit_handler([self](caf::exit_msg& msg) { begin_stop(self, std::move(msg.reason)); });
  spdlog::info("shard election: starting identity={} namespace={} shards={} member_lease={} lease={}ms renew={}ms "
               "retry={}ms",
               st.options.identity, st.options.ns, st.options.shard_count, member(st).name,
               st.options.lease_duration.count(), st.options.renew_deadline.count(), st.options.retry_period.count());
  self->send(self, ShardTimer{ShardTimer::Kind::Tick});
  return {
      [self](ShardTimer timer) {
        ++self->state.handled;
        switch (timer.kind) {
          case ShardTimer::Kind::Tick:
            on_tick(self);
            return;
          case ShardTimer::Kind::Deadline:
            self->state.deadline_timer.reset();
            publish(self);
            arm_deadline_timer(self, self->state.options.clock());
            return;
          case ShardTimer::Kind::StopTimeout:
            on_stop_timeout(self);
            return;
        }
      },
      [self](LeasesListed& listed) {
        ++self->state.handled;
        on_listed(self, listed);
      },
      [self](LeaseRead& read) {
        ++self->state.handled;
        on_read(self, read);
      },
      [self](LeaseWritten& written) {
        ++self->state.handled;
        on_written(self, written);
      },
      [self](MemberDeleted& deleted) {
        ++self->state.handled;
        on_member_deleted(self, deleted);
      },
      [self](messages::ShardStop) -> caf::result<messages::ShardStopped> {
        ++self->state.handled;
        auto promise = self->make_response_promise<messages::ShardStopped>();
        self->state.stop.promises.push_back(promise);
        begin_stop(self, caf::exit_reason::normal);
        return promise;
      },
      [self](messages::IntrospectActor) -> messages::ActorInfo {
        ++self->state.handled;
        return introspect(self);
      },
  };
}

Status validate(const ShardOptions& o) {
  if (o.identity.empty()) return fail("sharding: the replica's identity is empty");
  if (o.ns.empty()) return fail("sharding: the Lease namespace is empty");
  if (o.shard_count == 0) return fail("sharding: the shard count must be at least 1");
  return leader::validate(leader::ElectionTiming{o.lease_duration, o.renew_deadline, o.retry_period});
}

ShardOptions with_defaults(ShardOptions o) {
  if (!o.clock) o.clock = [] { return std::chrono::steady_clock::now(); };
  if (o.request_timeout.count() <= 0) o.request_timeout = o.renew_deadline / 2;
  if (o.stop_timeout.count() <= 0) o.stop_timeout = o.renew_deadline;
  if (o.prefix.empty()) o.prefix = std::string(leader::kDefaultLeasePrefix);
  return o;
}

}  // namespace

Expected<messages::shard_actor> spawn_shard_actor(caf::actor_system& system, kube::client::Client& client,
                                                  ShardOptions options, std::vector<messages::ownership_sink> sinks,
                                                  messages::introspection_actor introspection) {
  if (auto valid = validate(options); !valid) return unexpected(valid.error());
  options = with_defaults(std::move(options));
  auto leases = std::make_shared<leader::LeaseClient>(client, options.ns, options.request_timeout);
  return spawn_shard_actor(system, std::move(leases), std::move(options), std::move(sinks), std::move(introspection));
}

Expected<messages::shard_actor> spawn_shard_actor(caf::actor_system& system,
                                                  std::shared_ptr<kube::leader::LeaseApi> leases, ShardOptions options,
                                                  std::vector<messages::ownership_sink> sinks,
                                                  messages::introspection_actor introspection) {
  if (auto valid = validate(options); !valid) return unexpected(valid.error());
  if (!leases) return fail("sharding: no Lease API");
  shard_impl actor = system.spawn(shard_behavior, std::move(leases), with_defaults(std::move(options)),
                                  std::move(sinks), std::move(introspection));
  return messages::shard_actor{actor};
}

}  // namespace kueuepp::actors
