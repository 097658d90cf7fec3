#include "actors/cohort_tree_actor.hpp"

#include <caf/actor_system.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "actors/cluster_queue_actor.hpp"
#include "actors/explain_json.hpp"
#include "actors/explanation_pacer.hpp"
#include "actors/read_back.hpp"
#include "core/engine/engine.hpp"
#include "kube/jobs/workload_status.hpp"

namespace kueuepp::actors {

using namespace messages;

namespace {

/// What a tree keeps of a Workload's document: the packed text (shared with the router
/// and the job actor), and what it reads on every event or publish without unpacking.
/// The document is unpacked only to compute a write.
struct CachedWorkload {
  PackedPtr packed;
  std::string resource_version;
  std::string queue_name;  ///< spec.queueName
  std::int32_t priority = 0;  ///< spec.priority
  bool finished = false;
  bool holds_quota = false;
};

/// A status write that did not settle: its answer was lost, so it may have landed, or it
/// was refused in a way that no newer version will retry (a 429, a 5xx). Kept until a
/// read of the workload says what happened; an admission's quota stays held till then.
struct Unsettled {
  enum What : int { Admission = 0, Eviction = 1, Checks = 2 };
  What what = Admission;
  std::string based_on;  ///< the resourceVersion the write was conditional on
  core::AdmissionDecision admission;  ///< Admission
  core::Time decided_at{};            ///< Admission: the round's time, for its Events
  PackedPtr written_on;               ///< Admission: the version written on, for its Events
  core::EvictionDecision eviction;    ///< Eviction
  core::AdmissionCheckDecision checks;  ///< Checks
  std::uint32_t reads = 0;  ///< reads that failed so far (the next one waits longer)
  bool reading = false;
};

struct TreeState {
  std::string name;
  CohortTreeOptions options;
  CohortTreeLinks links;
  std::unique_ptr<core::Engine> engine;
  std::unordered_map<std::string, CachedWorkload> workloads;  ///< latest version per workload key
  std::map<std::string, ObjectPtr, std::less<>> cluster_queues;
  std::map<std::string, ObjectPtr> local_queues;  ///< ns/name -> object
  std::map<std::string, cluster_queue_actor> cq_actors;
  std::set<std::string> writing_admissions;
  /// Workloads whose pending-status write was refused (409): rewritten from the engine's
  /// current explanation when the newer object arrives.
  std::set<std::string, std::less<>> recheck_pending;
  /// Workloads with a pending-status write outstanding -> whether a newer explanation
  /// was decided meanwhile. One write per workload at a time: while the budget is short
  /// the engine explains faster than the writer writes, and a patch computed for every
  /// explanation would mostly be superseded before it is sent.
  std::unordered_map<std::string, bool> pending_writes;
  /// How often each workload's explanation is rewritten (see ExplanationPacer).
  ExplanationPacer pacer;
  /// Evictions not written yet: refused (409: the object changed since the eviction
  /// patch was computed) or held back while the workload's admission is being written.
  /// Each is rewritten on the newer object when it arrives, if it still holds quota.
  std::map<std::string, core::EvictionDecision, std::less<>> recheck_evictions;
  /// Writes not settled yet (see Unsettled), by workload key and what they were.
  std::map<std::pair<std::string, int>, Unsettled> unsettled;
  std::uint64_t read_backs = 0;
  /// Whether this replica acts on the tree (holds its shard); see TreeOwnership.
  bool active = true;
  std::optional<std::uint32_t> shard;
  bool publish_scheduled = false;
  bool status_dirty = true;
  /// TreeDirty was sent and no round has started since: the scheduler still holds this
  /// tree as dirty (it forgets that only when it sends RunRound), so telling it again
  /// before that round is a message for nothing.
  bool dirty_reported = false;
  /// The requeue wake-up the last round told the scheduler about: a batch that moves it
  /// needs a round to tell it again, even when that round has nothing else to do.
  std::optional<core::Time> reported_wake_at;
  /// Batches of changes that left the engine with nothing to do (see Engine::has_work):
  /// no round was asked for.
  std::uint64_t batches_without_round = 0;
  /// Metric reports and Events gathered since the last publish, sent together with the
  /// status (a message per report and per Event was a sixth of the controller's CAF
  /// messages; metrics and Events lag by at most one status interval).
  MetricReports reports;
  std::vector<RecordEvent> events;
  std::uint64_t handled = 0;
  std::uint64_t rounds = 0;
  std::uint64_t admitted = 0;
  std::uint64_t preempted = 0;
  std::uint64_t rolled_back = 0;
  std::int64_t last_round_us = 0;
};

using Self = cohort_tree_actor::stateful_pointer<TreeState>;
using client_object = kube::client::Object;

core::Time now_of(const TreeState& st) {
  return st.options.clock ? st.options.clock()
                          : std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now());
}

void log_status(const TreeState& st, const Status& s, std::string_view what, const std::string& key) {
  if (!s) spdlog::warn("tree {}: {} {}: {}", st.name, what, key, s.error().message);
}

void ensure_cq_actor(Self self, const std::string& name) {
  auto& st = self->state;
  if (st.cq_actors.count(name) != 0) return;
  auto actor = spawn_cluster_queue(self->system(), name,
                                   ClusterQueueLinks{st.links.writer, st.links.introspection, st.links.metrics},
                                   st.options.clock);
  // Linked: a ClusterQueue actor never outlives its tree.
  self->link_to(actor);
  st.cq_actors.emplace(name, actor);
}

/// Sends the gathered metric reports and Events, one message each.
void flush_reports(Self self) {
  auto& st = self->state;
  MetricReports reports = std::exchange(st.reports, MetricReports{});
  if (st.links.metrics && (!reports.workloads.empty() || !reports.attempts.cycles.empty())) {
    self->send(st.links.metrics, std::move(reports));
  }
  std::vector<RecordEvent> events = std::exchange(st.events, {});
  if (st.links.events && !events.empty()) self->send(st.links.events, RecordEvents{std::move(events)});
}

void schedule_publish(Self self);

void report(Self self, WorkloadMetricEvent e) {
  self->state.reports.workloads.push_back(std::move(e));
  schedule_publish(self);  // sent with the status, at most once per status interval
}

void retire_cq_actor(Self self, const std::string& name) {
  auto& st = self->state;
  auto it = st.cq_actors.find(name);
  if (it == st.cq_actors.end()) return;
  self->unlink_from(it->second);
  self->send_exit(it->second, caf::exit_reason::user_shutdown);
  st.cq_actors.erase(it);
  flush_reports(self);  // their series go with the queue, not after it
  if (st.links.metrics) self->send(st.links.metrics, ClusterQueueGone{name});
}

/// Seconds from `from` (RFC 3339) to `now`; 0 when unknown or in the future.
double seconds_since(std::string_view from, core::Time now) {
  auto t = core::parse_rfc3339(from);
  if (!t) return 0;
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(now - *t).count();
  return us > 0 ? static_cast<double>(us) / 1e6 : 0;
}

/// Kueue's queued wait: since the last requeue, or since creation.
double queued_wait_seconds(const client_object& wl, core::Time now) {
  auto requeued = wl.condition("Requeued");
  if (requeued && requeued->status == "True" && !requeued->last_transition_time.empty()) {
    return seconds_since(requeued->last_transition_time, now);
  }
  return seconds_since(wl.creation_timestamp(), now);
}

/// The metrics' priority_class label is Kueue's PriorityClassName: spec.priorityClassRef.name.
WorkloadMetricEvent workload_event(WorkloadMetricEvent::What what, const client_object& wl, std::string cluster_queue) {
  WorkloadMetricEvent e;
  e.what = what;
  e.cluster_queue = std::move(cluster_queue);
  e.lq_namespace = std::string(wl.namespace_name());
  e.lq_name = std::string(wl.string_at({"spec", "queueName"}));
  e.priority_class = std::string(wl.string_at({"spec", "priorityClassRef", "name"}));
  return e;
}

WorkloadMetricEvent workload_event(WorkloadMetricEvent::What what, const core::Workload& wl, std::string cluster_queue) {
  WorkloadMetricEvent e;
  e.what = what;
  e.cluster_queue = std::move(cluster_queue);
  e.lq_namespace = wl.ns;
  e.lq_name = wl.queue_name;
  if (wl.priority_class_ref) e.priority_class = wl.priority_class_ref->name;
  return e;
}

void report_finished(Self self, const core::Workload& wl) {
  auto& st = self->state;
  if (!st.links.metrics) return;
  if (!wl.admission || wl.admission->cluster_queue.empty()) return;  // Kueue counts those of a queue
  auto e = workload_event(WorkloadMetricEvent::What::Finished, wl, wl.admission->cluster_queue);
  e.seconds = -1;
  report(self, std::move(e));
}

void record_event(Self self, const client_object& wl, std::string reason, std::string message, bool warning = false) {
  auto& st = self->state;
  if (!st.links.events) return;
  st.events.push_back(RecordEvent{ObjectKind::Workload, std::string(wl.namespace_name()), std::string(wl.name()),
                                  std::string(wl.uid()), warning, std::move(reason), std::move(message), st.shard});
  schedule_publish(self);  // sent with the status, at most once per status interval
}

/// An admission landed: Kueue's events and metrics.
void on_admitted(Self self, const core::AdmissionDecision& a, const ObjectPtr& wl, core::Time now) {
  auto& st = self->state;
  double wait = queued_wait_seconds(*wl, now);
  const std::string& cq = a.admission.cluster_queue;
  record_event(self, *wl, "QuotaReserved",
               fmt::format("Quota reserved in ClusterQueue {}, wait time since queued was {:.0f}s", cq, wait));
  if (a.admitted) {
    record_event(self, *wl, "Admitted",
                 fmt::format("Admitted by ClusterQueue {}, wait time since reservation was 0s", cq));
  }
  if (!st.links.metrics) return;
  auto e = workload_event(WorkloadMetricEvent::What::Admitted, *wl, cq);
  e.seconds = wait;
  e.cohort_ancestors = st.engine->cohort_ancestors(cq);
  e.admitted = a.admitted;
  if (a.admitted && !a.admission_checks.empty()) e.checks_wait_seconds = 0.0;
  report(self, std::move(e));
}

/// Every admission check turned Ready and Admitted=True landed: Kueue's Workload
/// controller's event and metrics (the quota was counted at the reservation).
void on_checks_admitted(Self self, const core::AdmissionCheckDecision& d, const ObjectPtr& wl, core::Time now) {
  auto& st = self->state;
  auto reserved = wl->condition("QuotaReserved");
  double since_reservation = reserved ? seconds_since(reserved->last_transition_time, now) : 0;
  record_event(self, *wl, "Admitted",
               fmt::format("Admitted by ClusterQueue {}, wait time since reservation was {:.0f}s", d.cluster_queue,
                           since_reservation));
  if (!st.links.metrics) return;
  auto e = workload_event(WorkloadMetricEvent::What::Admitted, *wl, d.cluster_queue);
  e.seconds = queued_wait_seconds(*wl, now);
  e.cohort_ancestors = st.engine->cohort_ancestors(d.cluster_queue);
  e.reserved = false;
  e.checks_wait_seconds = since_reservation;
  report(self, std::move(e));
}

/// An eviction landed: Kueue's events and metrics.
void on_evicted(Self self, const core::EvictionDecision& ev, const ObjectPtr& wl) {
  auto& st = self->state;
  if (!ev.preemption_reason.empty()) record_event(self, *wl, "Preempted", ev.message);
  if (ev.reason == "AdmissionCheck") record_event(self, *wl, "EvictedDueToAdmissionCheck", ev.message);
  if (!st.links.metrics) return;
  auto e = workload_event(WorkloadMetricEvent::What::Evicted, *wl, ev.cluster_queue);
  e.reason = ev.reason;
  // "DeactivatedDueToX" counts as Deactivated with underlying cause X.
  constexpr std::string_view kDeactivatedDueTo = "DeactivatedDueTo";
  if (e.reason.starts_with(kDeactivatedDueTo)) {
    e.underlying_cause = e.reason.substr(kDeactivatedDueTo.size());
    e.reason = "Deactivated";
  }
  if (!ev.preemption_reason.empty()) {
    e.preemption_reason = ev.preemption_reason;
    if (auto preemptor = st.engine->workload(ev.preemptor, false)) e.preempting_cluster_queue = preemptor->cluster_queue;
  }
  report(self, std::move(e));
}

void rewrite_pending(Self self, const std::string& key);
void write_eviction(Self self, core::EvictionDecision ev);
void write_check_decision(Self self, const core::AdmissionCheckDecision& d, core::Time now);
void mark_dirty(Self self);

/// What the tree keeps of a workload's version: read from its model, since the change's
/// object may be only the metadata (see messages::ObjectChanged).
CachedWorkload cached(const TreeObjectChange& c, const core::Workload& wl) {
  CachedWorkload w;
  w.packed = c.packed ? c.packed : pack(*c.object);  // a change made elsewhere, as in tests
  w.resource_version = std::string(c.object->resource_version());
  w.queue_name = wl.queue_name;
  w.priority = wl.priority.value_or(0);
  w.finished = wl.condition_true("Finished");
  w.holds_quota = !w.finished && wl.admission.has_value();
  return w;
}

/// A packed workload as a document again; null (logged) if that fails.
ObjectPtr unpacked(const TreeState& st, const std::string& key, const PackedPtr& packed) {
  auto object = packed->unpack();
  if (!object) {
    spdlog::error("tree {}: workload {}: {}", st.name, key, object.error().message);
    return nullptr;
  }
  return std::make_shared<const client_object>(std::move(*object));
}

/// The cached workload `key` as a document, for computing a write; null when unknown.
ObjectPtr unpacked(const TreeState& st, const std::string& key) {
  auto it = st.workloads.find(key);
  return it == st.workloads.end() ? nullptr : unpacked(st, key, it->second.packed);
}

/// The version a write was computed from, as its answer handler keeps it: packed, since
/// writes can wait for the API budget by the thousand (a decoded copy each was 38 MB of
/// the 300 MB heap at the large-scale perf shape's peak).
struct WrittenOn {
  PackedPtr packed;
  std::string resource_version;

