#include "actors/job_reconciler.hpp"

#include <algorithm>

#include "kube/jobs/batch_job.hpp"
#include "kube/jobs/constants.hpp"
#include "kube/jobs/workload_requeue.hpp"
#include "kube/jobs/workload_retention.hpp"
#include "kube/jobs/workload_status.hpp"

namespace kueuepp::actors {

using kube::client::Object;
using messages::ObjectKind;
namespace jobs = kube::jobs;

namespace {

using jobs::holds_quota_reservation;
using jobs::is_admitted;

/// The kind of job the context reconciles (batch/v1 Job unless it says otherwise).
const jobs::JobIntegration& kind_of(const JobContext& ctx) {
  return ctx.integration != nullptr ? *ctx.integration : jobs::batch_job_integration();
}

bool has_finalizer(const Object& o, std::string_view finalizer) {
  auto all = o.finalizers();
  return std::find(all.begin(), all.end(), finalizer) != all.end();
}

JobWrite job_write(const Object& job, const JobContext& ctx, JobWrite::Verb verb, json::value body, std::string what) {
  return JobWrite{ctx.job_kind, verb, std::string(job.namespace_name()), std::string(job.name()),
                  std::move(body), "", std::move(what)};
}

/// A Workload status patch replaces the whole conditions list: it is conditional on the
/// version it was computed from, so that, computed from a version since overtaken (an
/// admission withdrawn, an eviction completed), it is refused rather than bringing back
/// conditions that no longer hold.
JobWrite workload_status_write(const Object& wl, json::value patch, std::string what) {
  return JobWrite{ObjectKind::Workload, JobWrite::Verb::MergePatchStatus, std::string(wl.namespace_name()),
                  std::string(wl.name()), std::move(patch), std::string(wl.resource_version()), std::move(what)};
}

JobEvent event_on(const Object& o, ObjectKind kind, bool warning, std::string reason, std::string message) {
  return JobEvent{kind, std::string(o.namespace_name()), std::string(o.name()), std::string(o.uid()), warning,
                  std::move(reason), std::move(message)};
}

/// The Workload without Kueue's finalizer, conditional on the version seen, so that a
/// finalizer another controller added meanwhile is not dropped.
JobWrite finalizer_removal(const Object& wl) {
  json::array remaining;
  for (auto& f : wl.finalizers()) {
    if (f != jobs::kResourceInUseFinalizer) remaining.emplace_back(f);
  }
  json::value body = json::object{{"metadata", json::object{{"finalizers", std::move(remaining)}}}};
  return JobWrite{ObjectKind::Workload, JobWrite::Verb::MergePatch, std::string(wl.namespace_name()),
                  std::string(wl.name()), std::move(body), std::string(wl.resource_version()),
                  "removed the workload's finalizer"};
}

jobs::BuildOptions build_options(const Object& job, const JobContext& ctx) {
  jobs::BuildOptions o;
  if (!job.label(jobs::kQueueNameLabel)) {
    if (auto q = managed_queue(job, ctx)) {
      o.default_queue = *q;
      o.managed_without_queue = q->empty();
    }
  }
  o.partial_admission = ctx.options.partial_admission;
  o.label_keys_to_copy = ctx.options.label_keys_to_copy;
  o.workload_priority_class = ctx.workload_priority_class;
  o.priority_class = ctx.priority_class;
  o.default_priority_class = ctx.default_priority_class;
  return o;
}

/// The next write of the job's stop (Kueue's Suspend and RestorePodSetsInfo), or false
/// when it is already stopped and restored.
bool stop_step(const Object& job, const Object* wl, const std::string& why, const JobContext& ctx, JobStep& step) {
  auto next = kind_of(ctx).stop(job, wl);
  if (!next) return false;
  std::string what = next->what == "suspended" ? "suspended: " + why : next->what;
  step.writes.push_back(job_write(job, ctx, next->status ? JobWrite::Verb::MergePatchStatus : JobWrite::Verb::MergePatch,
                                  std::move(next->patch), std::move(what)));
  if (next->last) step.events.push_back(event_on(job, ctx.job_kind, false, "Stopped", why));
  return true;
}

/// The Workload's spec as the Job now describes it (Kueue updates a Workload in place
/// when its suspended Job changed and it holds no quota). Fields Kueue owns and the new
/// spec lacks are cleared explicitly: a merge patch would keep them.
std::optional<JobWrite> rebuild_in_place(const Object& job, const Object& wl, const JobContext& ctx, JobStep& step) {
  auto built = kind_of(ctx).build_workload(job, build_options(job, ctx));
  if (!built) {
    step.events.push_back(event_on(job, ctx.job_kind, true, "ErrWorkloadCompose", built.error().message));
    return std::nullopt;
  }
  json::object spec;
  for (const char* owned : {"queueName", "podSets", "priority", "priorityClassRef", "maximumExecutionTimeSeconds"}) {
    spec[owned] = nullptr;
  }
  if (const auto* s = built->find({"spec"}); s && s->is_object()) {
    for (const auto& [k, v] : s->as_object()) spec[k] = v;
  }
  return JobWrite{ObjectKind::Workload, JobWrite::Verb::MergePatch, std::string(wl.namespace_name()),
                  std::string(wl.name()), json::object{{"spec", std::move(spec)}}, std::string(wl.resource_version()),
                  "updated the workload to the job's new spec"};
}

/// Kueue keeps spec.priority in step with the Job's priority class (the label can change,
/// and so can the class's value). The class reference cannot change while quota is held.
std::optional<JobWrite> priority_sync(const Object& job, const Object& wl, const JobContext& ctx) {
  auto prio = kind_of(ctx).priority(job, build_options(job, ctx));
  if (!prio) return std::nullopt;  // a vanished class: keep the last known priority
  bool value_differs = wl.int_at({"spec", "priority"}).value_or(0) != prio->value;
  const auto* ref = wl.find({"spec", "priorityClassRef"});
  json::value want_ref = prio->ref ? json::value(json::object{{"group", prio->ref->group},
                                                              {"kind", prio->ref->kind},
                                                              {"name", prio->ref->name}})
                                   : json::value(nullptr);
  bool ref_differs = (ref == nullptr ? json::value(nullptr) : *ref) != want_ref;
  if (ref_differs && holds_quota_reservation(wl)) ref_differs = false;
  if (!value_differs && !ref_differs) return std::nullopt;
  json::object spec;
  spec["priority"] = prio->value;
  if (ref_differs) spec["priorityClassRef"] = want_ref;
  return JobWrite{ObjectKind::Workload, JobWrite::Verb::MergePatch, std::string(wl.namespace_name()),
                  std::string(wl.name()), json::object{{"spec", std::move(spec)}}, std::string(wl.resource_version()),
                  "priority set to " + std::to_string(prio->value)};
}

void create_workload(const Object& job, const JobContext& ctx, JobStep& step) {
  auto built = kind_of(ctx).build_workload(job, build_options(job, ctx));
  if (!built) {
    // Kueue creates no Workload and says why on the Job; the next change retries.
    const auto& msg = built.error().message;
    bool missing_class = msg.find("WorkloadPriorityClass") != std::string::npos;
    step.events.push_back(
        event_on(job, ctx.job_kind, true, missing_class ? "WorkloadPriorityClassNotFound" : "ErrWorkloadCompose", msg));
    return;
  }
  std::string name(built->name());
  step.events.push_back(event_on(job, ctx.job_kind, false, "CreatedWorkload",
                                 "Created Workload: " + std::string(job.namespace_name()) + "/" + name));
  step.writes.push_back(JobWrite{ObjectKind::Workload, JobWrite::Verb::Create, std::string(job.namespace_name()),
                                 std::move(name), std::move(*built).release(), "", "created workload"});
}

void start(const Object& job, const Object& wl, const JobContext& ctx, JobStep& step) {
  jobs::FlavorLookup flavors = ctx.flavor;
  auto started = kind_of(ctx).start(job, wl, flavors);
  if (!started) {
    if (!started.error().permanent) return;  // e.g. a flavor not seen yet: its arrival retries
    if (auto p = jobs::finished_patch(wl, "FailedToStart", started.error().message, ctx.now)) {
      step.writes.push_back(workload_status_write(wl, std::move(*p), "finished: failed to start"));
    }
    return;
  }
  if (!started->changed) return;
  step.writes.push_back(job_write(job, ctx, JobWrite::Verb::MergePatch, std::move(started->patch), "started"));
  step.events.push_back(event_on(job, ctx.job_kind, false, "Started", started->message));
}

/// waitForPodsReady: the PodsReady condition follows the Job's ready pods while admitted.
bool pods_ready_step(const Object& job, const Object& wl, const JobContext& ctx, JobStep& step) {
  if (!is_admitted(wl) || wl.condition_true("Evicted")) return false;
  auto p = jobs::pods_ready_patch(wl, kind_of(ctx).pods_ready(job), ctx.now);
  if (!p) return false;
  step.writes.push_back(workload_status_write(wl, std::move(*p), "PodsReady updated"));
  return true;
}

jobs::RequeuingPolicy requeuing_policy(const JobIntegrationOptions& options) {
  const auto& w = options.wait_for_pods_ready;
  jobs::RequeuingPolicy p;
  p.timeout = w.timeout;
  p.recovery_timeout = w.recovery_timeout;
  p.backoff_limit_count = w.backoff_limit_count;
  p.backoff_base_seconds = w.backoff_base_seconds;
  p.backoff_max_seconds = w.backoff_max_seconds;
  return p;
}

/// Takes a step of Kueue's Workload controller: its write (conditional on the version
/// it was computed from, so a concurrent admission or eviction is never overwritten) and
/// Event, or the time to look again.
bool take(const Object& wl, jobs::RequeueStep r, JobStep& step) {
  if (r.recheck_at && (!step.recheck_at || *r.recheck_at < *step.recheck_at)) step.recheck_at = r.recheck_at;
  if (!r.has_write()) return false;
  auto verb = r.target == jobs::RequeueStep::Target::Spec ? JobWrite::Verb::MergePatch
                                                          : JobWrite::Verb::MergePatchStatus;
  step.writes.push_back(JobWrite{ObjectKind::Workload, verb, std::string(wl.namespace_name()), std::string(wl.name()),
                                 std::move(r.patch), std::string(wl.resource_version()), std::move(r.what)});
  if (!r.evicted_reason.empty()) {
    messages::WorkloadMetricEvent e;
    e.what = messages::WorkloadMetricEvent::What::Evicted;
    e.cluster_queue = std::string(wl.string_at({"status", "admission", "clusterQueue"}));
    e.lq_namespace = std::string(wl.namespace_name());
    e.lq_name = std::string(wl.string_at({"spec", "queueName"}));
    e.priority_class = std::string(wl.string_at({"spec", "priorityClassName"}));
    e.reason = std::move(r.evicted_reason);
    e.underlying_cause = std::move(r.evicted_cause);
    step.writes.back().on_success = std::move(e);
  }
  if (!r.event_reason.empty()) {
    step.events.push_back(
        event_on(wl, ObjectKind::Workload, r.event_warning, std::move(r.event_reason), std::move(r.event_message)));
  }
  return true;
}

/// Kueue's Workload controller on the Workload's own clock: deactivation, the maximum
/// execution time, the requeue gate (BackoffFinished, Reactivated), and waitForPodsReady's condition and timeout.
bool workload_controller_step(const Object& job, const Object& wl, const JobContext& ctx, JobStep& step) {
  if (take(wl, jobs::deactivation_step(wl, ctx.now), step)) return true;
  if (take(wl, jobs::max_execution_time_step(wl, ctx.now), step)) return true;
  if (take(wl, jobs::requeue_gate_step(wl, ctx.now), step)) return true;
  if (!ctx.options.wait_for_pods_ready.enabled) return false;
  if (pods_ready_step(job, wl, ctx, step)) return true;
  return take(wl, jobs::pods_ready_timeout_step(wl, requeuing_policy(ctx.options), ctx.now), step);
}

/// An objectRetentionPolicies deadline: past it, the deletion; before it, the time to look
/// again. True when the deletion was added.
bool retention_due(std::optional<core::Time> deadline, const JobContext& ctx, JobStep& step) {
  if (!deadline) return false;
  if (ctx.now >= *deadline) return true;
  if (!step.recheck_at || *deadline < *step.recheck_at) step.recheck_at = deadline;
  return false;
}

/// afterDeactivatedByKueue: the Job of a Workload Kueue deactivated is deleted (background
/// propagation: its pods, then its Workload, follow).
bool deactivated_retention_step(const Object& job, const Object& wl, const JobContext& ctx, JobStep& step) {
  const auto& after = ctx.options.deactivated_job_retention;
  if (!after || !retention_due(jobs::deactivated_retention_deadline(wl, *after), ctx, step)) return false;
  step.writes.push_back(JobWrite{ctx.job_kind, JobWrite::Verb::Delete, std::string(job.namespace_name()),
                                 std::string(job.name()), json::value(), std::string(job.resource_version()),
                                 "deleted: deactivation retention period expired"});
  step.events.push_back(
      event_on(job, ctx.job_kind, false, "Deleted", "Deleted job: deactivation retention period expired"));
  return true;
}

/// afterFinished: a finished Workload is deleted (the Job stays).
void finished_retention_step(const Object& wl, const JobContext& ctx, JobStep& step) {
  const auto& after = ctx.options.finished_workload_retention;
  if (!after || wl.being_deleted() || !retention_due(jobs::finished_retention_deadline(wl, *after), ctx, step)) return;
  step.writes.push_back(JobWrite{ObjectKind::Workload, JobWrite::Verb::Delete, std::string(wl.namespace_name()),
                                 std::string(wl.name()), json::value(), std::string(),
                                 "deleted the finished workload: retention period expired"});
}

}  // namespace

bool owned_by_managed_parent(const Object& job, const JobContext& ctx) {
  auto owner = job.controller_reference();
  if (!owner) return false;
  const kube::client::ResourceDescriptor& own = kind_of(ctx).resource();
  if (owner->kind == own.kind && owner->api_version == own.api_version()) return false;
  for (const std::string& framework : ctx.options.frameworks) {
    const jobs::JobIntegration* parent = jobs::find_integration(framework);
    if (parent == nullptr) continue;
    const kube::client::ResourceDescriptor& r = parent->resource();
    if (owner->kind == r.kind && owner->api_version == r.api_version()) return true;
  }
  return false;
}

std::optional<std::string> managed_queue(const Object& job, const JobContext& ctx) {
  // Kueue's IsOwnerManagedByKueue: the parent's Workload holds the quota for its children.
  if (owned_by_managed_parent(job, ctx)) return std::nullopt;
  const std::string ns(job.namespace_name());
  if (const auto& selector = ctx.options.managed_namespaces) {
    const core::Labels* labels = ctx.namespace_labels ? ctx.namespace_labels(ns) : nullptr;
    if (labels == nullptr || !selector->matches(*labels)) return std::nullopt;
  }
  if (auto q = job.label(jobs::kQueueNameLabel); q && !q->empty()) return std::string(*q);
  if (!ctx.options.manage_jobs_without_queue_name) return std::nullopt;
  if (ctx.local_queue_exists && ctx.local_queue_exists(ns, "default")) return std::string("default");
  return std::string();
}

JobStep release_orphan(const Object& wl) {
  JobStep step;
  if (has_finalizer(wl, jobs::kResourceInUseFinalizer)) step.writes.push_back(finalizer_removal(wl));
  return step;
}

std::optional<JobWrite> sync_workload_priority(const Object& wl, std::int32_t value) {
  if (wl.int_at({"spec", "priority"}).value_or(0) == value) return std::nullopt;
  return JobWrite{ObjectKind::Workload, JobWrite::Verb::MergePatch, std::string(wl.namespace_name()),
                  std::string(wl.name()), json::object{{"spec", json::object{{"priority", value}}}},
                  std::string(wl.resource_version()), "priority set to " + std::to_string(value)};
}

namespace {

/// Whether a Workload belongs to the Job as it is now (Kueue's EquivalentToWorkload); a
/// finished or deleted one is the Job's whatever its spec.
bool matches_job(const Object& job, const Object& wl, const JobContext& ctx) {
  if (wl.condition_true("Finished") || wl.being_deleted()) return true;
  return kind_of(ctx).equivalent(job, wl, ctx.flavor);
}

}  // namespace

JobStep reconcile_job(const Object& job, std::span<const Object* const> workloads, const JobContext& ctx) {
  std::vector<const Object*> all;
  for (const Object* w : workloads) {
    if (w != nullptr) all.push_back(w);
  }
  if (all.size() <= 1) return reconcile_job(job, all.empty() ? nullptr : all.front(), ctx);
  JobStep step;
  if (!managed_queue(job, ctx)) return step;
  if (job.being_deleted()) {
    for (const Object* w : all) {
      if (has_finalizer(*w, jobs::kResourceInUseFinalizer)) step.writes.push_back(finalizer_removal(*w));
    }
    return step;
  }
  // Kueue's FindMatchingWorkloads takes the first that matches; which one is first is up
  // to its cache. Here: live before deleted, matching before not, admitted, then holding
  // quota, then the oldest (then the name), so the one the Job may be running under stays.
  struct Candidate {
    const Object* wl;
    bool live, matches, admitted, reserved;
  };
  std::vector<Candidate> candidates;
  for (const Object* w : all) {
    candidates.push_back({w, !w->being_deleted(), matches_job(job, *w, ctx), is_admitted(*w), holds_quota_reservation(*w)});
  }
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    if (a.live != b.live) return a.live;
    if (a.matches != b.matches) return a.matches;
    if (a.admitted != b.admitted) return a.admitted;
    if (a.reserved != b.reserved) return a.reserved;
    if (a.wl->creation_timestamp() != b.wl->creation_timestamp()) {
      return a.wl->creation_timestamp() < b.wl->creation_timestamp();  // RFC 3339 in UTC orders as text
    }
    return a.wl->name() < b.wl->name();
  });
  const Object* keep = nullptr;
  const Candidate& best = candidates.front();
  if (best.matches) {
    keep = best.wl;
  } else if (best.live && kind_of(ctx).suspended(job) && !best.reserved) {
    keep = best.wl;  // updated in place to match the Job (Kueue's toUpdate)
  }
  for (const Candidate& c : candidates) {
    if (c.wl == keep) continue;
    if (c.wl->being_deleted()) {
      if (has_finalizer(*c.wl, jobs::kResourceInUseFinalizer)) step.writes.push_back(finalizer_removal(*c.wl));
      continue;
    }
    step.writes.push_back(JobWrite{ObjectKind::Workload, JobWrite::Verb::Delete, std::string(c.wl->namespace_name()),
                                   std::string(c.wl->name()), json::value(), std::string(c.wl->resource_version()),
                                   keep != nullptr && c.matches ? "deleted a duplicate workload"
                                                                : "deleted the workload that no longer matches its job"});
    step.events.push_back(
        event_on(job, ctx.job_kind, false, "DeletedWorkload", "Deleted not matching Workload: " + c.wl->key()));
  }
  if (!step.writes.empty()) return step;
  return reconcile_job(job, keep, ctx);
}

