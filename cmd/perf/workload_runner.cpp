#include "cmd/perf/workload_runner.hpp"

#include <spdlog/spdlog.h>

#include <charconv>
#include <chrono>
#include <mutex>
#include <unordered_map>

#include "cmd/perf/api_gate.hpp"
#include "cmd/perf/object_builders.hpp"
#include "core/model/time.hpp"
#include "core/quantity.hpp"
#include "kube/client/client.hpp"
#include "kube/client/informer.hpp"
#include "kube/jobs/workload_status.hpp"

namespace kueuepp::cmd::perf {

using kube::client::Object;

namespace {

std::optional<std::uint64_t> parse_rv(std::string_view rv) {
  std::uint64_t out = 0;
  auto [end, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), out);
  if (ec != std::errc() || end != rv.data() + rv.size() || rv.empty()) return std::nullopt;
  return out;
}

std::int64_t milli_of(const json::value* v) {
  if (v == nullptr) return 0;
  std::string text;
  if (v->is_string()) {
    text = std::string(v->get_string());
  } else if (v->is_number()) {
    text = json::dump(*v);
  } else {
    return 0;
  }
  auto q = core::Quantity::parse(text);
  return q ? q->milli() : 0;
}

/// Sum of `field` of every `cpu` entry of `<list>[].resources[]`.
std::int64_t cpu_sum(const json::value* flavors, std::string_view field) {
  std::int64_t total = 0;
  if (flavors == nullptr || !flavors->is_array()) return 0;
  for (const json::value& f : flavors->get_array()) {
    const json::value* res = json::find(f, "resources");
    if (res == nullptr || !res->is_array()) continue;
    for (const json::value& r : res->get_array()) {
      if (json::get_string(r, "name") == "cpu") total += milli_of(json::find(r, field));
    }
  }
  return total;
}

core::Time wall_now() {
  return std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now());
}

}  // namespace

std::int64_t running_time_ms(const Object& workload) {
  auto label = workload.label(kRunningTimeLabel);
  if (!label) return 0;
  std::int64_t ms = 0;
  auto [end, ec] = std::from_chars(label->data(), label->data() + label->size(), ms);
  if (ec != std::errc() || end != label->data() + label->size() || ms < 0) return 0;
  return ms;
}

std::optional<std::string> owning_jobset(const Object& wl) {
  const json::value* refs = wl.find({"metadata", "ownerReferences"});
  if (refs == nullptr || !refs->is_array()) return std::nullopt;
  for (const json::value& ref : refs->get_array()) {
    if (json::get_string(ref, "kind") == "JobSet" && json::get_string(ref, "apiVersion").starts_with("jobset.x-k8s.io/")) {
      return std::string(json::get_string(ref, "name"));
    }
  }
  return std::nullopt;
}

RunnerAction decide(const Object& wl, std::optional<Millis> admitted_at, Millis now) {
  if (wl.condition_true("Finished")) return {};
  const bool jobset = owning_jobset(wl).has_value();
  if (wl.condition_true("Evicted")) {
    if (wl.condition_true("QuotaReserved") && !jobset) return {RunnerAction::Kind::CompleteEviction, now};
    return {};
  }
  if (!wl.condition_true("Admitted")) return {};
  Millis due = admitted_at.value_or(now) + running_time_ms(wl);
  if (now >= due) return {jobset ? RunnerAction::Kind::CompleteJobSet : RunnerAction::Kind::Finish, now};
  return {RunnerAction::Kind::FinishLater, due};
}

