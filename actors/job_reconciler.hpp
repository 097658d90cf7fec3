#pragma once

// Kueue's job reconcile loop (jobframework's reconciler; for batch/v1 Job, section 3.4 of
// Kueue's semantics reference) as a pure function over the cached job and Workload: no
// CAF, no I/O, no clock of its own. What it asks of the kind of job goes through
// kube::jobs::JobIntegration (batch/v1 Job unless the context names another kind). Each
// call returns the next step, i.e. the writes that move the pair one step towards
// Kueue's contract; the job actor carries them out and calls again with the objects the
// writes returned, until a call returns no writes.
//
// One step at a time because a stop can be several ordered writes (a batch/v1 Job's:
// suspend, clear startTime, restore the template) that a real API server refuses to
// combine.

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "actors/controller.hpp"
#include "core/model/time.hpp"
#include "kube/client/object.hpp"
#include "kube/jobs/integration.hpp"
#include "messages/metrics_protocol.hpp"
#include "messages/object_kind.hpp"

namespace kueuepp::actors {

struct JobWrite {
  messages::ObjectKind kind = messages::ObjectKind::Job;
  enum class Verb { Create, MergePatch, MergePatchStatus, Delete } verb = Verb::MergePatch;
  std::string ns;
  std::string name;
  json::value body;
  /// metadata.resourceVersion the write is conditional on (empty: unconditional).
  std::string precondition_rv;
  std::string what;  ///< for logs: "created workload", "suspended", ...
  /// Counted by the metrics actor once the write has landed (an eviction by Kueue's
  /// Workload controller).
  std::optional<messages::WorkloadMetricEvent> on_success;
};

/// An Event for the Job or its Workload, as Kueue records them.
struct JobEvent {
  messages::ObjectKind kind = messages::ObjectKind::Job;
  std::string ns;
  std::string name;
  std::string uid;
  bool warning = false;
  std::string reason;
  std::string message;
};

struct JobStep {
  std::vector<JobWrite> writes;
  std::vector<JobEvent> events;
  /// A deadline with nothing due yet (a PodsReady timeout, a requeue backoff): reconcile
  /// the Job again at this time.
  std::optional<core::Time> recheck_at;
};

struct JobContext {
  /// A ResourceFlavor by name (nullptr: it does not exist).
  std::function<const kube::client::Object*(std::string_view name)> flavor;
  /// WorkloadPriorityClass / PriorityClass values by name.
  std::function<std::optional<std::int32_t>(std::string_view name)> workload_priority_class;
  std::function<std::optional<std::int32_t>(std::string_view name)> priority_class;
  /// The PriorityClass with globalDefault (lowest value if several).
  std::optional<std::pair<std::string, std::int32_t>> default_priority_class;
  /// True when LocalQueue ns/name exists (manageJobsWithoutQueueName's "default").
  std::function<bool(const std::string& ns, const std::string& name)> local_queue_exists;
  /// A Namespace's labels (nullptr: not seen), for options.managed_namespaces.
  std::function<const core::Labels*(const std::string& ns)> namespace_labels;
  JobIntegrationOptions options;
  core::Time now{};
  /// The kind of job reconciled (null: batch/v1 Job) and its tag in writes and events.
  const kube::jobs::JobIntegration* integration = nullptr;
  messages::ObjectKind job_kind = messages::ObjectKind::Job;
};

/// Whether the job's controller is a kind of job Kueue manages (options.frameworks): such
/// a child (a JobSet's Job) is never queued itself (Kueue's IsOwnerManagedByKueue).
bool owned_by_managed_parent(const kube::client::Object& job, const JobContext& ctx);

/// The queue a Job is submitted to, or nullopt when Kueue does not manage it (a child of
/// a managed parent is not). Empty: a
/// Job managed without a queue (manageJobsWithoutQueueName, no "default" LocalQueue),
/// held suspended until it is given one.
std::optional<std::string> managed_queue(const kube::client::Object& job, const JobContext& ctx);

/// The next step for a Job and its Workload (null: none yet).
JobStep reconcile_job(const kube::client::Object& job, const kube::client::Object* workload, const JobContext& ctx);

/// The next step for a Job and every Workload it owns (ownerReference to its uid). Kueue
/// keeps one: the Workload that matches the Job (preferring one that is admitted, then
/// one holding quota, then the oldest), or, with none matching, one to update in place
/// while the Job is suspended and it holds no quota; the others are deleted first
/// (event DeletedWorkload), and those already being deleted lose Kueue's finalizer.
JobStep reconcile_job(const kube::client::Object& job, std::span<const kube::client::Object* const> workloads,
                      const JobContext& ctx);

/// The Job is gone: its Workload's finalizer is dropped so garbage collection can delete
/// it (and the quota it holds is released when it goes). Empty when nothing to do.
JobStep release_orphan(const kube::client::Object& workload);

/// A WorkloadPriorityClass's value changed: the Workloads that reference it get it
/// (Kueue's WorkloadPriorityClass controller). Empty when already equal.
std::optional<JobWrite> sync_workload_priority(const kube::client::Object& workload, std::int32_t value);

}  // namespace kueuepp::actors
