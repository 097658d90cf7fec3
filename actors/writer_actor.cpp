#include "actors/writer_actor.hpp"

#include <caf/actor_system.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/typed_response_promise.hpp>
#include <spdlog/spdlog.h>

#include <array>
#include <deque>
#include <map>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kube/json/json.hpp"

namespace kueuepp::actors {

using namespace messages;

namespace {

using Promise = caf::typed_response_promise<WriteOutcome>;

struct Pending {
  WriteRequest request;
  WritePolicy policy;  ///< derived from the request's intent
  SendOptions send;    ///< how it is sent, decided when it is
  Promise promise;
  bool cancelled = false;  ///< superseded while waiting
  /// Urgent writes: the waiting rewrites of the same object this one superseded, answered
  /// when it settles (WriteOutcome::superseding_write_landed).
  std::vector<Promise> superseded_rewrites;
  /// When the first write of this entry was asked for: a rewrite that replaces it in
  /// place keeps it, so it measures how stale the object's status is.
  std::chrono::steady_clock::time_point since{};
  /// A queue status sent because it was overdue: it took an urgent write's turn, and
  /// neither needs nor holds one of the normal writes' slots (they may all be held by
  /// background writes waiting for the urgent ones to leave them a token).
  bool overdue_turn = false;
};


// Normal writes wait in one lane per kind of object, served in turn: thousands of
// Workload status rewrites and Events queued after an admission burst must not starve the
// handful of ClusterQueue and LocalQueue status writes (their usage figures would go
// stale for as long as the backlog lasts).
constexpr std::size_t kLanes = static_cast<std::size_t>(ObjectKind::Event) + 1;

/// One object's writes of one verb, as the coalescing maps key them. Looked up through
/// CoalesceKeyRef so that a lookup copies no names: the maps are hit several times per
/// write.
struct CoalesceKeyRef {
  ObjectKind kind;
  WriteVerb verb;
  std::string_view ns;
  std::string_view name;
  bool operator==(const CoalesceKeyRef&) const = default;
};

struct CoalesceKey {
  ObjectKind kind;
  WriteVerb verb;
  std::string ns;
  std::string name;
  explicit CoalesceKey(const CoalesceKeyRef& r) : kind(r.kind), verb(r.verb), ns(r.ns), name(r.name) {}
  CoalesceKeyRef ref() const { return {kind, verb, ns, name}; }
};

struct CoalesceKeyHash {
  using is_transparent = void;
  std::size_t operator()(const CoalesceKeyRef& k) const noexcept {
    std::size_t h = std::hash<std::string_view>{}(k.name);
    h ^= std::hash<std::string_view>{}(k.ns) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h ^ (static_cast<std::size_t>(k.kind) << 8 | static_cast<std::size_t>(k.verb));
  }
  std::size_t operator()(const CoalesceKey& k) const noexcept { return (*this)(k.ref()); }
};

struct CoalesceKeyEqual {
  using is_transparent = void;
  static CoalesceKeyRef ref(const CoalesceKeyRef& k) { return k; }
  static CoalesceKeyRef ref(const CoalesceKey& k) { return k.ref(); }
  template <class A, class B>
  bool operator()(const A& a, const B& b) const noexcept {
    return ref(a) == ref(b);
  }
};

template <class V>
using CoalesceMap = std::unordered_map<CoalesceKey, V, CoalesceKeyHash, CoalesceKeyEqual>;

/// Erases by reference (heterogeneous erase is C++23).
template <class V>
void erase_key(CoalesceMap<V>& map, const CoalesceKeyRef& key) {
  if (auto it = map.find(key); it != map.end()) map.erase(it);
}

struct WriterState {
  static inline const char* name = "writer";
  WriteTransport transport;
  WriterOptions options;
  std::deque<std::shared_ptr<Pending>> urgent;
  std::array<std::deque<std::shared_ptr<Pending>>, kLanes> lanes;
  std::size_t next_lane = 0;  ///< where the round-robin over `lanes` resumes
  std::size_t queued = 0;     ///< requests in `lanes`, cancelled ones included
  std::size_t urgent_streak = 0;    ///< urgent writes sent since the last normal one
  std::size_t next_queue_lane = 0;  ///< 0: ClusterQueue status goes next, 1: LocalQueue
  CoalesceMap<std::shared_ptr<Pending>> waiting_by_key;
  std::map<std::uint64_t, std::shared_ptr<Pending>> in_flight;
  std::size_t normal_in_flight = 0;  ///< of `in_flight`: the writes not urgent (holds_normal_slot)
  /// The coalescable rewrites in flight, by object: an urgent write that overrides one
  /// waits for its answer (WriteIntent::Admission).
  CoalesceMap<std::uint64_t> rewrite_in_flight;
  /// Urgent writes waiting for the answer of the rewrite in flight (by its id).
  std::map<std::uint64_t, std::vector<std::shared_ptr<Pending>>> following;
  /// Rewrites whose turn came while a rewrite of the same object was in flight, by that
  /// one's id (park_behind_rewrite_in_flight). Still in `waiting_by_key`: a newer rewrite
  /// replaces one in place while it waits.
  std::map<std::uint64_t, std::vector<std::shared_ptr<Pending>>> parked;
  std::size_t parked_count = 0;
  /// The latest conditional rewrites that landed, by object: the version each was
  /// decided on and the version it made (the caller may not have seen the latter yet).
  /// Bounded: the oldest entries are forgotten first.
  struct LandedRewrite {
    std::string decided_on;
    std::string made;
    std::uint64_t seq = 0;
  };
  CoalesceMap<LandedRewrite> landed_rewrites;
  std::deque<std::pair<CoalesceKey, std::uint64_t>> landed_order;
  std::uint64_t landed_seq = 0;
  /// With sharding: the shards this replica holds (writes of other shards are refused).
  std::optional<ShardOwnership> ownership;
  /// DrainWrites waiting for the tree-scoped writes in flight to complete.
  std::vector<std::pair<caf::typed_response_promise<WritesDrained>, std::size_t>> drains;
  std::uint64_t next_id = 1;
  std::uint64_t handled = 0;
  std::uint64_t written = 0;
  std::uint64_t written_urgent = 0;  ///< of `written`: admissions, evictions, job starts and stops
  std::array<std::uint64_t, kLanes> written_by_kind{};  ///< of `written`, per object kind
  std::uint64_t failed = 0;
  std::uint64_t coalesced = 0;
  std::uint64_t dropped_events = 0;
  std::uint64_t refused_not_owner = 0;
  std::uint64_t followed = 0;  ///< urgent writes that waited for a rewrite in flight
  std::uint64_t rebased = 0;   ///< urgent writes sent on the version a rewrite made
};

using Self = writer_actor::stateful_pointer<WriterState>;

CoalesceKeyRef coalesce_key(const WriteRequest& r) { return {r.kind, r.verb, r.ns, r.name}; }

// The first live request of `lane` (cancelled ones are dropped on the way), or null.
std::shared_ptr<Pending> pop_live(WriterState& st, std::deque<std::shared_ptr<Pending>>& lane, bool counted) {
  while (!lane.empty()) {
    auto p = std::move(lane.front());
    lane.pop_front();
    if (counted) --st.queued;
    if (p->cancelled) continue;
    if (p->policy.coalesce) erase_key(st.waiting_by_key, coalesce_key(p->request));
    return p;
  }
  return nullptr;
}

std::shared_ptr<Pending> next_normal(WriterState& st) {
  for (std::size_t k = 0; k < kLanes; ++k) {
    const std::size_t lane = (st.next_lane + k) % kLanes;
    if (auto p = pop_live(st, st.lanes[lane], true)) {
      st.next_lane = (lane + 1) % kLanes;
      return p;
    }
  }
  return nullptr;
}

constexpr std::size_t kQueueLanes[] = {static_cast<std::size_t>(ObjectKind::ClusterQueue),
                                       static_cast<std::size_t>(ObjectKind::LocalQueue)};

std::chrono::steady_clock::time_point now_of(const WriterState& st) {
  return st.options.clock ? st.options.clock() : std::chrono::steady_clock::now();
}

/// Whether the oldest live ClusterQueue or LocalQueue status write waited too long
/// (cancelled entries at the lanes' fronts are dropped on the way).
bool queue_status_overdue(WriterState& st) {
  const auto limit = now_of(st) - st.options.max_status_delay;
  for (std::size_t lane : kQueueLanes) {
    auto& q = st.lanes[lane];
    while (!q.empty() && q.front()->cancelled) {
      q.pop_front();
      --st.queued;
    }
    if (!q.empty() && q.front()->since <= limit) return true;
  }
  return false;
}

/// The next ClusterQueue or LocalQueue status write, alternating between the two.
std::shared_ptr<Pending> next_queue_status(WriterState& st) {
  for (std::size_t k = 0; k < 2; ++k) {
    const std::size_t lane = kQueueLanes[(st.next_queue_lane + k) % 2];
    if (auto p = pop_live(st, st.lanes[lane], true)) {
      st.next_queue_lane = (st.next_queue_lane + k + 1) % 2;
      return p;
    }
  }
  return nullptr;
}

bool holds_normal_slot(const Pending& p) { return !p.policy.urgent && !p.overdue_turn; }

bool room_for_normal(const WriterState& st) {
  return st.options.max_normal_in_flight == 0 || st.normal_in_flight < st.options.max_normal_in_flight;
}

std::shared_ptr<Pending> next_pending(WriterState& st) {
  // Urgent first, but not forever: admissions alone can use the whole QPS budget on a
  // deep queue, and the pending and usage figures of ClusterQueues and LocalQueues must
  // not wait for the queue to drain. An overdue one goes out after a streak of urgent
  // writes; the other lanes (pending explanations, Events) do wait.
  if (st.urgent_streak >= st.options.urgent_streak && queue_status_overdue(st)) {
    if (auto p = next_queue_status(st)) {
      st.urgent_streak = 0;
      p->overdue_turn = true;
      return p;
    }
  }
  const bool normal = room_for_normal(st);
  if (auto p = pop_live(st, st.urgent, false)) {
    ++st.urgent_streak;
    return p;
  }
  if (!normal) return nullptr;
  st.urgent_streak = 0;
  return next_normal(st);
}

/// Keeps the Event lane within its bound by answering its oldest live entries "Dropped"
/// (never `newest`, whose promise the caller still returns).
void drop_excess_events(WriterState& st, const Pending* newest) {
  auto& lane = st.lanes[static_cast<std::size_t>(ObjectKind::Event)];
  while (lane.size() > st.options.max_queued_events && lane.front().get() != newest) {
    auto p = std::move(lane.front());
    lane.pop_front();
    --st.queued;
    if (p->cancelled) continue;
    if (p->policy.coalesce) erase_key(st.waiting_by_key, coalesce_key(p->request));
    ++st.dropped_events;
    WriteOutcome dropped;
    dropped.reason = "Dropped";
    dropped.message = "event dropped: " + std::to_string(st.options.max_queued_events) +
                      " events were already waiting for the API write budget";
    p->promise.deliver(std::move(dropped));
  }
}

WriteOutcome superseded(bool by_urgent, bool landed = false) {
  WriteOutcome o;
  o.superseded = true;
  o.superseded_by_urgent = by_urgent;
  o.superseding_write_landed = landed;
  o.message = by_urgent ? "superseded by an urgent write of the same object"
                        : "superseded by a newer write of the same object";
  return o;
}

/// The urgent write `p` settled (landed or not): the rewrites it superseded hear it.
void answer_superseded(Pending& p, bool landed) {
  for (auto& promise : p.superseded_rewrites) promise.deliver(superseded(true, landed));
  p.superseded_rewrites.clear();
}

/// Leaves a waiting request in its lane to be skipped when its turn comes (holding no
/// body till then); its promise has been answered or handed on.
void retire_waiting(WriterState& st, Pending& older) {
  older.cancelled = true;
  older.request.body.reset();
  older.request.body_text.reset();
  ++st.coalesced;
}

/// An urgent write of an object cancels its waiting (not yet sent) coalescable rewrite,
/// which is answered once the urgent write settled (answer_superseded).
void supersede_waiting(WriterState& st, const CoalesceKeyRef& key, Pending& urgent) {
  auto it = st.waiting_by_key.find(key);
  if (it == st.waiting_by_key.end() || it->second->policy.urgent) return;
  urgent.superseded_rewrites.push_back(std::move(it->second->promise));
  retire_waiting(st, *it->second);
  st.waiting_by_key.erase(it);
}

/// A write for a shard this replica does not hold (any more): checked when the write
/// is sent, not when it was asked for, so a lease lost while it waited stops it.
bool fenced(const WriterState& st, const WriteRequest& r) {
  if (!st.ownership || !r.shard) return false;
  return !st.ownership->holds(*r.shard) || std::chrono::steady_clock::now() >= st.ownership->valid_until;
}

WriteOutcome not_owner(const WriteRequest& r) {
  WriteOutcome o;
  o.reason = "NotOwner";
  o.message = "shard " + std::to_string(*r.shard) + " is not held by this replica (or its Lease was not renewed in time)";
  return o;
}

std::size_t tree_scoped_in_flight(const WriterState& st) {
  std::size_t n = 0;
  for (const auto& [id, p] : st.in_flight) n += p->request.shard ? 1 : 0;
  return n;
}

void answer_drains(WriterState& st) {
  if (st.drains.empty() || tree_scoped_in_flight(st) != 0) return;
  for (auto& [promise, waited] : st.drains) promise.deliver(WritesDrained{waited});
  st.drains.clear();
}

constexpr std::size_t kLandedRewritesKept = 4096;

/// Records what a conditional rewrite that landed was decided on and made.
void remember_landed_rewrite(WriterState& st, const WriteRequest& rewrite, const WriteOutcome& outcome) {
  if (!rewrite.policy().coalesce || rewrite.precondition_rv.empty() || !outcome.ok || outcome.object == nullptr) return;
  const std::string_view made = outcome.object->resource_version();
  if (made.empty()) return;
  const CoalesceKey key(coalesce_key(rewrite));
  const std::uint64_t seq = ++st.landed_seq;
  st.landed_rewrites.insert_or_assign(key, WriterState::LandedRewrite{rewrite.precondition_rv, std::string(made), seq});
  st.landed_order.emplace_back(key, seq);
  while (st.landed_order.size() > kLandedRewritesKept) {
    auto& [oldest, oldest_seq] = st.landed_order.front();
    auto it = st.landed_rewrites.find(oldest);
    if (it != st.landed_rewrites.end() && it->second.seq == oldest_seq) st.landed_rewrites.erase(it);
    st.landed_order.pop_front();
  }
}

/// An urgent write decided on the version a rewrite of its object replaced goes out
/// conditional on the version the rewrite made (see WriteIntent::Admission).
void rebase_on_landed_rewrite(WriterState& st, WriteRequest& request) {
  if (!request.policy().follows_in_flight_rewrite || request.precondition_rv.empty()) return;
  auto it = st.landed_rewrites.find(coalesce_key(request));
  if (it != st.landed_rewrites.end() && it->second.decided_on == request.precondition_rv) {
    request.precondition_rv = it->second.made;
    ++st.rebased;
  }
}

/// Holds an urgent write behind the rewrite of its object in flight, if there is one.
bool follow_rewrite_in_flight(WriterState& st, const std::shared_ptr<Pending>& p) {
  if (!p->policy.follows_in_flight_rewrite) return false;
  auto it = st.rewrite_in_flight.find(coalesce_key(p->request));
  if (it == st.rewrite_in_flight.end()) return false;
  st.following[it->second].push_back(p);
  ++st.followed;
  return true;
}

/// The rewrite `done` answered: the urgent writes that waited for it go out first, each
/// conditional on the version the rewrite made when it landed on the version they were
/// both decided on (if it did not land, they go out as asked and meet the same answer).
void release_followers(WriterState& st, std::uint64_t id, const Pending& rewrite, const WriteOutcome& outcome) {
  if (rewrite.policy.coalesce) {
    auto it = st.rewrite_in_flight.find(coalesce_key(rewrite.request));
    if (it != st.rewrite_in_flight.end() && it->second == id) st.rewrite_in_flight.erase(it);
  }
  remember_landed_rewrite(st, rewrite.request, outcome);
  auto f = st.following.find(id);
  if (f == st.following.end()) return;
  std::vector<std::shared_ptr<Pending>> held = std::move(f->second);
  st.following.erase(f);
  for (auto& p : held) rebase_on_landed_rewrite(st, p->request);
  st.urgent.insert(st.urgent.begin(), held.begin(), held.end());
}

/// A rewrite whose object has a rewrite in flight waits for that one's answer. Two writes
/// of one object in flight at once may land in either order (a background write waits for
/// the token a later overdue one takes first; connections answer in their own time), and
/// with merge patches the last to land wins: a ClusterQueue status computed while hundreds
/// of workloads were pending landed after the final one and stayed there, the queue idle.
bool park_behind_rewrite_in_flight(WriterState& st, const std::shared_ptr<Pending>& p) {
  if (!p->policy.coalesce) return false;
  const CoalesceKeyRef key = coalesce_key(p->request);
  auto it = st.rewrite_in_flight.find(key);
  if (it == st.rewrite_in_flight.end()) return false;
  st.parked[it->second].push_back(p);
  ++st.parked_count;
  // pop_live took it out of the map: newer rewrites replace it in place again.
  st.waiting_by_key.insert_or_assign(CoalesceKey(key), p);
  return true;
}

/// The rewrite `id` answered: what waited for it goes back to the front of its line, as
/// the newest rewrite of its object (cancelled ones were answered when cancelled).
void release_parked(WriterState& st, std::uint64_t id) {
  auto it = st.parked.find(id);
  if (it == st.parked.end()) return;
  std::vector<std::shared_ptr<Pending>> held = std::move(it->second);
  st.parked.erase(it);
  st.parked_count -= held.size();
  for (auto r = held.rbegin(); r != held.rend(); ++r) {
    const std::shared_ptr<Pending>& p = *r;
    if (p->cancelled) continue;
    if (p->policy.urgent) {
      st.urgent.push_front(p);
    } else {
      st.lanes[static_cast<std::size_t>(p->request.kind) % kLanes].push_front(p);
      ++st.queued;
    }
  }
}

void pump(Self self) {
  auto& st = self->state;
  while (st.in_flight.size() < st.options.max_in_flight) {
    auto p = next_pending(st);
    if (!p) return;
    if (park_behind_rewrite_in_flight(st, p)) continue;
    if (fenced(st, p->request)) {
      ++st.refused_not_owner;
      p->promise.deliver(not_owner(p->request));
      answer_superseded(*p, false);
      continue;
    }
    std::uint64_t id = st.next_id++;
    st.in_flight.emplace(id, p);
    if (holds_normal_slot(*p)) ++st.normal_in_flight;
    // The writes that hold a normal slot are those nobody waits on; an overdue queue
    // status took an urgent write's turn and keeps its place in the client's line.
    p->send.background = st.options.normal_writes_in_background && holds_normal_slot(*p);
    // The fence goes with the write to the client: it is not sent after the Lease ends.
    if (st.ownership && p->request.shard) p->send.send_before = st.ownership->valid_until;
    if (p->policy.coalesce) st.rewrite_in_flight.insert_or_assign(CoalesceKey(coalesce_key(p->request)), id);
    // The transport answers on an io thread: back into the mailbox as a typed event.
    writer_actor handle = self;  // copied into the callback; released when it runs
    st.transport(p->request, p->send, [handle, id](WriteOutcome outcome) {
      caf::anon_send(handle, WriteDone{id, std::move(outcome)});
    });
  }
}

std::string describe(const WriteRequest& r) {
  std::string s(to_string(r.kind));
  s += ' ';
  if (!r.ns.empty()) s += r.ns + "/";
  return s + r.name;
}

}  // namespace

messages::writer_actor spawn_writer(caf::actor_system& system, WriteTransport transport, WriterOptions options) {
  return system.spawn([transport = std::move(transport), options](Self self) -> writer_actor::behavior_type {
    self->state.transport = transport;
    self->state.options = options;
    if (self->state.options.max_in_flight == 0) self->state.options.max_in_flight = 1;
    if (self->state.options.urgent_streak == 0) self->state.options.urgent_streak = 1;
    if (options.sharded) self->state.ownership = ShardOwnership{};  // holds nothing yet
    return {
        [self](WriteRequest& req) -> caf::result<WriteOutcome> {
          auto& st = self->state;
          ++st.handled;
          auto p = std::make_shared<Pending>();
          p->promise = self->make_response_promise<WriteOutcome>();
          p->request = std::move(req);
          p->policy = p->request.policy();
          p->since = now_of(st);
          if (p->policy.urgent && !p->policy.coalesce) supersede_waiting(st, coalesce_key(p->request), *p);
          if (p->policy.coalesce) {
            auto key = coalesce_key(p->request);
            auto it = st.waiting_by_key.find(key);
            if (it != st.waiting_by_key.end()) {
              // The newer write takes the older one's place in its lane: nothing is
              // added, so a status rewritten a thousand times while the budget is short
              // holds one entry and one body, and keeps its turn.
              Pending& older = *it->second;
              older.promise.deliver(superseded(false));
              ++st.coalesced;
              older.request = std::move(p->request);
              older.policy = p->policy;
              older.promise = std::move(p->promise);
              return older.promise;  // nothing new is queued: no pump
            }
            st.waiting_by_key.insert_or_assign(CoalesceKey(key), p);
          }
          if (follow_rewrite_in_flight(st, p)) return p->promise;  // goes out with its answer
          rebase_on_landed_rewrite(st, p->request);
          if (p->policy.urgent) {
            st.urgent.push_back(p);
          } else {
            st.lanes[static_cast<std::size_t>(p->request.kind) % kLanes].push_back(p);
            ++st.queued;
            if (p->request.kind == ObjectKind::Event) drop_excess_events(st, p.get());
          }
          auto promise = p->promise;
          pump(self);
          return promise;
        },
        [self](WriteDone& done) {
          auto& st = self->state;
          ++st.handled;
          auto it = st.in_flight.find(done.id);
          if (it == st.in_flight.end()) return;
          auto p = it->second;
          st.in_flight.erase(it);
          if (holds_normal_slot(*p)) --st.normal_in_flight;
          release_followers(st, done.id, *p, done.outcome);
          release_parked(st, done.id);
          if (done.outcome.ok) {
            ++st.written;
            if (p->policy.urgent) ++st.written_urgent;
            ++st.written_by_kind[static_cast<std::size_t>(p->request.kind) % kLanes];
          } else {
            ++st.failed;
            // Conflicts and NotFound are expected races (the caller re-decides); the
            // rest deserve attention.
            bool expected = done.outcome.http_status == 409 || done.outcome.http_status == 404 ||
                            done.outcome.reason == "NotOwner";  // fenced at the socket: the Lease ended
            auto level = expected ? spdlog::level::debug : spdlog::level::warn;
            const char* what_next = expected                    ? ""
                                    : done.outcome.maybe_landed ? "(it may have landed: read back before anything is undone)"
                                                                : "(refused: decided again)";
            spdlog::log(level, "{} failed: {} {}: {} {} {}", p->request.verb == WriteVerb::Get ? "read" : "write",
                        describe(p->request), done.outcome.http_status, done.outcome.reason, done.outcome.message,
                        what_next);
          }
          // Its own answer first: a refused admission is rolled back before the
          // explanation it superseded is said again.
          const bool landed = done.outcome.ok;
          p->promise.deliver(std::move(done.outcome));
          answer_superseded(*p, landed);
          pump(self);
          answer_drains(st);
        },
        [self](ShardOwnership& ownership) {
          auto& st = self->state;
          ++st.handled;
          if (st.ownership && st.ownership->version > ownership.version) return;  // late
          st.ownership = std::move(ownership);
        },
        [self](DrainWrites) -> caf::result<WritesDrained> {
          auto& st = self->state;
          ++st.handled;
          std::size_t waiting = tree_scoped_in_flight(st);
          if (waiting == 0) return WritesDrained{0};
          st.drains.emplace_back(self->make_response_promise<WritesDrained>(), waiting);
          return st.drains.back().first;
        },
        [self](IntrospectActor) -> ActorInfo {
          auto& st = self->state;
          json::object summary;
          summary["inFlight"] = st.in_flight.size();
          summary["normalInFlight"] = st.normal_in_flight;
          summary["queuedUrgent"] = st.urgent.size();
          summary["queued"] = st.queued;
          summary["parkedBehindRewrite"] = st.parked_count;
          json::object by_kind;
          for (std::size_t k = 0; k < kLanes; ++k) {
            if (!st.lanes[k].empty()) by_kind[to_string(static_cast<ObjectKind>(k))] = st.lanes[k].size();
          }
          summary["queuedByKind"] = std::move(by_kind);
          summary["written"] = st.written;
          summary["writtenUrgent"] = st.written_urgent;
          json::object written_by_kind;
          for (std::size_t k = 0; k < kLanes; ++k) {
            if (st.written_by_kind[k] != 0) written_by_kind[to_string(static_cast<ObjectKind>(k))] = st.written_by_kind[k];
          }
          summary["writtenByKind"] = std::move(written_by_kind);
          summary["failed"] = st.failed;
          summary["coalesced"] = st.coalesced;
          summary["droppedEvents"] = st.dropped_events;
          summary["followedRewrites"] = st.followed;
          summary["rebasedOnRewrites"] = st.rebased;
          if (st.ownership) summary["refusedNotOwner"] = st.refused_not_owner;
          return ActorInfo{"writer", "writer", st.urgent.size() + st.queued + st.parked_count, st.handled,
                           json::dump(summary)};
        },
    };
  });
}

}  // namespace kueuepp::actors
