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
#include "core/string_key_map.hpp"
#include "kube/json/json.hpp"
#include "kube/json/json_node.hpp"

namespace kueuepp::actors {

using namespace messages;

namespace {

using Table = std::map<std::string, ObjectPtr, std::less<>>;

/// Steps one Job may take back to back without an outside change: a guard against a
/// write that the reconciler keeps asking for (it would otherwise loop forever).
constexpr int kMaxStepsWithoutChange = 12;

/// The kinds whose first list must arrive before any decision.
constexpr ObjectKind kNeeded[] = {ObjectKind::Job,        ObjectKind::Workload,
                                  ObjectKind::ResourceFlavor, ObjectKind::LocalQueue,
                                  ObjectKind::WorkloadPriorityClass, ObjectKind::PriorityClass};

/// What the job actor keeps of a Workload: the packed document (shared with the trees),
/// and what its scans over every Workload test, so that they unpack only the few they
/// act on.
struct KnownWorkload {
  PackedPtr packed;
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
};
using JobTable = std::map<std::string, KnownJob, std::less<>>;

struct JobState {
  JobIntegrationOptions options;
  JobLinks links;
  std::function<core::Time()> clock;
  JobTable jobs;
  WorkloadTable workloads;
  Table flavors;
  Table local_queues;
  Table wpcs;
  Table pcs;
  std::set<ObjectKind> listed;
  bool synced = false;
  /// job uid -> the keys of the Workloads it owns (more than one: duplicates, which the
  /// reconciler deletes).
  std::map<std::string, std::set<std::string>> workloads_of_job;
  std::map<std::string, int> in_flight;                ///< job key -> writes outstanding
  std::map<std::string, int> steps;                    ///< job key -> steps since the last outside change
  std::set<std::string> again;                         ///< changed while writes were in flight
  std::set<std::string> retry;
  bool retry_scheduled = false;
  /// Deadlines the reconciler asked to be woken for (PodsReady timeouts, requeue backoffs).
  std::map<std::string, core::Time> wake_at;
  /// With sharding: which LocalQueues' Jobs this replica handles (see JobShards).
  std::optional<JobShards> shards;
  std::uint64_t skipped_not_owner = 0;
  std::uint64_t handled = 0;
  std::uint64_t writes = 0;
  std::uint64_t failures = 0;
  std::uint64_t stuck = 0;
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

std::optional<kube::client::OwnerReference> owner_job(const kube::client::Object& wl) {
  auto ref = wl.controller_reference();
  if (!ref || ref->kind != "Job") return std::nullopt;
  return ref;
}

/// `wl` may be only the metadata of a packed watch event (see messages::ObjectChanged).
KnownWorkload known_workload(const kube::client::Object& wl, PackedPtr packed) {
  KnownWorkload k;
  k.packed = std::move(packed);
  k.job_owned_and_deleting = wl.being_deleted() && owner_job(wl).has_value();
  return k;
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

void index_workload(JobState& st, const ObjectPtr& wl, bool deleted) {
  auto ref = owner_job(*wl);
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

void schedule_retry(Self self, const std::string& key) {
  auto& st = self->state;
  st.retry.insert(key);
  if (st.retry_scheduled) return;
  st.retry_scheduled = true;
  self->delayed_send(self, std::chrono::seconds(1), JobTick{});
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
  req.urgent = true;
  return req;
}

/// Keys: a Job's "ns/name", or "workload:ns/name" for a Workload without a Job.
bool is_job_key(const std::string& key) { return key.rfind("workload:", 0) != 0; }

void on_write_done(Self self, const std::string& key, ObjectKind kind, const std::string& what, bool deleting,
                   const WriteOutcome& o) {
  auto& st = self->state;
  bool progressed = false;
  if (o.ok) {
    // Our own write is the freshest state we know: do not act on the stale cache.
    if (o.object) {
      // An object being deleted whose last finalizer this write removed is gone from the
      // server (so is one this write deleted that had no finalizer to keep it): caching it
      // would resurrect it if its DELETED event came first (a Job then waits for a
      // Workload it believes it has).
      const bool gone = (o.object->being_deleted() || deleting) && o.object->finalizers().empty();
      if (Table* t = table_for(st, kind)) {
        if (gone) {
          t->erase(o.object->key());
        } else {
          (*t)[o.object->key()] = o.object;
        }
      }
      if (kind == ObjectKind::Workload) index_workload(st, o.object, gone);
    }
    spdlog::info("{}: {}", key, what);
    progressed = true;
  } else if (!o.superseded) {
    ++st.failures;
    bool race = o.http_status == 409 || o.http_status == 404 || o.reason == "NotOwner";
    if (race) {
      spdlog::debug("{}: {} lost a race ({}); waiting for the newer object", key, what, o.reason);
    } else {
      spdlog::warn("{}: {} failed: {} {} {}; retrying in 1 s", key, what, o.http_status, o.reason, o.message);
      schedule_retry(self, key);
    }
  }
  auto it = st.in_flight.find(key);
  if (it == st.in_flight.end() || --it->second > 0) return;
  st.in_flight.erase(it);
  bool changed_meanwhile = st.again.erase(key) != 0;
  if (!is_job_key(key)) return;
  if (changed_meanwhile) st.steps.erase(key);
  if (progressed || changed_meanwhile) reconcile(self, key);
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
    // The same step keeps coming back: stop here and say so, instead of spinning.
    ++st.stuck;
    spdlog::error("{}: still wants \"{}\" after {} steps; waiting for the next change", key, step.writes[0].what,
                  kMaxStepsWithoutChange);
    st.steps.erase(key);
    return;
  }
  for (auto& w : step.writes) {
    ++st.writes;
    ++st.in_flight[key];
    ObjectKind kind = w.kind;
    std::string what = w.what;
    const bool deleting = w.verb == JobWrite::Verb::Delete;
    auto counted = std::move(w.on_success);
    WriteRequest req = to_request(w);
    req.shard = shard;
    self->request(st.links.writer, caf::infinite, std::move(req))
        .then([self, key, kind, what, deleting, counted = std::move(counted)](WriteOutcome& o) mutable {
                if (o.ok && counted && self->state.links.metrics) self->send(self->state.links.metrics, std::move(*counted));
                on_write_done(self, key, kind, what, deleting, o);
              },
              [self, key, kind, what, deleting](caf::error& err) {
                WriteOutcome o;
                o.message = caf::to_string(err);
                on_write_done(self, key, kind, what, deleting, o);
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
  carry_out(self, job_key, reconcile_job(*keep, std::span<const kube::client::Object* const>(views), ctx), shard.shard);
}

/// A Workload whose Job is gone (deleted while we were down, or just now).
/// `packed`, when given, is `wl` whole: `wl` may then be only its metadata (a packed
/// watch event), and the whole is unpacked only when a release is due.
void release_orphan_workload(Self self, const kube::client::Object& wl, const PackedPtr& packed = nullptr) {
  auto& st = self->state;
  if (!st.synced) return;
  auto ref = owner_job(wl);
  if (!ref) return;
  auto job = st.jobs.find(std::string(wl.namespace_name()) + "/" + ref->name);
  if (job != st.jobs.end() && job->second.uid == ref->uid) return;
  // Without its Job nothing can run: the finalizer only delays garbage collection.
  if (!wl.being_deleted()) return;
  std::string key = "workload:" + wl.key();
  if (st.in_flight.count(key) != 0) return;
  ObjectPtr whole = packed ? unpacked(packed, "workload", wl.key()) : nullptr;
  if (packed && !whole) return;
  const kube::client::Object& doc = whole ? *whole : wl;
  auto shard = workload_shard(st, doc);
  if (!shard.acts) return;
  carry_out(self, key, release_orphan(doc), shard.shard);
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
  for (const auto& wl : wls) release_orphan_workload(self, *wl);
  for (const auto& [name, wpc] : st.wpcs) propagate_priority(self, *wpc);
}

/// Stores (or forgets) one version in its table; false for kinds this actor ignores.
bool store(JobState& st, const ObjectChanged& event) {
  const ObjectPtr& object = event.object;
  std::string key = object->key();
  if (event.kind == ObjectKind::Workload) {
    if (event.deleted) {
      st.workloads.erase(key);
    } else {
      st.workloads[key] = known_workload(*object, packed_of(event));
    }
    return true;
  }
  if (event.kind == ObjectKind::Job) {
    if (event.deleted) {
      st.jobs.erase(key);
    } else {
      st.jobs[key] = KnownJob{packed_of(event), std::string(object->uid())};
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
  const ObjectPtr& object = event.object;
  const bool deleted = event.deleted;
  std::string key = object->key();
  switch (kind) {
    case ObjectKind::Workload:
      index_workload(st, object, deleted);
      if (auto ref = owner_job(*object)) {
        std::string job_key = std::string(object->namespace_name()) + "/" + ref->name;
        st.steps.erase(job_key);
        reconcile(self, job_key);
      }
      if (!deleted) release_orphan_workload(self, *object, packed_of(event));
      break;
    case ObjectKind::Job:
      st.steps.erase(key);
      if (!deleted) {
        reconcile(self, key);
      } else {
        for (const auto& wl : workloads_of(st, *object)) release_orphan_workload(self, *wl);
      }
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
      if (st.options.manage_jobs_without_queue_name && !deleted) {
        // A new "default" LocalQueue picks up the namespace's unlabelled Jobs.
        const std::string prefix = std::string(object->namespace_name()) + "/";
        std::vector<std::string> keys;  // collected first: a reconcile may change the table
        for (auto it = st.jobs.lower_bound(prefix); it != st.jobs.end() && it->first.starts_with(prefix); ++it) {
          keys.push_back(it->first);
        }
        for (const auto& job_key : keys) reconcile(self, job_key);
      }
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
    for (std::size_t i = 0; i < event.items->size(); ++i) {
      const ObjectPtr& object = (*event.items)[i];
      st.workloads[object->key()] = known_workload(*object, packed_of(event, i));
      index_workload(st, object, false);
    }
  } else if (event.kind == ObjectKind::Job) {
    st.jobs.clear();
    for (std::size_t i = 0; i < event.items->size(); ++i) {
      const ObjectPtr& object = (*event.items)[i];
      st.jobs[object->key()] = KnownJob{packed_of(event, i), std::string(object->uid())};
    }
  } else {
    Table* t = table_for(st, event.kind);
    if (t == nullptr) return;
    t->clear();
    for (const auto& object : *event.items) (*t)[object->key()] = object;
  }
  st.listed.insert(event.kind);
  if (!st.synced) {
    for (ObjectKind k : kNeeded) {
      if (st.listed.count(k) == 0) return;
    }
    st.synced = true;
    spdlog::info("job integration: {} jobs and {} workloads listed; reconciling", st.jobs.size(), st.workloads.size());
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
  o["deadlines"] = st.wake_at.size();
  if (st.shards) o["skippedNotOwner"] = st.skipped_not_owner;
  return json::dump(o);
}

}  // namespace

messages::job_actor spawn_job_actor(caf::actor_system& system, JobIntegrationOptions options, JobLinks links,
                                    std::function<core::Time()> clock, bool sharded) {
  return system.spawn([options, links, clock, sharded](Self self) -> job_actor::behavior_type {
    if (sharded) self->state.shards = JobShards{};  // holds nothing yet
    self->state.options = options;
    self->state.links = links;
    self->state.clock = clock;
    self->send(links.introspection,
               ActorRegistered{"job", "job", self->address(), caf::actor_cast<caf::strong_actor_ptr>(self)});
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
          st.retry_scheduled = false;
          auto keys = std::move(st.retry);
          st.retry.clear();
          for (auto& key : due_wakeups(st)) keys.insert(std::move(key));
          for (const auto& key : keys) {
            if (is_job_key(key)) {
              reconcile(self, key);
            } else if (auto it = st.workloads.find(key.substr(9)); it != st.workloads.end()) {
              if (ObjectPtr wl = unpacked(it->second, it->first)) release_orphan_workload(self, *wl);
            }
          }
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
          return ActorInfo{"job", "job", self->mailbox().size(), self->state.handled, summary(self)};
        },
    };
  });
}

}  // namespace kueuepp::actors