ClusterQueueObservation observe_cluster_queue(const Object& cq, Millis at) {
  ClusterQueueObservation o;
  o.at = at;
  o.name = std::string(cq.name());
  o.class_name = std::string(cq.label(kClassLabel).value_or(""));
  o.cpu_usage_milli = cpu_sum(cq.find({"status", "flavorsUsage"}), "total");
  if (const json::value* groups = cq.find({"spec", "resourceGroups"}); groups && groups->is_array()) {
    for (const json::value& g : groups->get_array()) o.cpu_nominal_milli += cpu_sum(json::find(g, "flavors"), "nominalQuota");
  }
  o.pending = cq.int_at({"status", "pendingWorkloads"}).value_or(0);
  o.reserving = cq.int_at({"status", "reservingWorkloads"}).value_or(0);
  o.admitted = cq.int_at({"status", "admittedWorkloads"}).value_or(0);
  o.active = cq.condition_true("Active");
  return o;
}

WorkloadObservation observe_workload(const Object& wl, Millis at) {
  WorkloadObservation o;
  o.at = at;
  o.uid = std::string(wl.uid());
  o.ns = std::string(wl.namespace_name());
  o.name = std::string(wl.name());
  o.class_name = std::string(wl.label(kClassLabel).value_or(""));
  o.admitted = wl.condition_true("Admitted");
  o.evicted = wl.condition_true("Evicted");
  o.finished = wl.condition_true("Finished");
  return o;
}

namespace {

/// The runner's state for one Workload not yet Finished.
struct Tracked {
  /// The newest state while it holds (or held) a reservation; what writes are based on.
  std::optional<Object> latest;
  std::optional<std::uint64_t> rv;
  std::optional<Millis> admitted_at;
  bool in_flight = false;
  bool dirty = false;
  /// A write based on this version was refused: wait for a newer one.
  std::optional<std::uint64_t> conflicted_rv;
  bool timer_armed = false;
  Millis timer_at = 0;
  /// Its JobSet was marked Completed: the controller finishes the Workload.
  bool jobset_completed = false;
};

enum class WriteKind { Finish, Eviction };

}  // namespace

struct WorkloadRunner::State : std::enable_shared_from_this<WorkloadRunner::State> {
  State(kube::client::Client& c, Clock clk, std::size_t max_in_flight)
      : client(c), clock(std::move(clk)), gate(max_in_flight) {}

  kube::client::Client& client;
  Clock clock;
  ApiGate gate;

  mutable std::mutex mu;
  Recorder rec;
  std::unordered_map<std::string, Tracked> tracked;  // by uid
  std::shared_ptr<kube::client::Informer> workload_informer;
  std::shared_ptr<kube::client::Informer> queue_informer;
  bool workloads_synced = false;
  bool queues_synced = false;
  bool stopped = false;
  std::int64_t expected = -1;
  RunnerProgress counters;

  using Deferred = std::vector<std::function<void()>>;

  void run_deferred(Deferred& deferred) {
    for (auto& fn : deferred) fn();
    deferred.clear();
  }

  void check_completion(Millis now) {
    if (expected < 0 || rec.finished() < expected) return;
    if (!counters.all_finished_at) counters.all_finished_at = now;
    if (!counters.completed_at && rec.queues_idle()) counters.completed_at = now;
  }

  void on_workload_event(kube::client::InformerEvent ev) {
    Deferred deferred;
    {
      std::lock_guard lock(mu);
      if (stopped) return;
      Millis now = clock();
      switch (ev.type) {
        case kube::client::InformerEvent::Type::Relisted:
          for (const Object& o : ev.items) handle(o, now, deferred);
          workloads_synced = true;
          break;
        case kube::client::InformerEvent::Type::Added:
        case kube::client::InformerEvent::Type::Modified:
          handle(ev.object, now, deferred);
          break;
        case kube::client::InformerEvent::Type::Deleted:
          tracked.erase(std::string(ev.object.uid()));
          break;
      }
      check_completion(now);
    }
    run_deferred(deferred);
  }