  /// `object`, sharing the packed text of `cached` when that is the version `object` was
  /// unpacked from; packed now otherwise (null `cached`: a modified copy).
  WrittenOn(const ObjectPtr& object, const CachedWorkload* cached)
      : packed(cached != nullptr && cached->resource_version == object->resource_version() ? cached->packed
                                                                                            : pack(*object)),
        resource_version(object->resource_version()) {}
};

const CachedWorkload* cached_of(const TreeState& st, const std::string& key) {
  auto it = st.workloads.find(key);
  return it == st.workloads.end() ? nullptr : &it->second;
}

/// Whether the cached workload `key` holds quota as stored.
bool holds_quota(const TreeState& st, const std::string& key) {
  auto it = st.workloads.find(key);
  return it != st.workloads.end() && it->second.holds_quota;
}

/// The resourceVersion of the cached workload `key`; empty when unknown.
std::string_view cached_version(const TreeState& st, const std::string& key) {
  auto it = st.workloads.find(key);
  return it == st.workloads.end() ? std::string_view() : std::string_view(it->second.resource_version);
}

/// Applies one change to the engine.
void apply_change(Self self, const TreeObjectChange& c) {
  auto& st = self->state;
  core::Engine& e = *st.engine;
  if (c.removed) {
    switch (c.kind) {
      case ObjectKind::ResourceFlavor: e.remove_resource_flavor(c.key); break;
      case ObjectKind::ClusterQueue:
        e.remove_cluster_queue(c.key);
        st.cluster_queues.erase(c.key);
        retire_cq_actor(self, c.key);
        break;
      case ObjectKind::Cohort: e.remove_cohort(c.key); break;
      case ObjectKind::LocalQueue: {
        auto slash = c.key.find('/');
        e.remove_local_queue(c.key.substr(0, slash), c.key.substr(slash + 1));
        st.local_queues.erase(c.key);
        break;
      }
      case ObjectKind::WorkloadPriorityClass: e.remove_workload_priority_class(c.key); break;
      case ObjectKind::PriorityClass: e.remove_priority_class(c.key); break;
      case ObjectKind::Namespace: e.remove_namespace(c.key); break;
      case ObjectKind::AdmissionCheck: e.remove_admission_check(c.key); break;
      case ObjectKind::Workload:
        e.remove_workload(c.key);
        st.workloads.erase(c.key);
        st.writing_admissions.erase(c.key);
        st.recheck_pending.erase(c.key);
        st.recheck_evictions.erase(c.key);
        for (int what : {Unsettled::Admission, Unsettled::Eviction, Unsettled::Checks}) {
          st.unsettled.erase({c.key, what});
        }
        st.pacer.forget(c.key);
        break;
      case ObjectKind::Job:
      case ObjectKind::Event: break;
    }
    return;
  }
  std::visit(
      [&](const auto& model) {
        using T = std::decay_t<decltype(model)>;
        if constexpr (std::is_same_v<T, core::Workload>) {
          log_status(st, e.apply(model), "workload", c.key);
          if (!c.object) {  // the router could not unpack it (logged there): nothing to write from
            st.workloads.erase(c.key);
            return;
          }
          CachedWorkload now_known = cached(c, model);
          auto [known, added] = st.workloads.try_emplace(c.key);
          if (!added && !known->second.finished && now_known.finished) report_finished(self, model);
          known->second = std::move(now_known);
          if (st.recheck_pending.erase(c.key) != 0) rewrite_pending(self, c.key);
          if (auto r = st.recheck_evictions.find(c.key); r != st.recheck_evictions.end()) {
            core::EvictionDecision ev = std::move(r->second);
            st.recheck_evictions.erase(r);
            if (known->second.holds_quota) write_eviction(self, std::move(ev));
          }
        } else {
          // Every version is applied, our own status writes included: the engine's
          // re-evaluation of parked workloads on a queue change is also what gives the
          // members of a parked equivalence class their own pending explanation (the
          // engine explains only the member it evaluated).
          e.apply(model);
          if constexpr (std::is_same_v<T, core::ClusterQueue>) {
            st.cluster_queues[c.key] = c.object;
            ensure_cq_actor(self, c.key);
          }
          if constexpr (std::is_same_v<T, core::LocalQueue>) st.local_queues[c.key] = c.object;
        }
      },
      *c.model);
}

void schedule_publish(Self self) {
  auto& st = self->state;
  if (st.publish_scheduled) return;
  st.publish_scheduled = true;
  self->delayed_send(self, st.options.status_interval, PublishStatus{});
}

void mark_dirty(Self self) {
  auto& st = self->state;
  st.status_dirty = true;
  if (st.active) {
    if (!st.dirty_reported) self->send(st.links.scheduler, TreeDirty{st.name});
    st.dirty_reported = true;
  } else {
    schedule_publish(self);  // no rounds here: metrics and introspection still follow
  }
}


void carry_out(Self self, core::Decisions decisions);

/// After a batch of changes: a round only if the engine has work. Most versions a tree
/// applies are the echoes of its own status writes (workloads and queues), which leave the
/// engine nothing to do; a round for each was two scheduler messages and a cycle that
/// found no heads (38 % of the perf baseline's rounds).
void after_batch(Self self) {
  auto& st = self->state;
  if (!st.active || st.engine->has_work(now_of(st)) || st.engine->next_requeue_time() != st.reported_wake_at) {
    mark_dirty(self);
    return;
  }
  ++st.batches_without_round;
  // Explanations the engine decided on applying (a workload joining a parked class
  // takes the class's words) need no round: they are written now.
  if (core::Decisions explained = st.engine->take_decisions(); !explained.empty()) {
    carry_out(self, std::move(explained));
  }
  st.status_dirty = true;
  schedule_publish(self);
}

void split_key(const std::string& key, std::string& ns, std::string& name) {
  auto slash = key.find('/');
  ns = key.substr(0, slash);
  name = slash == std::string::npos ? std::string() : key.substr(slash + 1);
}

/// Writes one decision's status patch, conditional on the cached version it was computed
/// from; `on_done` gets the outcome. The intent says how it stands among the tree's other
/// writes (WriteIntent): an admission decided while the pending explanation of the same
/// version is on its way follows it rather than being refused for the version it replaces.
void write_workload_status(Self self, const std::string& key, json::value patch, WriteIntent intent,
                           std::function<void(const WriteOutcome&)> on_done) {
  auto& st = self->state;
  WriteRequest req;
  req.intent = intent;
  req.kind = ObjectKind::Workload;
  req.verb = WriteVerb::MergePatchStatus;
  split_key(key, req.ns, req.name);
  req.body = std::make_shared<const json::value>(std::move(patch));
  req.shard = st.shard;
  req.precondition_rv = std::string(cached_version(st, key));
  self->request(st.links.writer, caf::infinite, std::move(req))
      .then([on_done](WriteOutcome& outcome) { on_done(outcome); },
            [on_done, key](caf::error& err) {
              WriteOutcome failed;
              failed.message = "writer unreachable: " + caf::to_string(err);
              failed.maybe_landed = true;  // it may have been sent before the writer went
              on_done(failed);
            });
}

/// The workload as a pending decision of the same round leaves it (Requeued=True after a
/// queue restart): an admission in that round is written on top of it, in one write,
/// because a second merge patch of the conditions list would undo the first.
ObjectPtr with_requeued(const ObjectPtr& object, const core::PendingDecision* requeued, core::Time now) {
  if (requeued == nullptr) return object;
  core::PendingDecision only = *requeued;
  only.reason.clear();
  auto patch = kube::jobs::pending_patch(*object, only, now);
  if (!patch) return object;
  auto copy = std::make_shared<kube::client::Object>(*object);
  auto& root = copy->json().as_object();
  if (!root["status"].is_object()) root["status"] = json::object{};
  root["status"].as_object()["conditions"] = patch->at("status").at("conditions");
  return copy;
}

/// A pending explanation, conditional on the version it was computed from: the whole
/// conditions list is replaced, so written over a newer object (an admission that landed
/// meanwhile) it would undo that. Refused, it is recomputed on the newer object.
void write_pending_status(Self self, const std::string& key, json::value patch) {
  auto& st = self->state;
  std::string based_on(cached_version(st, key));
  st.pending_writes[key] = false;
  st.pacer.wrote(key, now_of(st));
  write_workload_status(self, key, std::move(patch), WriteIntent::PendingExplanation, [self, key, based_on](const WriteOutcome& o) {
    auto& s = self->state;
    bool newer_decided = false;
    if (auto w = s.pending_writes.find(key); w != s.pending_writes.end()) {
      newer_decided = w->second;
      s.pending_writes.erase(w);
    }
    const std::string_view current = cached_version(s, key);
    if (o.superseded_by_urgent) {
      // An admission or eviction of it went first. Landed, the version it brings says
      // whether this explanation still applies (at once if that version already arrived);
      // refused, no version follows from it: said again now, from the engine's view.
      const bool moved_on = !current.empty() && current != based_on;
      if (!o.superseding_write_landed || moved_on) {
        rewrite_pending(self, key);
      } else {
        s.recheck_pending.insert(key);
      }
      return;
    }
    if (o.ok) {
      if (!newer_decided) return;
      // A newer explanation waits: compute it on the version this write made, now if
      // that version already arrived, else when it does.
      const bool arrived = !current.empty() && o.object && current == o.object->resource_version();
      if (arrived) {
        rewrite_pending(self, key);
      } else {
        s.recheck_pending.insert(key);
      }
      return;
    }
    if (o.http_status != 409) {
      if (newer_decided) s.recheck_pending.insert(key);
      return;
    }
    // Refused: the object changed. If the newer version already arrived (before this
    // answer), nothing else will bring it: rewrite now, from the engine's current view.
    const bool newer_here = !current.empty() && current != based_on;
    if (newer_here) {
      rewrite_pending(self, key);
    } else {
      s.recheck_pending.insert(key);
    }
  });
}

/// The engine's current explanation of a pending workload, written if the object does
/// not show it (after a refused pending write).
void rewrite_pending(Self self, const std::string& key) {
  auto& st = self->state;
  if (st.writing_admissions.count(key) != 0 || st.workloads.count(key) == 0) return;
  if (holds_quota(st, key)) {
    st.recheck_pending.insert(key);
    return;
  }
  auto view = st.engine->workload(key, false);
  if (!view || view->reserved || view->finished || view->pending.reason.empty()) return;
  if (!st.pacer.may_write(key, now_of(st))) {  // rewritten from the engine's view when due
    schedule_publish(self);
    return;
  }
  ObjectPtr object = unpacked(st, key);
  if (!object) return;
  core::PendingDecision d;
  d.workload = key;
  d.reason = view->pending.reason;
  d.message = view->pending.message;
  auto patch = kube::jobs::pending_patch(*object, d, now_of(st));
  if (patch) write_pending_status(self, key, std::move(*patch));
}

/// An admission landed: its Events and metrics, from the version it was written on.
void admission_landed(Self self, const core::AdmissionDecision& a, const PackedPtr& written_on, core::Time now) {
  if (!written_on) return;
  if (ObjectPtr object = unpacked(self->state, a.workload, written_on)) on_admitted(self, a, object, now);
}

/// An admission known not to have landed: the quota the engine assumed is given back and
/// the workload competes again (Kueue's assume/forget); `hold` keeps it out of rounds
/// until a newer version of it is applied.
void roll_back_admission(Self self, const std::string& key, bool hold) {
  auto& st = self->state;
  ++st.rolled_back;
  (void)st.engine->forget_admission(key, hold);
  mark_dirty(self);
}

/// An admission check decision landed: Kueue's Event and metrics for it.
void check_decision_landed(Self self, const core::AdmissionCheckDecision& d, const ObjectPtr& written, core::Time now) {
  using Kind = core::AdmissionCheckDecision::Kind;
  if (d.kind == Kind::Admit) on_checks_admitted(self, d, written, now);
  if (d.kind == Kind::Deactivate) {
    record_event(self, *written, "AdmissionCheckRejected", "Deactivated due to " + d.message, true);
  }
}

/// An eviction refused (409) for the version `based_on`: written again on the newer
/// version, now if it arrived, else when it does, if the workload still holds quota.
void evict_on_newer_version(Self self, const core::EvictionDecision& ev, std::string_view based_on) {
  auto& st = self->state;
  const std::string_view current = cached_version(st, ev.workload);
  const bool newer_here = !current.empty() && current != based_on;
  if (newer_here) {
    if (holds_quota(st, ev.workload)) write_eviction(self, ev);
  } else {
    st.recheck_evictions[ev.workload] = ev;
  }
}

void send_read_back(Self self, const std::pair<std::string, int>& id);

/// Settles an unsettled write by reading its workload: at once for the first read of a
/// lost answer, later for a refusal or a failed read (read_back_delay).
void read_back(Self self, const std::string& key, Unsettled u) {
  auto& st = self->state;
  const std::pair<std::string, int> id{key, static_cast<int>(u.what)};
  const auto delay = read_back_delay(u.reads);
  st.unsettled.insert_or_assign(id, std::move(u));
  if (delay.count() == 0) {
    send_read_back(self, id);
  } else {
    self->delayed_send(self, delay, ReadBackDue{key, id.second});
  }
}

/// What the read says, carried out.
void settle(Self self, const std::string& key, const Unsettled& u, const ObjectPtr& read) {
  auto& st = self->state;
  switch (u.what) {
    case Unsettled::Admission: {
      st.writing_admissions.erase(key);
      const ReadVerdict v = judge_admission(*read, u.admission, u.based_on);
      if (v == ReadVerdict::Landed) {
        spdlog::info("tree {}: admission of {} landed (read back)", st.name, key);
        admission_landed(self, u.admission, u.written_on, u.decided_at);
        return;
      }
      // Overtaken: the newer version it read may not have arrived yet; until it does,
      // another attempt would be refused.
      const bool hold = v == ReadVerdict::Overtaken && cached_version(st, key) != read->resource_version();
      spdlog::info("tree {}: admission of {} did not land (read back at version {}); requeued", st.name, key,
                   read->resource_version());
      roll_back_admission(self, key, hold);
      return;
    }
    case Unsettled::Eviction: {
      const ReadVerdict v = judge_eviction(*read, u.based_on);
      if (v == ReadVerdict::Landed) {
        if (read->condition_true("Evicted")) on_evicted(self, u.eviction, read);
      } else if (v == ReadVerdict::NotLanded) {
        if (holds_quota(st, key)) write_eviction(self, u.eviction);
      } else {
        evict_on_newer_version(self, u.eviction, u.based_on);
      }
      return;
    }
    case Unsettled::Checks: {
      const ReadVerdict v = judge_by_version(*read, u.based_on);
      if (v == ReadVerdict::NotLanded) {
        write_check_decision(self, u.checks, now_of(st));
        return;
      }
      using Kind = core::AdmissionCheckDecision::Kind;
      const bool shows = (u.checks.kind == Kind::Admit && read->condition_true("Admitted")) ||
                         (u.checks.kind == Kind::Deactivate && read->condition_true("DeactivationTarget"));
      if (shows) check_decision_landed(self, u.checks, read, u.decided_at);
      return;
    }
  }
}

void on_read_back(Self self, const std::pair<std::string, int>& id, const WriteOutcome& o) {
  auto& st = self->state;
  auto it = st.unsettled.find(id);
  if (it == st.unsettled.end()) return;  // the workload went meanwhile
  Unsettled& u = it->second;
  u.reading = false;
  if (o.ok && o.object) {
    Unsettled done = std::move(u);
    st.unsettled.erase(it);
    settle(self, id.first, done, o.object);
    return;
  }
  if (o.http_status == 404) {
    // Gone: its DELETED event removes it; what the write would have held goes with it.
    const Unsettled done = std::move(u);
    st.unsettled.erase(it);
    if (done.what == Unsettled::Admission) {
      st.writing_admissions.erase(id.first);
      roll_back_admission(self, id.first, false);
    }
    return;
  }
  ++u.reads;
  spdlog::info("tree {}: reading {} back failed ({} {}); again in {} ms", st.name, id.first, o.http_status,
               o.reason.empty() ? o.message : o.reason, read_back_delay(u.reads).count());
  self->delayed_send(self, read_back_delay(u.reads), ReadBackDue{id.first, id.second});
}

void send_read_back(Self self, const std::pair<std::string, int>& id) {
  auto& st = self->state;
  auto it = st.unsettled.find(id);
  if (it == st.unsettled.end() || it->second.reading) return;
  it->second.reading = true;
  ++st.read_backs;
  WriteRequest req;
  req.kind = ObjectKind::Workload;
  req.verb = WriteVerb::Get;
  split_key(id.first, req.ns, req.name);
  req.intent = WriteIntent::Read;  // urgent: quota may be held until it is answered
  self->request(st.links.writer, caf::infinite, std::move(req))
      .then([self, id](WriteOutcome& o) { on_read_back(self, id, o); },
            [self, id](caf::error& err) {
              WriteOutcome failed;
              failed.message = "writer unreachable: " + caf::to_string(err);
              on_read_back(self, id, failed);
            });
}

/// Writes an eviction, conditional on the version its patch was computed from: the patch
/// replaces the whole conditions list, and computed from a version that predates the
/// workload's admission (still being written, or written but not yet seen on the watch)
/// it would drop QuotaReserved and Admitted while the admission stays. Refused, it is
/// computed again on the newer version.
void write_eviction(Self self, core::EvictionDecision ev) {
  auto& st = self->state;
  const std::string key = ev.workload;
  if (st.writing_admissions.count(key) != 0) {
    st.recheck_evictions[key] = std::move(ev);
    return;
  }
  ObjectPtr object = unpacked(st, key);
  if (!object) return;
  auto patch = kube::jobs::eviction_patch(*object, ev, now_of(st));
  if (!patch) return;
  WrittenOn on(object, cached_of(st, key));
  object.reset();
  write_workload_status(self, key, std::move(*patch), WriteIntent::Eviction, [self, key, ev, on](const WriteOutcome& o) {
    auto& s = self->state;
    if (o.ok) {
      if (ObjectPtr wl = unpacked(s, key, on.packed)) on_evicted(self, ev, wl);
      return;
    }
    if (o.superseded || o.http_status == 404 || o.reason == "NotOwner") return;
    if (o.http_status == 409) {
      evict_on_newer_version(self, ev, on.resource_version);
      return;
    }
    // No newer version will ask for it again: the workload is read back, and evicted on
    // what the read shows (at once for a lost answer, after a pause for a refusal).
    spdlog::info("tree {}: eviction of {} not settled ({} {}{}); reading it back", s.name, key, o.http_status,
                 o.reason.empty() ? o.message : o.reason, o.maybe_landed ? ", it may have landed" : "");
    Unsettled u;
    u.what = Unsettled::Eviction;
    u.based_on = on.resource_version;
    u.eviction = ev;
    u.reads = o.maybe_landed ? 0 : 1;
    read_back(self, key, std::move(u));
  });
}

/// Kueue's Workload controller on the admission checks of a workload holding quota: the
/// list synced, Admitted=True, or DeactivationTarget for a Rejected check. Conditional on
/// the version the patch is computed from; a refused write is not retried here, as the
/// newer version that refused it makes the engine ask again if it is still due.
void write_check_decision(Self self, const core::AdmissionCheckDecision& d, core::Time now) {
  auto& st = self->state;
  using Kind = core::AdmissionCheckDecision::Kind;
  // An admission being written says it all; its version brings the rest.
  if (st.writing_admissions.count(d.workload) != 0) return;
  if (!holds_quota(st, d.workload)) return;
  ObjectPtr object = unpacked(st, d.workload);
  if (!object) return;
  kube::jobs::StatusPatch patch;
  switch (d.kind) {
    case Kind::SyncChecks: patch = kube::jobs::admission_checks_patch(*object, d.checks, now); break;
    case Kind::Admit: patch = kube::jobs::admitted_patch(*object, now); break;
    case Kind::Deactivate: patch = kube::jobs::deactivation_target_patch(*object, d.message, now); break;
  }
  if (!patch) return;
  WrittenOn on(object, cached_of(st, d.workload));
  object.reset();
  write_workload_status(self, d.workload, std::move(*patch), WriteIntent::CheckDecision, [self, d, on, now](const WriteOutcome& o) {
    if (!o.ok) {
      if (o.superseded || o.http_status == 409 || o.http_status == 404 || o.reason == "NotOwner") return;
      // A newer version makes the engine ask again; none may come: read it back.
      spdlog::info("tree {}: admission checks of {} not settled ({} {}); reading it back", self->state.name,
                   d.workload, o.http_status, o.reason.empty() ? o.message : o.reason);
      Unsettled u;
      u.what = Unsettled::Checks;
      u.based_on = on.resource_version;
      u.checks = d;
      u.decided_at = now;
      u.reads = o.maybe_landed ? 0 : 1;
      read_back(self, d.workload, std::move(u));
      return;
    }
    if (ObjectPtr written = unpacked(self->state, d.workload, on.packed)) check_decision_landed(self, d, written, now);
  });
}

void carry_out(Self self, core::Decisions decisions) {
  auto& st = self->state;
  core::Time now = now_of(st);
  std::map<std::string, const core::PendingDecision*, std::less<>> requeued;
  for (const auto& p : decisions.pending) {
    if (!p.requeued_reason.empty()) requeued[p.workload] = &p;
  }
  std::set<std::string, std::less<>> admitted_now;
  for (auto& a : decisions.admissions) {
    ObjectPtr current = unpacked(st, a.workload);
    if (!current) continue;
    admitted_now.insert(a.workload);
    auto r = requeued.find(a.workload);
    ObjectPtr base = with_requeued(current, r == requeued.end() ? nullptr : r->second, now);
    auto patch = kube::jobs::admission_patch(*base, a, now);
    if (!patch) continue;  // the object already records exactly this admission
    st.writing_admissions.insert(a.workload);
    std::string key = a.workload;
    // A base with the Requeued condition added is not the cached version: packed apart.
    WrittenOn on(base, base == current ? cached_of(st, key) : nullptr);
    base.reset();
    current.reset();
    write_workload_status(self, key, std::move(*patch), WriteIntent::Admission, [self, key, a, on, now](const WriteOutcome& o) {
      auto& s = self->state;
      if (o.maybe_landed) {
        // It may have landed: giving its quota to another workload now could admit both.
        spdlog::info("tree {}: admission of {}: no answer ({} {}); its quota stays held until a read says whether "
                     "it landed",
                     s.name, key, o.http_status, o.reason.empty() ? o.message : o.reason);
        Unsettled u;
        u.what = Unsettled::Admission;
        u.based_on = on.resource_version;
        u.admission = a;
        u.decided_at = now;
        u.written_on = on.packed;
        read_back(self, key, std::move(u));
        return;  // still being written: explanations and evictions of it wait
      }
      s.writing_admissions.erase(key);
      if (o.ok) {
        admission_landed(self, a, on.packed, now);
        return;
      }
      // A conflict on the very version this decision saw means a newer object is on
      // its way: until it is applied, another attempt would be refused the same way, as
      // fast as the API server answers.
      const bool stale = o.http_status == 409 && cached_version(s, key) == on.resource_version;
      if (o.reason == "NotOwner") {
        // The shard is going away: the next round belongs to whoever holds it next (and
        // here, to the ownership change that brings it back).
        spdlog::debug("tree {}: admission of {} not written: {}", s.name, key, o.message);
        ++s.rolled_back;
        (void)s.engine->forget_admission(key, false);
        return;
      }
      spdlog::info("tree {}: admission of {} not written ({} {}); requeued{}", s.name, key, o.http_status,
                   o.reason.empty() ? o.message : o.reason, stale ? " once its newer version arrives" : "");
      roll_back_admission(self, key, stale);
    });
  }
  for (auto& ev : decisions.evictions) write_eviction(self, std::move(ev));
  // The same workload reviewed twice in a round (two versions applied) asks twice: the
  // latest decision of each kind is the one carried out.
  std::map<std::pair<std::string, int>, const core::AdmissionCheckDecision*> checks;
  for (const auto& c : decisions.checks) checks[{c.workload, static_cast<int>(c.kind)}] = &c;
  for (const auto& [key, c] : checks) {
    if (admitted_now.count(c->workload) == 0) write_check_decision(self, *c, now);
  }
  // A round runs many cycles: a workload told "no longer fits after processing another
  // workload" in one is told how much quota it needs in the next. Only its last words of
  // the round are written (a Requeued condition still goes out with the words it came with).
  std::unordered_map<std::string_view, std::size_t> last_words;
  for (std::size_t i = 0; i < decisions.pending.size(); ++i) last_words[decisions.pending[i].workload] = i;
  for (std::size_t i = 0; i < decisions.pending.size(); ++i) {
    auto& p = decisions.pending[i];
    if (p.requeued_reason.empty() && last_words[p.workload] != i) continue;
    // Admitted in this same round, or an admission of it is being written: that write
    // says everything, and a pending write would only invalidate its resourceVersion.
    if (admitted_now.count(p.workload) != 0 || st.writing_admissions.count(p.workload) != 0) continue;
    // Still holding quota as stored (an eviction not yet written or not yet completed):
    // a pending explanation now would mark it QuotaReserved=False beside its admission.
    if (st.workloads.count(p.workload) == 0) continue;
    if (holds_quota(st, p.workload)) {  // written once a version without the admission arrives
      st.recheck_pending.insert(p.workload);
      continue;
    }
    // A Requeued condition (a restarted queue) is not part of the engine's view that a
    // deferred rewrite starts from: those go out at once (rare).
    if (auto w = st.pending_writes.find(p.workload); w != st.pending_writes.end() && p.requeued_reason.empty()) {
      w->second = true;  // written from the engine's view once the outstanding one settled
      continue;
    }
    // Words that change again within the interval are written once, when it ends.
    if (p.requeued_reason.empty() && !st.pacer.may_write(p.workload, now)) {
      schedule_publish(self);
      continue;
    }
    ObjectPtr object = unpacked(st, p.workload);
    if (!object) continue;
    auto patch = kube::jobs::pending_patch(*object, p, now);
    if (!patch) continue;
    write_pending_status(self, p.workload, std::move(*patch));
  }
}

void run_round(Self self, core::Time now) {
  auto& st = self->state;
  auto started = std::chrono::steady_clock::now();
  st.dirty_reported = false;  // what changes from here on needs another round
  RoundDone done;
  done.tree = st.name;
  if (!st.active) {  // another replica holds the shard: it decides
    self->send(st.links.scheduler, done);
    return;
  }
  std::size_t idle = 0;
  bool more = false;
  // Rounds run Kueue's cycles back to back in memory until nothing changes: everything
  // that fits is admitted in one round instead of one workload per queue per cycle.
  AdmissionAttempts attempts;
  while (true) {
    auto cycle_started = std::chrono::steady_clock::now();
    core::CycleSummary s = st.engine->run_cycle(now);
    if (s.heads > 0) {
      attempts.cycles.push_back(
          {s.admitted > 0, std::chrono::duration<double>(std::chrono::steady_clock::now() - cycle_started).count()});
    }
    ++done.cycles;
    done.admitted += s.admitted;
    done.preempted += s.preempted;
    if (s.heads == 0) break;
    if (s.changed) {
      idle = 0;
    } else if (!s.untried_flavors) {
      // The next cycle would repeat this one (same state, same time): heads waiting for
      // their preemptions to complete, say. Spinning here was 99.6% of all admission
      // attempts on the perf baseline; the event that changes things starts a new round.
      break;
    } else if (++idle >= 34) {  // fungibility can need a few idle cycles to try every flavor
      break;
    }
    if (done.cycles >= st.options.max_cycles_per_round) {
      more = true;
      break;
    }
  }
  carry_out(self, st.engine->take_decisions());
  if (st.links.metrics && !attempts.cycles.empty()) {
    auto& cycles = st.reports.attempts.cycles;
    cycles.insert(cycles.end(), attempts.cycles.begin(), attempts.cycles.end());
    schedule_publish(self);  // sent with the status, at most once per status interval
  }
  ++st.rounds;
  st.admitted += done.admitted;
  st.preempted += done.preempted;
  done.duration_us =
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started).count();
  st.last_round_us = done.duration_us;
  done.wake_at = st.engine->next_requeue_time();
  st.reported_wake_at = done.wake_at;
  self->send(st.links.scheduler, done);
  if (more && !st.dirty_reported) {
    self->send(st.links.scheduler, TreeDirty{st.name});
    st.dirty_reported = true;
  }
  if (done.admitted > 0 || done.preempted > 0) st.status_dirty = true;
  schedule_publish(self);
}