JobStep reconcile_job(const Object& job, const Object* wl, const JobContext& ctx) {
  JobStep step;
  if (!managed_queue(job, ctx)) return step;
  if (job.being_deleted()) return wl ? release_orphan(*wl) : step;

  const jobs::JobIntegration& kind = kind_of(ctx);
  if (wl != nullptr && !wl->condition_true("Finished") && !wl->being_deleted()) {
    if (!kind.equivalent(job, *wl, ctx.flavor)) {
      if (kind.suspended(job) && !holds_quota_reservation(*wl)) {
        if (auto w = rebuild_in_place(job, *wl, ctx, step)) {
          step.writes.push_back(std::move(*w));
          step.events.push_back(event_on(job, ctx.job_kind, false, "UpdatedWorkload",
                                         "Updated not matching Workload for suspended job: " + wl->key()));
        }
      } else {
        step.writes.push_back(JobWrite{ObjectKind::Workload, JobWrite::Verb::Delete, std::string(wl->namespace_name()),
                                       std::string(wl->name()), json::value(), std::string(wl->resource_version()),
                                       "deleted the workload that no longer matches its job"});
        step.events.push_back(
            event_on(job, ctx.job_kind, false, "DeletedWorkload", "Deleted not matching Workload: " + wl->key()));
      }
      return step;
    }
  }
  if (wl != nullptr && wl->condition_true("Finished")) {
    if (has_finalizer(*wl, jobs::kResourceInUseFinalizer)) step.writes.push_back(finalizer_removal(*wl));
    finished_retention_step(*wl, ctx, step);
    return step;
  }
  if (wl != nullptr && wl->being_deleted()) {
    if (!stop_step(job, wl, "Workload deleted", ctx, step) && has_finalizer(*wl, jobs::kResourceInUseFinalizer)) {
      step.writes.push_back(finalizer_removal(*wl));
    }
    return step;
  }
  if (auto finished = kind.finished(job)) {
    if (wl == nullptr) return step;
    if (auto p = jobs::finished_patch(*wl, *finished, ctx.now)) {
      step.writes.push_back(workload_status_write(*wl, std::move(*p), "finished workload"));
      step.events.push_back(event_on(job, ctx.job_kind, false, "FinishedWorkload",
                                     "Workload '" + wl->key() + "' is declared finished"));
    }
    return step;
  }
  if (wl == nullptr) {
    // A managed Job runs only with an admitted Workload: suspend it first (our API
    // server has no Kueue webhook to create it suspended), then queue it.
    if (!stop_step(job, nullptr, "Not admitted by cluster queue", ctx, step)) create_workload(job, ctx, step);
    return step;
  }
  if (auto w = priority_sync(job, *wl, ctx)) {
    step.writes.push_back(std::move(*w));
    return step;
  }
  if (deactivated_retention_step(job, *wl, ctx, step)) return step;
  if (workload_controller_step(job, *wl, ctx, step)) return step;

  if (wl->condition_true("Evicted")) {
    auto evicted = wl->condition("Evicted");
    std::string why = evicted && !evicted->message.empty() ? evicted->message : "Workload evicted";
    // Without a reservation the eviction has completed: the Job must not run (it may have
    // been started from a version that still showed the admission).
    if (stop_step(job, wl, why, ctx, step) || !holds_quota_reservation(*wl)) return step;
    // Quota is released only once no pod runs any more (Kueue waits for !IsActive()).
    if (kind.active(job)) return step;
    if (auto p = jobs::eviction_completed_patch(*wl, ctx.now)) {
      step.writes.push_back(workload_status_write(*wl, std::move(*p), "released quota after eviction"));
    }
    return step;
  }
  if (kind.stopping(job)) {
    // A stop was interrupted (e.g. by a restart): finish it.
    stop_step(job, wl, "Not admitted by cluster queue", ctx, step);
    return step;
  }
  if (kind.suspended(job)) {
    if (is_admitted(*wl)) {
      start(job, *wl, ctx, step);
    } else if (auto q = managed_queue(job, ctx);
               q && !holds_quota_reservation(*wl) && wl->string_at({"spec", "queueName"}) != *q) {
      step.writes.push_back(JobWrite{ObjectKind::Workload, JobWrite::Verb::MergePatch,
                                     std::string(wl->namespace_name()), std::string(wl->name()),
                                     json::object{{"spec", json::object{{"queueName", *q}}}},
                                     std::string(wl->resource_version()), "moved to queue " + *q});
    }
    return step;
  }
  if (!is_admitted(*wl)) stop_step(job, wl, "Not admitted by cluster queue", ctx, step);
  return step;
}

}  // namespace kueuepp::actors