  void on_queue_event(kube::client::InformerEvent ev) {
    std::lock_guard lock(mu);
    if (stopped) return;
    Millis now = clock();
    switch (ev.type) {
      case kube::client::InformerEvent::Type::Relisted:
        for (const Object& o : ev.items) rec.observe(observe_cluster_queue(o, now));
        queues_synced = true;
        break;
      case kube::client::InformerEvent::Type::Added:
      case kube::client::InformerEvent::Type::Modified:
        rec.observe(observe_cluster_queue(ev.object, now));
        break;
      case kube::client::InformerEvent::Type::Deleted:
        break;
    }
    check_completion(now);
  }

  void handle(const Object& wl, Millis now, Deferred& deferred) {
    rec.observe(observe_workload(wl, now));
    std::string uid(wl.uid());
    if (wl.condition_true("Finished")) {
      tracked.erase(uid);
      return;
    }
    Tracked& t = tracked[uid];
    auto rv = parse_rv(wl.resource_version());
    if (rv && t.rv && *rv <= *t.rv) return;  // older than what a write answered with
    t.rv = rv;
    // Kueue's runner: the admission time is when the runner first sees it admitted.
    if (wl.condition_true("Admitted")) {
      if (!t.admitted_at) t.admitted_at = now;
    } else {
      t.admitted_at.reset();
    }
    if (wl.condition_true("Admitted") || wl.condition_true("QuotaReserved")) {
      t.latest = wl;
    } else {
      t.latest.reset();
    }
    evaluate(uid, t, now, deferred);
  }

  void evaluate(const std::string& uid, Tracked& t, Millis now, Deferred& deferred) {
    if (!t.latest) return;
    if (t.in_flight) {
      t.dirty = true;
      return;
    }
    if (t.conflicted_rv && t.rv && *t.conflicted_rv == *t.rv) return;
    RunnerAction action = decide(*t.latest, t.admitted_at, now);
    switch (action.kind) {
      case RunnerAction::Kind::None:
        return;
      case RunnerAction::Kind::CompleteEviction:
        if (auto patch = kube::jobs::eviction_completed_patch(*t.latest, wall_now())) {
          send(uid, t, std::move(*patch), WriteKind::Eviction, deferred);
        }
        return;
      case RunnerAction::Kind::Finish:
        if (auto patch = kube::jobs::finished_patch(*t.latest, "ByTest", "By test runner", wall_now())) {
          send(uid, t, std::move(*patch), WriteKind::Finish, deferred);
        }
        return;
      case RunnerAction::Kind::CompleteJobSet:
        if (!t.jobset_completed) complete_jobset(uid, t, deferred);
        return;
      case RunnerAction::Kind::FinishLater:
        if (t.timer_armed && t.timer_at <= action.at) return;
        t.timer_armed = true;
        t.timer_at = action.at;
        arm_timer(uid, action.at - now, deferred);
        return;
    }
  }

  void arm_timer(const std::string& uid, Millis delay, Deferred& deferred) {
    std::weak_ptr<State> weak = weak_from_this();
    deferred.push_back([this, weak, uid, delay] {
      client.after(std::chrono::milliseconds(std::max<Millis>(delay, 0)), [weak, uid] {
        auto self = weak.lock();
        if (!self) return;
        Deferred later;
        {
          std::lock_guard lock(self->mu);
          if (self->stopped) return;
          auto it = self->tracked.find(uid);
          if (it == self->tracked.end()) return;
          it->second.timer_armed = false;
          self->evaluate(uid, it->second, self->clock(), later);
        }
        self->run_deferred(later);
      });
    });
  }

  void send(const std::string& uid, Tracked& t, json::value patch, WriteKind kind, Deferred& deferred) {
    t.in_flight = true;
    std::string ns(t.latest->namespace_name());
    std::string name(t.latest->name());
    std::optional<std::uint64_t> based_on = t.rv;
    // Conditional on the version the patch was computed from.
    patch.as_object()["metadata"] = json::object{{"resourceVersion", t.latest->resource_version()}};
    auto self = shared_from_this();
    deferred.push_back([self, uid, ns, name, based_on, kind, patch = std::move(patch)]() mutable {
      self->gate.submit([self, uid, ns, name, based_on, kind, patch = std::move(patch)](ApiGate::Release release) {
        kube::client::PatchOptions options;
        options.status_subresource = true;
        options.field_manager = "kueuepp-perf-runner";
        self->client.patch(kube::client::resources::kWorkload, ns, name, kube::client::PatchType::Merge, patch,
                           [self, uid, based_on, kind, release](kube::client::Result<Object> r) {
                             release();
                             self->write_done(uid, based_on, kind, std::move(r));
                           },
                           options);
      });
    });
  }