/// Per ClusterQueue, per LocalQueue key (ns/name).
using LocalQueueCountsByCq = std::map<std::string, std::map<std::string, LocalQueueCounts>, std::less<>>;

ClusterQueueSnapshot snapshot_of(const TreeState& st, const std::string& cq, const LocalQueueCountsByCq& lq_counts) {
  ClusterQueueSnapshot snap;
  if (auto view = st.engine->cluster_queue(cq)) snap.view = std::move(*view);
  snap.view.name = cq;
  auto lqs = lq_counts.find(cq);
  if (lqs != lq_counts.end()) {
    for (const auto& [key, counts] : lqs->second) {
      snap.local_queues.push_back(counts);
      snap.finished += counts.counts.finished;
    }
  }
  snap.pending_reasons = st.engine->pending_reasons(cq);
  auto ancestors = st.engine->cohort_ancestors(cq);
  if (!ancestors.empty()) snap.root_cohort = ancestors.back();
  auto obj = st.cluster_queues.find(cq);
  if (obj != st.cluster_queues.end() && obj->second) {
    snap.object = obj->second;
    snap.generation = obj->second->generation();
  }
  snap.write_status = st.active;
  snap.shard = st.shard;
  return snap;
}


/// Every LocalQueue of the tree's ClusterQueues, with the counts and usage of its
/// workloads (LocalQueues without workloads report zeros), from one pass over the
/// engine's records: this runs at every status publish, over every workload of the tree.
LocalQueueCountsByCq local_queue_counts(const TreeState& st) {
  LocalQueueCountsByCq out;
  std::string lq_key;  // reused: most lookups find an existing entry and allocate nothing
  // Entries met before, by "cq/ns/name": one hash lookup per workload instead of two
  // ordered-map searches by string (a tree of 100 queues and 5,000 workloads publishes
  // every second). Pointers into `out` stay valid: std::map never moves its nodes.
  std::unordered_map<std::string, LocalQueueCounts*> seen;
  std::string seen_key;
  auto find_or_add = [&out, &lq_key](std::string_view cq, std::string_view ns, std::string_view name) -> LocalQueueCounts& {
    auto cq_it = out.find(cq);
    if (cq_it == out.end()) cq_it = out.emplace(std::string(cq), std::map<std::string, LocalQueueCounts>{}).first;
    auto& by_lq = cq_it->second;
    lq_key.assign(ns).append("/").append(name);
    auto it = by_lq.find(lq_key);
    if (it == by_lq.end()) {
      it = by_lq.emplace(lq_key, LocalQueueCounts{}).first;
      it->second.ns = std::string(ns);
      it->second.name = std::string(name);
    }
    return it->second;
  };
  auto entry = [&](std::string_view cq, std::string_view ns, std::string_view name) -> LocalQueueCounts& {
    seen_key.assign(cq).append("/").append(ns).append("/").append(name);
    auto it = seen.find(seen_key);
    if (it != seen.end()) return *it->second;
    LocalQueueCounts& counts = find_or_add(cq, ns, name);
    seen.emplace(seen_key, &counts);
    return counts;
  };
  for (const auto& [key, lq] : st.local_queues) {
    if (!lq) continue;
    entry(lq->string_at({"spec", "clusterQueue"}), lq->namespace_name(), lq->name()).object = lq;
  }
  // Whether a queue named by finished workloads is one of the tree's (the views point
  // into the engine's records, which outlive the walk).
  std::unordered_map<std::string_view, bool> known_queue;
  auto is_known = [&](std::string_view cq) {
    auto [it, added] = known_queue.try_emplace(cq, false);
    if (added) it->second = st.cluster_queues.find(cq) != st.cluster_queues.end();
    return it->second;
  };
  st.engine->for_each_finished_tally([&](const core::FinishedTally& f) {
    // Kueue's finished gauges count them in the queue that admitted them.
    if (!f.cluster_queue.empty() && is_known(f.cluster_queue)) {
      entry(f.cluster_queue, f.ns, f.local_queue).counts.finished += static_cast<std::int64_t>(f.count);
    }
  });
  st.engine->for_each_local_queue_tally([&](const core::LocalQueueTally& t) {
    core::add_tally(entry(t.cluster_queue, t.ns, t.local_queue).counts, t);
  });
  return out;
}

