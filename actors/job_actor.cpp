#include "actors/job_actor.hpp"

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <string_view>
#include <vector>

#include "actors/job_reconciler.hpp"
#include "actors/watched_kinds.hpp"
#include "core/string_key_map.hpp"
#include "kube/jobs/batch_job.hpp"
#include "kube/client/resource_version.hpp"
#include "kube/json/json.hpp"
#include "kube/json/json_node.hpp"

namespace kueuepp::actors {

using namespace messages;

namespace {

using Table = std::map<std::string, ObjectPtr, std::less<>>;

/// Steps one Job may take back to back without an outside change: a guard against a
/// write that the reconciler keeps asking for (it would otherwise loop forever). Past it,
/// the Job is looked at again after kStuckPause, its objects read afresh.
constexpr int kMaxStepsWithoutChange = 12;
constexpr std::chrono::seconds kStuckPause{30};

/// A failed write is tried again after a pause that doubles with each failure in a row
/// (from 1 s, at most 30 s), each time on the objects read afresh: a blackout or a proxy
/// that refuses writes for a while must not leave a Job waiting for an event that never
/// comes.
std::chrono::milliseconds retry_pause(std::uint32_t failures_in_a_row) {
  const std::uint32_t doublings = std::min<std::uint32_t>(failures_in_a_row > 0 ? failures_in_a_row - 1 : 0, 5);
  return std::min(std::chrono::milliseconds(1000) * (1u << doublings), std::chrono::milliseconds(30000));
}

/// The kinds whose first list must arrive before any decision (besides the job kind's).
constexpr ObjectKind kNeeded[] = {ObjectKind::Workload, ObjectKind::ResourceFlavor, ObjectKind::LocalQueue,
                                  ObjectKind::WorkloadPriorityClass, ObjectKind::PriorityClass};

/// What the job actor keeps of a Workload: the packed document (shared with the trees),
/// and what its scans over every Workload test, so that they unpack only the few they
/// act on.
struct KnownWorkload {
  PackedPtr packed;
  std::string resource_version;
  /// Owned by a Job and being deleted: a candidate for release_orphan_workload.
  bool job_owned_and_deleting = false;
};
/// Every Workload watch event stores one entry: hashed, not ordered (see
/// core/string_key_map.hpp). The scans that act in an order sort their keys.
using WorkloadTable = core::StringKeyMap<KnownWorkload>;

/// What the job actor keeps of a Job: the packed document, unpacked to reconcile it.
struct KnownJob {
  PackedPtr packed;
  std::string uid;
  std::string resource_version;
};

/// An object to read afresh before a Job is reconciled again (after a failed write).
struct ReadTarget {
  ObjectKind kind = ObjectKind::Job;
  std::string ns;
  std::string name;
};

/// A Job (or orphan Workload) to look at again at `due`, reading `reads` first.
struct Retry {
  core::Time due{};
  std::vector<ReadTarget> reads;
};
using JobTable = std::map<std::string, KnownJob, std::less<>>;

struct JobState {
  /// The kind of job this actor reconciles, and its tag in watch events and writes.
  const kube::jobs::JobIntegration* integration = &kube::jobs::batch_job_integration();
  ObjectKind job_kind = ObjectKind::Job;
  JobIntegrationOptions options;
  JobLinks links;
  std::function<core::Time()> clock;
  JobTable jobs;
  WorkloadTable workloads;
  Table flavors;
  Table local_queues;
  /// Namespace name -> its labels (for options.managed_namespaces).
  std::map<std::string, core::Labels, std::less<>> namespaces;
  Table wpcs;
  Table pcs;
  /// What the kind's adapter reads besides its jobs (related_kinds: a TrainJob's runtimes),
  /// kept packed by kind and key, and the adapter bound to them.
  std::vector<ObjectKind> related_kinds;
  std::map<ObjectKind, std::map<std::string, PackedPtr, std::less<>>> related;
  /// The related objects unpacked for the reconcile under way; emptied after it.
  std::map<std::string, ObjectPtr, std::less<>> related_unpacked;
  std::unique_ptr<const kube::jobs::JobIntegration> bound_integration;
  std::set<ObjectKind> listed;
  bool synced = false;
  /// job uid -> the keys of the Workloads it owns (more than one: duplicates, which the
  /// reconciler deletes).
  std::map<std::string, std::set<std::string>> workloads_of_job;
  std::map<std::string, int> in_flight;                ///< job key -> writes outstanding
  std::map<std::string, int> steps;                    ///< job key -> steps since the last outside change
  std::set<std::string> again;                         ///< changed while writes were in flight
  std::map<std::string, Retry> retry;                  ///< key -> when to try again, reading what first
  std::map<std::string, std::uint32_t> failures_in_a_row;  ///< key -> failed writes since its last success
  /// Deadlines the reconciler asked to be woken for (PodsReady timeouts, requeue backoffs).
  std::map<std::string, core::Time> wake_at;
  /// With sharding: which LocalQueues' Jobs this replica handles (see JobShards).
  std::optional<JobShards> shards;
  std::uint64_t skipped_not_owner = 0;
  std::uint64_t handled = 0;
  std::uint64_t writes = 0;
  std::uint64_t failures = 0;
  std::uint64_t stuck = 0;
  std::uint64_t rereads = 0;
  std::uint64_t stale_events = 0;  ///< watch events older than what the cache held
};

using Self = job_actor::stateful_pointer<JobState>;

core::Time now_of(const JobState& st) {
  return st.clock ? st.clock()
                  : std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now());
}

Table* table_for(JobState& st, ObjectKind kind) {
  switch (kind) {
    case ObjectKind::ResourceFlavor: return &st.flavors;
    case ObjectKind::LocalQueue: return &st.local_queues;
    case ObjectKind::WorkloadPriorityClass: return &st.wpcs;
    case ObjectKind::PriorityClass: return &st.pcs;
    default: return nullptr;
  }
}

/// The Workload's controlling job, when it is of this actor's kind (a Workload of
/// another kind is its actor's business).
std::optional<kube::client::OwnerReference> owner_job(const JobState& st, const kube::client::Object& wl) {
  auto ref = wl.controller_reference();
  const kube::client::ResourceDescriptor& r = st.integration->resource();
  if (!ref || ref->kind != r.kind || ref->api_version != r.api_version()) return std::nullopt;
  return ref;
}

/// `wl` may be only the metadata of a packed watch event (see messages::ObjectChanged).
KnownWorkload known_workload(const JobState& st, const kube::client::Object& wl, PackedPtr packed) {
  KnownWorkload k;
  k.packed = std::move(packed);
  k.resource_version = std::string(wl.resource_version());
  k.job_owned_and_deleting = wl.being_deleted() && owner_job(st, wl).has_value();
  return k;
}

KnownJob known_job(const kube::client::Object& job, PackedPtr packed) {
  return KnownJob{std::move(packed), std::string(job.uid()), std::string(job.resource_version())};
}

/// Whether a packed Workload follows WorkloadPriorityClass `name`: it references it
/// (spec.priorityClassRef) and is not Finished. Read from the text in place, when a
/// class changes value, rather than kept for every Workload on every watch event.
bool follows_priority_class(const PackedPtr& packed, std::string_view name) {
  if (!packed) return false;
  thread_local json::JsonText text;
  auto root = text.parse(packed->text());
  if (!root) return false;
  const json::JsonNode ref = root->find("spec").find("priorityClassRef");
  if (ref.find("kind").get_string() != "WorkloadPriorityClass" || ref.find("name").get_string() != name) return false;
  bool finished = false;
  bool seen = false;  // the first Finished condition decides, as Object::condition_true
  root->find("status").find("conditions").for_each_element([&](std::size_t, json::JsonNode c) {
    if (seen || c.find("type").get_string() != "Finished") return;
    seen = true;
    finished = c.find("status").get_string() == "True";
  });
  return !finished;
}

/// The document again; null (logged) if it cannot be unpacked.
ObjectPtr unpacked(const PackedPtr& packed, std::string_view what, std::string_view key) {
  auto object = packed->unpack();
  if (!object) {
    spdlog::error("job integration: {} {}: {}", what, key, object.error().message);
    return nullptr;
  }
  return std::make_shared<const kube::client::Object>(std::move(*object));
}

ObjectPtr unpacked(const KnownWorkload& known, std::string_view key) { return unpacked(known.packed, "workload", key); }

bool is_related(const JobState& st, ObjectKind kind) {
  return std::find(st.related_kinds.begin(), st.related_kinds.end(), kind) != st.related_kinds.end();
}

/// A related object for the adapter, unpacked once per reconcile.
const kube::client::Object* related_object(JobState& st, ObjectKind kind, std::string_view ns, std::string_view name) {
  auto table = st.related.find(kind);
  if (table == st.related.end()) return nullptr;
  const std::string key = ns.empty() ? std::string(name) : std::string(ns) + "/" + std::string(name);
  auto it = table->second.find(key);
  if (it == table->second.end() || !it->second) return nullptr;
  ObjectPtr& slot = st.related_unpacked[std::string(to_string(kind)) + ":" + key];
  if (!slot) slot = unpacked(it->second, to_string(kind), key);
  return slot.get();
}

void index_workload(JobState& st, const ObjectPtr& wl, bool deleted) {
  auto ref = owner_job(st, *wl);
  if (!ref) return;
  if (deleted) {
    auto it = st.workloads_of_job.find(ref->uid);
    if (it == st.workloads_of_job.end()) return;
    it->second.erase(wl->key());
    if (it->second.empty()) st.workloads_of_job.erase(it);
  } else {
    st.workloads_of_job[ref->uid].insert(wl->key());
  }
}

std::optional<std::int32_t> value_in(const Table& t, std::string_view name) {
  auto it = t.find(name);
  if (it == t.end()) return std::nullopt;
  return static_cast<std::int32_t>(it->second->int_at({"value"}).value_or(0));
}

/// Kubernetes' default PriorityClass: globalDefault=true, the lowest value if several.
std::optional<std::pair<std::string, std::int32_t>> default_priority_class(const Table& pcs) {
  std::optional<std::pair<std::string, std::int32_t>> best;
  for (const auto& [name, pc] : pcs) {
    if (!pc->bool_at({"globalDefault"}).value_or(false)) continue;
    auto value = static_cast<std::int32_t>(pc->int_at({"value"}).value_or(0));
    if (!best || value < best->second) best = std::make_pair(name, value);
  }
  return best;
}

JobContext context(Self self) {
  auto& st = self->state;
  JobContext ctx;
  ctx.options = st.options;
  ctx.integration = st.integration;
  ctx.job_kind = st.job_kind;
  ctx.now = now_of(st);
  ctx.flavor = [self](std::string_view name) -> const kube::client::Object* {
    auto it = self->state.flavors.find(name);
    return it == self->state.flavors.end() ? nullptr : it->second.get();
  };
  ctx.workload_priority_class = [self](std::string_view n) { return value_in(self->state.wpcs, n); };
  ctx.priority_class = [self](std::string_view n) { return value_in(self->state.pcs, n); };
  ctx.default_priority_class = default_priority_class(st.pcs);
  ctx.local_queue_exists = [self](const std::string& ns, const std::string& name) {
    return self->state.local_queues.count(ns + "/" + name) != 0;
  };
  ctx.namespace_labels = [self](const std::string& ns) -> const core::Labels* {
    auto it = self->state.namespaces.find(ns);
    return it == self->state.namespaces.end() ? nullptr : &it->second;
  };
  return ctx;
}

void reconcile(Self self, const std::string& job_key);
void carry_out(Self self, const std::string& key, JobStep step, std::optional<std::uint32_t> shard);

/// The shard a LocalQueue's Jobs belong to, when sharding is on; `acts` says whether this
/// replica holds it.
struct QueueShard {
  std::optional<std::uint32_t> shard;
  bool acts = true;
};

QueueShard queue_shard(const JobState& st, const std::string& ns, std::string_view queue) {
  if (!st.shards) return {};
  std::uint32_t shard = st.shards->shard_of(ns + "/" + std::string(queue));
  return {shard, st.shards->ownership.holds(shard)};
}

/// A Workload's shard, from the LocalQueue it was submitted to.
QueueShard workload_shard(const JobState& st, const kube::client::Object& wl) {
  return queue_shard(st, std::string(wl.namespace_name()), wl.string_at({"spec", "queueName"}));
}

/// Looks at `key` again after `pause`, reading `reads` afresh first. A retry already
/// due sooner keeps its time; the reads add up.
void schedule_retry(Self self, const std::string& key, std::chrono::milliseconds pause, std::vector<ReadTarget> reads) {
  auto& st = self->state;
  const core::Time due = now_of(st) + pause;
  auto [it, added] = st.retry.try_emplace(key);
  if (added || due < it->second.due) {
    it->second.due = due;
    // A little late rather than early: an early tick finds nothing due.
    self->delayed_send(self, pause + std::chrono::milliseconds(5), JobTick{});
  }
  for (auto& r : reads) it->second.reads.push_back(std::move(r));
}

/// The retries whose time has come, removed from the table.
std::vector<std::pair<std::string, Retry>> due_retries(JobState& st) {
  std::vector<std::pair<std::string, Retry>> due;
  const core::Time now = now_of(st);
  for (auto it = st.retry.begin(); it != st.retry.end();) {
    if (it->second.due <= now) {
      due.emplace_back(it->first, std::move(it->second));
      it = st.retry.erase(it);
    } else {
      ++it;
    }
  }
  return due;
}

/// Reconciles `key` again at `at`: a tick is sent for each new deadline; the tick
/// reconciles every key whose deadline has passed.
void schedule_wake(Self self, const std::string& key, core::Time at) {
  auto& st = self->state;
  auto [it, inserted] = st.wake_at.try_emplace(key, at);
  if (!inserted) {
    if (it->second == at) return;
    it->second = at;
  }
  auto delay = std::chrono::duration_cast<std::chrono::milliseconds>(at - now_of(st));
  // A little late rather than early: an early tick finds nothing due and waits again.
  delay = std::max(delay, std::chrono::milliseconds(0)) + std::chrono::milliseconds(5);
  self->delayed_send(self, delay, JobTick{});
}

/// The keys whose deadline has passed, removed from the table.
std::vector<std::string> due_wakeups(JobState& st) {
  std::vector<std::string> due;
  core::Time now = now_of(st);
  for (auto it = st.wake_at.begin(); it != st.wake_at.end();) {
    if (it->second <= now) {
      due.push_back(it->first);
      it = st.wake_at.erase(it);
    } else {
      ++it;
    }
  }
  return due;
}

WriteRequest to_request(JobWrite& w) {
  WriteRequest req;
  req.kind = w.kind;
  req.ns = w.ns;
  req.name = w.name;
  switch (w.verb) {
    case JobWrite::Verb::Create: req.verb = WriteVerb::Create; break;
    case JobWrite::Verb::MergePatch: req.verb = WriteVerb::MergePatch; break;
    case JobWrite::Verb::MergePatchStatus: req.verb = WriteVerb::MergePatchStatus; break;
    case JobWrite::Verb::Delete: req.verb = WriteVerb::Delete; break;
  }
  req.body = std::make_shared<const json::value>(std::move(w.body));
  req.precondition_rv = w.precondition_rv;
  req.intent = WriteIntent::JobStep;
  return req;
}

/// Keys: a Job's "ns/name", or "workload:ns/name" for a Workload without a Job.
bool is_job_key(const std::string& key) { return key.rfind("workload:", 0) != 0; }

/// The cached version of a Job or Workload; empty when not cached.
std::string cached_version(const JobState& st, ObjectKind kind, const std::string& key) {
  if (kind == ObjectKind::Workload) {
    auto it = st.workloads.find(key);
    return it == st.workloads.end() ? std::string() : it->second.resource_version;
  }
  if (kind == st.job_kind) {
    auto it = st.jobs.find(key);
    return it == st.jobs.end() ? std::string() : it->second.resource_version;
  }
  return {};
}

/// Stores a version of a Job or Workload unless the cache holds a newer one: the watch
/// and the answers to this actor's own writes and reads arrive in no common order, and an
/// older version acted on (an admission since withdrawn) could start a Job. False when
/// not stored.
bool remember(JobState& st, ObjectKind kind, const CachedObject& object) {
  std::string key = object->key();
  if (kube::client::older_resource_version(object->resource_version(), cached_version(st, kind, key))) {
    ++st.stale_events;
    return false;
  }
  if (kind == ObjectKind::Workload) {
    st.workloads[key] = known_workload(st, *object, object.packed_text());
    index_workload(st, object.decoded(), false);
  } else {
    st.jobs[key] = known_job(*object, object.packed_text());
  }
  return true;
}

/// Forgets a Job or Workload that is gone, unless the cache holds a version newer than
/// `as_of` (a new object of the same name). False when kept.
bool forget(JobState& st, ObjectKind kind, const ObjectPtr& object, std::string_view as_of) {
  std::string key = object->key();
  if (kube::client::older_resource_version(as_of, cached_version(st, kind, key))) {
    ++st.stale_events;
    return false;
  }
  if (kind == ObjectKind::Workload) {
    st.workloads.erase(key);
    index_workload(st, object, true);
  } else {
    st.jobs.erase(key);
  }
  return true;
}

void look_again(Self self, const std::string& key);

/// One of `key`'s writes or reads settled: once none is outstanding, the Job is looked at
/// again if that made progress or it changed meanwhile.
void settle_one(Self self, const std::string& key, bool progressed) {
  auto& st = self->state;
  auto it = st.in_flight.find(key);
  if (it == st.in_flight.end() || --it->second > 0) return;
  st.in_flight.erase(it);
  bool changed_meanwhile = st.again.erase(key) != 0;
  if (changed_meanwhile) st.steps.erase(key);
  if (progressed || changed_meanwhile) look_again(self, key);
}

/// What a failed write or read leads to: after a pause, the object read afresh and the
/// Job looked at again. Nothing for a write fenced off (the shard's new holder acts).
void retry_after_failure(Self self, const std::string& key, const ReadTarget& target, const std::string& what,
                         const WriteOutcome& o) {
  auto& st = self->state;
  ++st.failures;
  if (o.reason == "NotOwner") {
    spdlog::debug("{}: {} not sent: {}", key, what, o.message);
    return;
  }
  st.steps.erase(key);  // a failure is no step: the guard is for steps that keep landing
  const auto pause = retry_pause(++st.failures_in_a_row[key]);
  // Conflicts and NotFound are races a newer object usually settles; the others say more.
  const bool race = o.http_status == 409 || o.http_status == 404;
  spdlog::log(race ? spdlog::level::debug : spdlog::level::warn,
              "{}: {} failed: {} {} {}{}; reading {} {} afresh and trying again in {} ms", key, what, o.http_status,
              o.reason, o.message, o.maybe_landed ? " (it may have landed)" : "", to_string(target.kind),
              target.name, pause.count());
  schedule_retry(self, key, pause, {target});
}

void on_write_done(Self self, const std::string& key, const ReadTarget& target, const std::string& what,
                   bool deleting, const WriteOutcome& o) {
  auto& st = self->state;
  bool progressed = false;
  if (o.ok) {
    st.failures_in_a_row.erase(key);
    // Our own write is the freshest state we know: the next step is computed from it.
    if (o.object) {
      // An object being deleted whose last finalizer this write removed is gone from the
      // server (so is one this write deleted that had no finalizer to keep it): caching it
      // would resurrect it if its DELETED event came first (a Job then waits for a
      // Workload it believes it has).
      const bool gone = (o.object->being_deleted() || deleting) && o.object->finalizers().empty();
      if (target.kind == st.job_kind || target.kind == ObjectKind::Workload) {
        if (gone) {
          forget(st, target.kind, o.object, o.object->resource_version());
        } else {
          remember(st, target.kind, CachedObject::packed_from(o.object));
        }
      } else if (Table* t = table_for(st, target.kind)) {
        if (gone) {
          t->erase(o.object->key());
        } else {
          (*t)[o.object->key()] = o.object;
        }
      }
    }
    spdlog::info("{}: {}", key, what);
    progressed = true;
  } else if (!o.superseded) {
    retry_after_failure(self, key, target, what, o);
  }
  // A Workload without a Job is looked at again only by its retry or its next change.
  settle_one(self, key, progressed && is_job_key(key));
}

/// Reads `reads` afresh for `key`, then looks at it again.
void reread(Self self, const std::string& key, std::vector<ReadTarget> reads) {
  auto& st = self->state;
  for (auto& r : reads) {
    ++st.in_flight[key];
    ++st.rereads;
    const std::string known = cached_version(st, r.kind, r.ns.empty() ? r.name : r.ns + "/" + r.name);
    WriteRequest req;
    req.kind = r.kind;
    req.verb = WriteVerb::Get;
    req.ns = r.ns;
    req.name = r.name;
    req.intent = WriteIntent::Read;
    auto on_read = [self, key, r, known](const WriteOutcome& o) {
      auto& s = self->state;
      bool fresh = true;
      if (o.ok && o.object) {
        if (r.kind == s.job_kind || r.kind == ObjectKind::Workload) remember(s, r.kind, CachedObject::packed_from(o.object));
      } else if (o.http_status == 404) {
        // Gone, unless a newer one arrived while the read was out.
        if ((r.kind == s.job_kind || r.kind == ObjectKind::Workload) &&
            cached_version(s, r.kind, r.ns.empty() ? r.name : r.ns + "/" + r.name) == known) {
          json::value meta = json::object{{"metadata", json::object{{"name", r.name}, {"namespace", r.ns}}}};
          forget(s, r.kind, std::make_shared<const kube::client::Object>(std::move(meta)), known);
        }
      } else {
        fresh = false;
        retry_after_failure(self, key, r, "reading it", o);
      }
      settle_one(self, key, fresh);
    };
    self->request(st.links.writer, caf::infinite, std::move(req))
        .then([on_read](WriteOutcome& o) { on_read(o); },
              [on_read](caf::error& err) {
                WriteOutcome o;
                o.message = "writer unreachable: " + caf::to_string(err);
                on_read(o);
              });
  }
}

void carry_out(Self self, const std::string& key, JobStep step, std::optional<std::uint32_t> shard) {
  auto& st = self->state;
  for (auto& e : step.events) {
    self->send(st.links.events, RecordEvent{e.kind, e.ns, e.name, e.uid, e.warning, e.reason, e.message, shard});
  }
  if (step.recheck_at) schedule_wake(self, key, *step.recheck_at);
  if (step.writes.empty()) {
    st.steps.erase(key);
    return;
  }
  if (++st.steps[key] > kMaxStepsWithoutChange) {
    // The same step keeps coming back: stop spinning and say so; look again later, on
    // objects read afresh.
    ++st.stuck;
    spdlog::error("{}: still wants \"{}\" after {} steps; looking again in {} s", key, step.writes[0].what,
                  kMaxStepsWithoutChange, kStuckPause.count());
    st.steps.erase(key);
    std::vector<ReadTarget> reads;
    for (const auto& w : step.writes) reads.push_back(ReadTarget{w.kind, w.ns, w.name});
    schedule_retry(self, key, kStuckPause, std::move(reads));
    return;
  }
  for (auto& w : step.writes) {
    ++st.writes;
    ++st.in_flight[key];
    ReadTarget target{w.kind, w.ns, w.name};
    std::string what = w.what;
    const bool deleting = w.verb == JobWrite::Verb::Delete;
    auto counted = std::move(w.on_success);
    WriteRequest req = to_request(w);
    req.shard = shard;
    self->request(st.links.writer, caf::infinite, std::move(req))
        .then([self, key, target, what, deleting, counted = std::move(counted)](WriteOutcome& o) mutable {
                if (o.ok && counted && self->state.links.metrics) self->send(self->state.links.metrics, std::move(*counted));
                on_write_done(self, key, target, what, deleting, o);
              },
              [self, key, target, what, deleting](caf::error& err) {
                WriteOutcome o;
                o.message = caf::to_string(err);
                o.maybe_landed = true;
                on_write_done(self, key, target, what, deleting, o);
              });
  }
}

/// Every cached Workload the Job owns (kept alive by the returned pointers).
std::vector<ObjectPtr> workloads_of(JobState& st, const kube::client::Object& job) {
  std::vector<ObjectPtr> out;
  auto keys = st.workloads_of_job.find(std::string(job.uid()));
  if (keys == st.workloads_of_job.end()) return out;
  for (const auto& key : keys->second) {
    auto it = st.workloads.find(key);
    if (it == st.workloads.end()) continue;
    if (auto wl = unpacked(it->second, key)) out.push_back(std::move(wl));
  }
  return out;
}

void reconcile(Self self, const std::string& job_key) {
  auto& st = self->state;
  if (!st.synced) return;
  if (st.in_flight.count(job_key) != 0) {
    st.again.insert(job_key);
    return;
  }
  auto job = st.jobs.find(job_key);
  if (job == st.jobs.end()) return;
  ObjectPtr keep = unpacked(job->second.packed, "job", job_key);  // the step may outlive a cache update
  if (!keep) return;
  JobContext ctx = context(self);
  QueueShard shard;
  if (st.shards) {
    // Unmanaged Jobs count as shard 0's: its holder is the one that would act on them.
    auto queue = managed_queue(*keep, ctx);
    shard = queue ? queue_shard(st, std::string(keep->namespace_name()), *queue) : QueueShard{0u, st.shards->ownership.holds(0)};
    if (!shard.acts) {
      ++st.skipped_not_owner;
      st.wake_at.erase(job_key);
      return;
    }
  }
  std::vector<ObjectPtr> owned = workloads_of(st, *keep);
  std::vector<const kube::client::Object*> views;
  for (const auto& w : owned) views.push_back(w.get());
  JobStep step = reconcile_job(*keep, std::span<const kube::client::Object* const>(views), ctx);
  st.related_unpacked.clear();  // kept packed between reconciles
  carry_out(self, job_key, std::move(step), shard.shard);
}

/// A Workload whose Job is gone (deleted while we were down, or just now). Its metadata
/// says whether a release is due; only then is the whole unpacked.
void release_orphan_workload(Self self, const CachedObject& version) {
  auto& st = self->state;
  const kube::client::Object& wl = *version;
  if (!st.synced) return;
  auto ref = owner_job(st, wl);
  if (!ref) return;
  auto job = st.jobs.find(std::string(wl.namespace_name()) + "/" + ref->name);
  if (job != st.jobs.end() && job->second.uid == ref->uid) return;
  // Without its Job nothing can run: the finalizer only delays garbage collection.
  if (!wl.being_deleted()) return;
  std::string key = "workload:" + wl.key();
  if (st.in_flight.count(key) != 0) return;
  auto whole = version.document();
  if (!whole) {
    spdlog::error("job integration: workload {}: {}", wl.key(), whole.error().message);
    return;
  }
  auto shard = workload_shard(st, **whole);
  if (!shard.acts) return;
  carry_out(self, key, release_orphan(**whole), shard.shard);
}

void look_again(Self self, const std::string& key) {
  auto& st = self->state;
  if (is_job_key(key)) {
    reconcile(self, key);
  } else if (auto it = st.workloads.find(key.substr(9)); it != st.workloads.end()) {
    if (ObjectPtr wl = unpacked(it->second, it->first)) release_orphan_workload(self, wl);
  }
}

/// A WorkloadPriorityClass changed value: every Workload that references it follows.
void propagate_priority(Self self, const kube::client::Object& wpc) {
  auto& st = self->state;
  auto value = static_cast<std::int32_t>(wpc.int_at({"value"}).value_or(0));
  std::vector<std::string> keys;  // in key order, whatever the table's
  for (const auto& [key, known] : st.workloads) {
    if (follows_priority_class(known.packed, wpc.name())) keys.push_back(key);
  }
  std::sort(keys.begin(), keys.end());
  for (const auto& key : keys) {
    auto it = st.workloads.find(key);
    if (it == st.workloads.end()) continue;
    ObjectPtr wl = unpacked(it->second, key);
    if (!wl) continue;
    auto shard = workload_shard(st, *wl);
    if (!shard.acts) continue;
    auto write = sync_workload_priority(*wl, value);
    if (!write) continue;
    std::string step_key = "workload:" + key;
    if (st.in_flight.count(step_key) != 0) continue;
    JobStep step;
    step.writes.push_back(std::move(*write));
    carry_out(self, step_key, std::move(step), shard.shard);
  }
}

void reconcile_all(Self self) {
  auto& st = self->state;
  std::vector<std::string> keys;
  keys.reserve(st.jobs.size());
  for (const auto& [key, job] : st.jobs) keys.push_back(key);
  for (const auto& key : keys) reconcile(self, key);
  std::vector<std::string> deleting;  // collected first (a release may change the table), in key order
  for (const auto& [key, known] : st.workloads) {
    if (known.job_owned_and_deleting) deleting.push_back(key);
  }
  std::sort(deleting.begin(), deleting.end());
  std::vector<ObjectPtr> wls;
  for (const auto& key : deleting) {
    if (auto wl = unpacked(st.workloads.find(key)->second, key)) wls.push_back(std::move(wl));
  }
  for (const auto& wl : wls) release_orphan_workload(self, wl);
  for (const auto& [name, wpc] : st.wpcs) propagate_priority(self, *wpc);
}

/// Looks again at every Job of a namespace.
void reconcile_namespace(Self self, std::string_view ns) {
  auto& st = self->state;
  const std::string prefix = std::string(ns) + "/";
  std::vector<std::string> keys;  // collected first: a reconcile may change the table
  for (auto it = st.jobs.lower_bound(prefix); it != st.jobs.end() && it->first.starts_with(prefix); ++it) {
    keys.push_back(it->first);
  }
  for (const auto& job_key : keys) reconcile(self, job_key);
}

/// Stores (or forgets) one version in its table; false for kinds this actor ignores.
/// Also false for a Job or Workload version older than the one cached (see remember).
bool store(JobState& st, const ObjectChanged& event) {
  const ObjectPtr& object = event.object.decoded();
  std::string key = object->key();
  if (event.kind == ObjectKind::Workload || event.kind == st.job_kind) {
    if (event.deleted) return forget(st, event.kind, object, object->resource_version());
    return remember(st, event.kind, event.object);
  }
  if (is_related(st, event.kind)) {
    auto& table = st.related[event.kind];
    if (event.deleted) {
      table.erase(key);
    } else {
      table[key] = event.object.packed_text();
    }
    return true;
  }
  if (event.kind == ObjectKind::Namespace) {
    if (event.deleted) {
      st.namespaces.erase(key);
    } else {
      auto labels = object->labels();
      st.namespaces[key] = core::Labels(labels.begin(), labels.end());
    }
    return true;
  }
  Table* t = table_for(st, event.kind);
  if (t == nullptr) return false;
  if (event.deleted) {
    t->erase(key);
  } else {
    (*t)[key] = object;
  }
  return true;
}

void on_change(Self self, const ObjectChanged& event) {
  auto& st = self->state;
  if (!event.object || !store(st, event)) return;
  const ObjectKind kind = event.kind;
  const ObjectPtr& object = event.object.decoded();  // only the metadata of a packed kind
  const bool deleted = event.deleted;
  std::string key = object->key();
  if (is_related(st, kind)) {
    // A runtime that appears or changes: the jobs that may name it are looked at again
    // (a namespaced one's namespace, a cluster-scoped one's every job).
    if (object->namespace_name().empty()) {
      std::vector<std::string> keys;
      for (const auto& [job_key, job] : st.jobs) keys.push_back(job_key);
      for (const auto& job_key : keys) reconcile(self, job_key);
    } else {
      reconcile_namespace(self, object->namespace_name());
    }
    return;
  }
  if (kind == st.job_kind) {
    st.steps.erase(key);
    if (!deleted) {
      reconcile(self, key);
    } else {
      for (const auto& wl : workloads_of(st, *object)) release_orphan_workload(self, wl);
    }
    return;
  }
  switch (kind) {
    case ObjectKind::Workload:
      if (auto ref = owner_job(st, *object)) {
        std::string job_key = std::string(object->namespace_name()) + "/" + ref->name;
        st.steps.erase(job_key);
        reconcile(self, job_key);
      }
      if (!deleted) release_orphan_workload(self, event.object);
      break;
    case ObjectKind::WorkloadPriorityClass:
      // Workloads follow the new value; Jobs waiting for this class can now be queued.
      if (!deleted) reconcile_all(self);
      break;
    case ObjectKind::PriorityClass:
    case ObjectKind::ResourceFlavor:
      // A class or flavor that appears can unblock Workload creation or a Job start.
      if (!deleted) reconcile_all(self);
      break;
    case ObjectKind::LocalQueue:
      // A new "default" LocalQueue picks up the namespace's unlabelled Jobs.
      if (st.options.manage_jobs_without_queue_name && !deleted) reconcile_namespace(self, object->namespace_name());
      break;
    case ObjectKind::Namespace:
      // A namespace seen, or relabelled into the selector, brings its Jobs under management.
      if (st.options.managed_namespaces && !deleted) reconcile_namespace(self, object->name());
      break;
    default: break;
  }
}

void on_relist(Self self, ObjectsRelisted& event) {
  auto& st = self->state;
  if (!event.items) return;
  if (event.kind == ObjectKind::Workload) {
    st.workloads.clear();
    st.workloads_of_job.clear();
    for (const CachedObject& object : *event.items) {
      st.workloads[object->key()] = known_workload(st, *object, object.packed_text());
      index_workload(st, object.decoded(), false);
    }
  } else if (event.kind == st.job_kind) {
    st.jobs.clear();
    for (const CachedObject& object : *event.items) st.jobs[object->key()] = known_job(*object, object.packed_text());
  } else if (is_related(st, event.kind)) {
    auto& table = st.related[event.kind];
    table.clear();
    for (const CachedObject& object : *event.items) table[object->key()] = object.packed_text();
  } else if (event.kind == ObjectKind::Namespace) {
    st.namespaces.clear();
    for (const CachedObject& object : *event.items) {
      auto labels = object->labels();
      st.namespaces[object->key()] = core::Labels(labels.begin(), labels.end());
    }
  } else {
    Table* t = table_for(st, event.kind);
    if (t == nullptr) return;
    t->clear();
    for (const auto& object : *event.items) (*t)[object->key()] = object.decoded();
  }
  st.listed.insert(event.kind);
  if (!st.synced) {
    if (st.listed.count(st.job_kind) == 0) return;
    for (ObjectKind k : kNeeded) {
      if (st.listed.count(k) == 0) return;
    }
    // Without them a job's pod sets are unknown, and its Workload would look stale.
    for (ObjectKind k : st.related_kinds) {
      if (st.listed.count(k) == 0) return;
    }
    // Namespaces are needed only to select the managed ones.
    if (st.options.managed_namespaces && st.listed.count(ObjectKind::Namespace) == 0) return;
    st.synced = true;
    spdlog::info("job integration {}: {} {}s and {} workloads listed; reconciling", st.integration->framework(),
                 st.jobs.size(), to_string(st.job_kind), st.workloads.size());
  }
  st.steps.clear();
  reconcile_all(self);
}

std::string summary(Self self) {
  auto& st = self->state;
  json::object o;
  o["synced"] = st.synced;
  o["jobs"] = st.jobs.size();
  o["workloads"] = st.workloads.size();
  o["writesInFlight"] = st.in_flight.size();
  o["writes"] = st.writes;
  o["failures"] = st.failures;
  o["stuck"] = st.stuck;
  o["retriesWaiting"] = st.retry.size();
  o["rereads"] = st.rereads;
  o["staleEventsIgnored"] = st.stale_events;
  o["deadlines"] = st.wake_at.size();
  if (st.shards) o["skippedNotOwner"] = st.skipped_not_owner;
  return json::dump(o);
}

}  // namespace