  /// The JobSet controller's part once every job succeeded: status Completed (the runner
  /// is the only writer of a perf JobSet's status, so the patch is unconditional).
  void complete_jobset(const std::string& uid, Tracked& t, Deferred& deferred) {
    t.in_flight = true;
    std::string ns(t.latest->namespace_name());
    std::string name = owning_jobset(*t.latest).value_or("");
    const std::string at = core::format_rfc3339(wall_now());
    json::value patch = json::object{
        {"status", json::object{{"terminalState", "Completed"},
                                {"conditions", json::array{json::object{{"type", "Completed"},
                                                                        {"status", "True"},
                                                                        {"reason", "AllJobsCompleted"},
                                                                        {"message", "jobset completed successfully"},
                                                                        {"lastTransitionTime", at}}}}}}};
    auto self = shared_from_this();
    deferred.push_back([self, uid, ns, name, patch = std::move(patch)]() mutable {
      self->gate.submit([self, uid, ns, name, patch = std::move(patch)](ApiGate::Release release) {
        kube::client::PatchOptions options;
        options.status_subresource = true;
        options.field_manager = "kueuepp-perf-runner";
        self->client.patch(kube::client::resources::kJobSet, ns, name, kube::client::PatchType::Merge, patch,
                           [self, uid, release](kube::client::Result<Object> r) {
                             release();
                             self->jobset_write_done(uid, std::move(r));
                           },
                           options);
      });
    });
  }

  /// Counts a write's answer: `done` when it landed; a missing object is no error (it
  /// finished or went meanwhile).
  void count_answer(const kube::client::Result<Object>& r, std::int64_t& done) {
    if (r) {
      ++done;
    } else if (r.error().is_conflict()) {
      ++counters.conflicts;
    } else if (!r.error().is_not_found()) {
      ++counters.write_errors;
      counters.last_write_error = r.error().describe();
      spdlog::warn("perf runner: {}", counters.last_write_error);
    }
  }

  void jobset_write_done(const std::string& uid, kube::client::Result<Object> r) {
    Deferred deferred;
    {
      std::lock_guard lock(mu);
      if (stopped) return;
      count_answer(r, counters.finish_writes);
      auto it = tracked.find(uid);
      if (it == tracked.end()) return;
      Tracked& t = it->second;
      t.in_flight = false;
      if (r || r.error().is_not_found()) {
        t.jobset_completed = true;
      } else {
        t.timer_armed = true;
        t.timer_at = clock() + 500;
        arm_timer(uid, 500, deferred);
      }
      if (t.dirty) {
        t.dirty = false;
        evaluate(uid, t, clock(), deferred);
      }
    }
    run_deferred(deferred);
  }