/// Explanations deferred by the pacer whose time has come, from the engine's view now.
/// They ride on the status publish timer rather than on rounds: a round woken only for
/// them would decide nothing and slow the tree's next real round (the scheduler backs
/// off after idle rounds).
void write_due_explanations(Self self) {
  auto& st = self->state;
  if (!st.active) return;  // another replica writes this tree
  for (const std::string& key : st.pacer.take_due(now_of(st))) rewrite_pending(self, key);
  if (st.pacer.deferred() > 0) schedule_publish(self);
}

void publish(Self self) {
  auto& st = self->state;
  st.publish_scheduled = false;
  flush_reports(self);
  write_due_explanations(self);
  if (!st.status_dirty) return;
  st.status_dirty = false;
  auto lq_counts = local_queue_counts(st);
  for (const auto& [cq, actor] : st.cq_actors) {
    self->send(actor, snapshot_of(st, cq, lq_counts));
  }
}

std::string introspection_summary(const TreeState& st) {
  json::object o;
  o["clusterQueues"] = st.cq_actors.size();
  o["workloads"] = st.workloads.size();
  o["rounds"] = st.rounds;
  o["admitted"] = st.admitted;
  o["preempted"] = st.preempted;
  o["rolledBack"] = st.rolled_back;
  o["admissionWritesInFlight"] = st.writing_admissions.size();
  o["unsettledWrites"] = st.unsettled.size();
  o["readBacks"] = st.read_backs;
  o["lastRoundMicros"] = st.last_round_us;
  o["batchesWithoutRound"] = st.batches_without_round;
  o["classWalks"] = st.engine->class_walks();
  o["classMembersWalked"] = st.engine->class_members_walked();
  return json::dump(o);
}

}  // namespace