messages::job_actor spawn_job_actor(caf::actor_system& system, JobIntegrationOptions options, JobLinks links,
                                    std::function<core::Time()> clock, bool sharded, JobKind kind) {
  return system.spawn([options, links, clock, sharded, kind](Self self) -> job_actor::behavior_type {
    if (sharded) self->state.shards = JobShards{};  // holds nothing yet
    if (kind.integration != nullptr) self->state.integration = kind.integration;
    for (ObjectKind related : related_kinds(kind.tag)) self->state.related_kinds.push_back(related);
    self->state.bound_integration =
        bind_integration(kind.tag, [self](ObjectKind k, std::string_view ns, std::string_view name) {
          return related_object(self->state, k, ns, name);
        });
    if (self->state.bound_integration) self->state.integration = self->state.bound_integration.get();
    self->state.job_kind = kind.tag;
    self->state.options = options;
    self->state.links = links;
    self->state.clock = clock;
    self->send(links.introspection,
               ActorRegistered{"job", kind.name(), self->address(), caf::actor_cast<caf::strong_actor_ptr>(self)});
    return {
        [self](ObjectsRelisted& event) {
          ++self->state.handled;
          on_relist(self, event);
        },
        [self](ObjectChanged& event) {
          ++self->state.handled;
          on_change(self, event);
        },
        [self](ObjectChanges& batch) {
          ++self->state.handled;
          for (const auto& event : batch.changes) on_change(self, event);
        },
        [self](JobTick) {
          auto& st = self->state;
          ++st.handled;
          for (auto& [key, retry] : due_retries(st)) {
            if (retry.reads.empty()) {
              look_again(self, key);
            } else {
              reread(self, key, std::move(retry.reads));  // looks again once they are answered
            }
          }
          for (const auto& key : due_wakeups(st)) look_again(self, key);
        },
        [self](JobShards& shards) {
          auto& st = self->state;
          ++st.handled;
          if (st.shards && st.shards->ownership.version > shards.ownership.version) return;  // late
          st.shards = std::move(shards);
          // Jobs of shards gained (or of LocalQueues that moved here) are taken up; the
          // rest are skipped by reconcile itself.
          if (st.synced) {
            st.steps.clear();
            reconcile_all(self);
          }
        },
        [self](IntrospectActor) -> ActorInfo {
          return ActorInfo{"job", JobKind{self->state.integration, self->state.job_kind}.name(), self->mailbox().size(), self->state.handled, summary(self)};
        },
    };
  });
}

}  // namespace kueuepp::actors
