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
#include "actors/tree_writes.hpp"
#include "actors/visibility_page.hpp"
#include "actors/runtime_averages.hpp"
#include "actors/what_if_request.hpp"
#include "core/engine/engine.hpp"

namespace kueuepp::actors {

using namespace messages;

namespace {

struct TreeState {
  std::string name;
  CohortTreeOptions options;
  CohortTreeLinks links;
  std::unique_ptr<core::Engine> engine;
  std::map<std::string, ObjectPtr, std::less<>> cluster_queues;
  std::map<std::string, ObjectPtr> local_queues;  ///< ns/name -> object
  std::map<std::string, cluster_queue_actor> cq_actors;
  /// The write path: decisions into writes, their outcomes into what the engine forgets.
  std::unique_ptr<TreeWrites> writes;
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
  /// status (a message per report and per Event was a large share of the controller's CAF
  /// messages; metrics and Events lag by at most one status interval).
  MetricReports reports;
  std::vector<RecordEvent> events;
  std::uint64_t handled = 0;
  std::uint64_t rounds = 0;
  std::uint64_t admitted = 0;
  std::uint64_t preempted = 0;
  std::int64_t last_round_us = 0;
  /// How long each ClusterQueue's workloads ran, for what-if start estimates.
  RuntimeAverages runtimes;
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

void carry(Self self, WriteEffects fx);

/// What the tree keeps of a workload's version: read from its model, since the change's
/// object may be only the metadata (see messages::ObjectChanged).
CachedWorkload cached(const TreeObjectChange& c, const core::Workload& wl) {
  CachedWorkload w;
  w.packed = c.object.packed_text();
  w.resource_version = std::string(c.object->resource_version());
  w.finished = wl.condition_true("Finished");
  w.holds_quota = !w.finished && wl.admission.has_value();
  w.evicted = wl.condition_true("Evicted");
  return w;
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
        st.writes->forget(c.key);
        break;
      default: break;  // not routed_to_trees: the router sends none
    }
    return;
  }
  std::visit(
      [&](const auto& model) {
        using T = std::decay_t<decltype(model)>;
        if constexpr (std::is_same_v<T, core::Workload>) {
          log_status(st, e.apply(model), "workload", c.key);
          if (!c.object) {  // the router could not unpack it (logged there): nothing to write from
            st.writes->forget(c.key);
            return;
          }
          CachedWorkload now_known = cached(c, model);
          const CachedWorkload* before = st.writes->cached(c.key);
          if (before != nullptr && !before->finished && now_known.finished) {
            report_finished(self, model);
            if (auto ran = runtime_of(model); ran && model.admission) st.runtimes.record(model.admission->cluster_queue, *ran);
          }
          carry(self, st.writes->on_version(c.key, std::move(now_known), now_of(st)));
        } else {
          // Every version is applied, our own status writes included: the engine's
          // re-evaluation of parked workloads on a queue change is also what gives the
          // members of a parked equivalence class their own pending explanation (the
          // engine explains only the member it evaluated).
          e.apply(model);
          if constexpr (std::is_same_v<T, core::ClusterQueue>) {
            st.cluster_queues[c.key] = c.object.decoded();
            ensure_cq_actor(self, c.key);
          }
          if constexpr (std::is_same_v<T, core::LocalQueue>) st.local_queues[c.key] = c.object.decoded();
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
/// engine nothing to do; a round for each would be two scheduler messages and a cycle that
/// finds no heads.
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

/// Settles one write's outcome in the write path, and carries out what follows.
void settle_write(Self self, std::uint64_t ticket, const WriteOutcome& outcome) {
  auto& st = self->state;
  carry(self, st.writes->on_outcome(ticket, outcome, now_of(st)));
}

void send_write(Self self, PlannedWrite w) {
  auto& st = self->state;
  if (w.request.verb != WriteVerb::Get) w.request.shard = st.shard;  // a read needs no fence
  const std::uint64_t ticket = w.ticket;
  self->request(st.links.writer, caf::infinite, std::move(w.request))
      .then([self, ticket](WriteOutcome& outcome) { settle_write(self, ticket, outcome); },
            [self, ticket](caf::error& err) {
              WriteOutcome failed;
              failed.message = "writer unreachable: " + caf::to_string(err);
              failed.maybe_landed = true;  // it may have been sent before the writer went
              settle_write(self, ticket, failed);
            });
}

/// A write landed: Kueue's Events and metrics for it.
void report_landed(Self self, const Landed& landed) {
  using Kind = core::AdmissionCheckDecision::Kind;
  std::visit(
      [&](const auto& d) {
        using D = std::decay_t<decltype(d)>;
        if constexpr (std::is_same_v<D, core::AdmissionDecision>) on_admitted(self, d, landed.object, landed.decided_at);
        if constexpr (std::is_same_v<D, core::EvictionDecision>) on_evicted(self, d, landed.object);
        if constexpr (std::is_same_v<D, core::AdmissionCheckDecision>) {
          if (d.kind == Kind::Admit) on_checks_admitted(self, d, landed.object, landed.decided_at);
          if (d.kind == Kind::Deactivate) {
            record_event(self, *landed.object, "AdmissionCheckRejected", "Deactivated due to " + d.message, true);
          }
        }
      },
      landed.decision);
}

/// Carries out what the write path asks: its writes and reads sent, what landed
/// reported, a round asked for when quota came free.
/// A pending explanation about to be written becomes a note in the workload's history
/// (the web view's workload page), so earlier reasons stay visible after the condition
/// changes.
void note_explanation(Self self, const WriteRequest& r) {
  auto& st = self->state;
  if (r.intent != WriteIntent::PendingExplanation || !r.body || !st.links.events) return;
  const json::value* conditions = json::find_path(*r.body, {"status", "conditions"});
  if (conditions == nullptr || !conditions->is_array()) return;
  for (const auto& c : conditions->as_array()) {
    if (json::get_string(c, "type") != "QuotaReserved" || json::get_string(c, "status") != "False") continue;
    RecordEvent e{ObjectKind::Workload, r.ns, r.name, "", false, "Pending",
                  std::string(json::get_string(c, "reason")) + ": " + std::string(json::get_string(c, "message")),
                  st.shard};
    e.history_only = true;
    st.events.push_back(std::move(e));
    schedule_publish(self);
  }
}

void carry(Self self, WriteEffects fx) {
  for (const auto& w : fx.writes) note_explanation(self, w.request);
  for (auto& w : fx.writes) send_write(self, std::move(w));
  for (auto& r : fx.delayed_reads) self->delayed_send(self, r.after, ReadBackDue{std::move(r.key), r.what});
  for (const auto& l : fx.landed) report_landed(self, l);
  if (fx.dirty) mark_dirty(self);
  if (fx.publish) schedule_publish(self);
}

void carry_out(Self self, core::Decisions decisions) {
  auto& st = self->state;
  carry(self, st.writes->plan(std::move(decisions), now_of(st)));
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
      // their preemptions to complete, say. Spinning here would be nearly every admission
      // attempt of a deep queue; the event that changes things starts a new round.
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
  snap.cohort_path = std::move(ancestors);
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
  carry(self, st.writes->due_explanations(now_of(st)));
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
  o["workloads"] = st.writes->cached_count();
  o["rounds"] = st.rounds;
  o["admitted"] = st.admitted;
  o["preempted"] = st.preempted;
  o["rolledBack"] = st.writes->rolled_back();
  o["admissionWritesInFlight"] = st.writes->admissions_in_flight();
  o["unsettledWrites"] = st.writes->unsettled();
  o["admissionsHeldForPreemptions"] = st.writes->admissions_held();
  o["readBacks"] = st.writes->read_backs();
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
    init.writes = std::make_unique<TreeWrites>(*init.engine, tree, options.explanation_interval);
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
          carry(self, self->state.writes->read_due(due.key, due.what));
        },
        [self](Explain& q) -> ExplainReply {
          ++self->state.handled;
          std::string_view text;
          if (q.what == Explain::What::Workload) {
            const CachedWorkload* cached = self->state.writes->cached(q.key);
            if (cached != nullptr && cached->packed) text = cached->packed->text();
          }
          return explain(*self->state.engine, q, self->state.name, text);
        },
        [self](PendingWorkloadsCall& call) {
          ++self->state.handled;
          const TreeWrites& writes = *self->state.writes;
          call.done(visibility_page(*self->state.engine, call.query, [&writes](std::string_view key) {
            const CachedWorkload* cached = writes.cached(key);
            return cached != nullptr && cached->packed ? cached->packed->text() : std::string_view{};
          }));
        },
        [self](WhatIfCall& call) {
          ++self->state.handled;
          const TreeWrites& writes = *self->state.writes;
          const auto started = std::chrono::steady_clock::now();
          auto hints = runtime_hints([&writes](std::string_view key) {
            const CachedWorkload* cached = writes.cached(key);
            return cached != nullptr && cached->packed ? cached->packed->text() : std::string_view{};
          });
          hints.average_runtime = self->state.runtimes.averages();
          auto result = answer_what_if(*self->state.engine, call.query, now_of(self->state), hints);
          spdlog::debug("tree {}: what-if on {}/{} answered in {} us", self->state.name, call.query.ns,
                        call.query.local_queue,
                        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started)
                            .count());
          call.done(std::move(result));
        },
        [self](IntrospectActor) -> ActorInfo {
          auto& st = self->state;
          return ActorInfo{"cohort-tree", st.name, self->mailbox().size(), st.handled, introspection_summary(st)};
        },
    };
  });
}

}  // namespace kueuepp::actors