  void write_done(const std::string& uid, std::optional<std::uint64_t> based_on, WriteKind kind,
                  kube::client::Result<Object> r) {
    Deferred deferred;
    {
      std::lock_guard lock(mu);
      if (stopped) return;
      Millis now = clock();
      count_answer(r, kind == WriteKind::Finish ? counters.finish_writes : counters.eviction_writes);
      auto it = tracked.find(uid);
      if (it == tracked.end()) return;
      Tracked& t = it->second;
      t.in_flight = false;
      if (r) {
        // The answer is newer than anything the watch delivered so far: base further
        // decisions on it (the watch event for it is then skipped as not newer).
        auto rv = parse_rv(r->resource_version());
        if (rv && (!t.rv || *rv > *t.rv)) {
          t.rv = rv;
          if (r->condition_true("Finished")) {
            t.latest.reset();
          } else if (r->condition_true("Admitted") || r->condition_true("QuotaReserved")) {
            t.latest = std::move(*r);
          } else {
            t.latest.reset();
            t.admitted_at.reset();
          }
        }
      } else if (r.error().is_conflict()) {
        t.conflicted_rv = based_on;
      } else if (r.error().is_not_found()) {
        tracked.erase(it);
        return;
      } else {
        // Transient: try again shortly.
        t.timer_armed = true;
        t.timer_at = now + 500;
        arm_timer(uid, 500, deferred);
      }
      if (t.dirty || (!r && r.error().is_conflict())) {
        t.dirty = false;
        evaluate(uid, t, now, deferred);
      }
    }
    run_deferred(deferred);
  }
};

std::shared_ptr<WorkloadRunner> WorkloadRunner::start(kube::client::Client& client, Clock clock, std::size_t max_in_flight) {
  auto state = std::make_shared<State>(client, std::move(clock), max_in_flight);
  kube::client::InformerOptions options;
  options.label_selector = std::string(kClassLabel);
  std::weak_ptr<State> weak = state;
  auto on_error = [](const kube::client::ApiError& e) { spdlog::warn("perf runner watch: {}", e.describe()); };
  auto wl = kube::client::Informer::start(
      client, kube::client::resources::kWorkload, options,
      [weak](kube::client::InformerEvent ev) {
        if (auto s = weak.lock()) s->on_workload_event(std::move(ev));
      },
      on_error);
  auto cq = kube::client::Informer::start(
      client, kube::client::resources::kClusterQueue, options,
      [weak](kube::client::InformerEvent ev) {
        if (auto s = weak.lock()) s->on_queue_event(std::move(ev));
      },
      on_error);
  {
    std::lock_guard lock(state->mu);
    state->workload_informer = std::move(wl);
    state->queue_informer = std::move(cq);
  }
  return std::make_shared<WorkloadRunner>(state);
}

void WorkloadRunner::expect(std::int64_t total) {
  std::lock_guard lock(state_->mu);
  state_->expected = total;
  state_->check_completion(state_->clock());
}

RunnerProgress WorkloadRunner::progress() const {
  std::lock_guard lock(state_->mu);
  RunnerProgress p = state_->counters;
  p.synced = state_->workloads_synced && state_->queues_synced;
  p.seen = state_->rec.seen();
  p.admitted = state_->rec.ever_admitted();
  p.running = state_->rec.running();
  p.finished = state_->rec.finished();
  p.evictions = state_->rec.evictions();
  p.busy_queues = state_->rec.busy_queues();
  return p;
}

Summary WorkloadRunner::summary() const {
  std::lock_guard lock(state_->mu);
  return summarize(state_->rec);
}

Recorder WorkloadRunner::recorder() const {
  std::lock_guard lock(state_->mu);
  return state_->rec;
}

std::vector<std::string> WorkloadRunner::unfinished(std::size_t max) const {
  std::lock_guard lock(state_->mu);
  std::vector<std::string> out;
  for (const auto& [uid, w] : state_->rec.workloads()) {
    if (w.finished) continue;
    if (out.size() >= max) break;
    std::string state = w.evicted ? "evicted" : w.admitted ? "admitted" : "pending";
    out.push_back(w.ns + "/" + w.name + " (" + state + ")");
  }
  return out;
}

void WorkloadRunner::stop() {
  std::shared_ptr<kube::client::Informer> wl;
  std::shared_ptr<kube::client::Informer> cq;
  {
    std::lock_guard lock(state_->mu);
    state_->stopped = true;
    wl = std::move(state_->workload_informer);
    cq = std::move(state_->queue_informer);
  }
  state_->gate.close();
  if (wl) wl->stop();
  if (cq) cq->stop();
}

}  // namespace kueuepp::cmd::perf