messages::cohort_tree_actor spawn_cohort_tree(caf::actor_system& system, std::string tree, CohortTreeOptions options,
                                              CohortTreeLinks links) {
  return system.spawn([tree, options, links](Self self) -> cohort_tree_actor::behavior_type {
    auto& init = self->state;
    init.name = tree;
    init.options = options;
    init.links = links;
    init.engine = std::make_unique<core::Engine>(options.engine);
    init.pacer = ExplanationPacer(options.explanation_interval);
    self->send(links.introspection, ActorRegistered{"cohort-tree", tree, self->address(),
                                                    caf::actor_cast<caf::strong_actor_ptr>(self)});
    self->send(links.scheduler, TreeRegistered{tree, caf::actor_cast<cohort_tree_actor>(self)});
    return {
        [self](TreeBatch& batch) {
          ++self->state.handled;
          for (const auto& change : batch.changes) apply_change(self, change);
          after_batch(self);
        },
        [self](TreeOwnership& ownership) {
          auto& st = self->state;
          ++st.handled;
          const bool gained = ownership.active && !st.active;
          if (st.active != ownership.active) {
            spdlog::info("tree {}: {} (shard {})", st.name, ownership.active ? "acting on it" : "another replica acts on it",
                         ownership.shard ? std::to_string(*ownership.shard) : "-");
          }
          st.active = ownership.active;
          st.shard = ownership.shard;
          st.dirty_reported = false;
          st.status_dirty = true;
          schedule_publish(self);
          if (gained) mark_dirty(self);
        },
        [self](RunRound& round) {
          ++self->state.handled;
          run_round(self, round.now);
        },
        [self](PublishStatus) {
          ++self->state.handled;
          publish(self);
        },
        [self](ReadBackDue& due) {
          ++self->state.handled;
          send_read_back(self, {due.key, due.what});
        },
        [self](Explain& q) -> ExplainReply {
          ++self->state.handled;
          return explain(*self->state.engine, q, self->state.name);
        },
        [self](IntrospectActor) -> ActorInfo {
          auto& st = self->state;
          return ActorInfo{"cohort-tree", st.name, self->mailbox().size(), st.handled, introspection_summary(st)};
        },
    };
  });
}

}  // namespace kueuepp::actors
