#pragma once

// What Kueue's job framework asks of a kind of job (jobframework.GenericJob), as the
// integration reconciler (actors/job_reconciler.hpp) uses it: suspended or not, start
// with the admission's scheduling directives injected, stop and restore, the Workload to
// create (its pod sets, priority and owner), equivalence with an existing one, finished,
// active, pods ready. One adapter per kind, batch/v1 Job the first (batch_job.hpp):
// adding a kind is an adapter and an entry in find_integration, not another reconciler.
// The Workload's side (its status patches, requeueing, queue status) is the same for
// every kind: workload_status.hpp, workload_requeue.hpp, queue_status.hpp.

#include <optional>
#include <string>
#include <string_view>

#include "core/expected.hpp"
#include "kube/client/object.hpp"
#include "kube/client/resource.hpp"
#include "kube/jobs/job_start_stop.hpp"
#include "kube/jobs/job_status.hpp"
#include "kube/jobs/pod_set_info.hpp"
#include "kube/jobs/workload_builder.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::kube::jobs {

/// One write of a stop. Kueue's stop can be several ordered writes that a real API server
/// refuses to combine (a batch/v1 Job's template may change only once it is suspended and
/// has no startTime), so the reconciler asks for the next one after each has landed.
struct StopStep {
  json::value patch;        ///< a merge patch of the job
  bool status = false;      ///< of its status subresource
  std::string what;         ///< for logs: "suspended", "cleared startTime", ...
  bool last = false;        ///< the job is stopped and restored once it lands (Kueue's Stopped event)
};

class JobIntegration {
 public:
  virtual ~JobIntegration() = default;

  /// Kueue's name for it in integrations.frameworks ("batch/job").
  virtual std::string_view framework() const = 0;
  virtual const client::ResourceDescriptor& resource() const = 0;

  /// IsSuspended: not running, and not in the middle of a stop.
  virtual bool suspended(const client::Object& job) const = 0;
  /// A stop that was interrupted (a restart between its writes) and must be finished.
  virtual bool stopping(const client::Object& job) const = 0;
  /// IsActive: pods still run (quota is released only once they stopped).
  virtual bool active(const client::Object& job) const = 0;
  /// Finished: how the job ended, if it did.
  virtual std::optional<JobFinish> finished(const client::Object& job) const = 0;
  /// PodsReady (waitForPodsReady).
  virtual bool pods_ready(const client::Object& job) const = 0;

  /// RunWithPodSetsInfo: the job resumed for its admitted Workload, with the admitted
  /// flavors' node selectors and tolerations (and the admission checks' pod set updates)
  /// injected, in one write.
  virtual Expected<StartResult, InjectionError> start(const client::Object& job, const client::Object& workload,
                                                      const FlavorLookup& flavors) const = 0;
  /// The next write of Suspend + RestorePodSetsInfo (nullopt: stopped and restored).
  /// `workload` null: only suspend (there is nothing to restore from).
  virtual std::optional<StopStep> stop(const client::Object& job, const client::Object* workload) const = 0;

  /// ConstructWorkload: the Workload to create for the job.
  virtual Expected<client::Object> build_workload(const client::Object& job, const BuildOptions& options) const = 0;
  /// ExtractPriority: the priority the job's Workload has (fails when its class is missing).
  virtual Expected<WorkloadPriority> priority(const client::Object& job, const BuildOptions& options) const = 0;
  /// EquivalentToWorkload: whether an existing Workload still describes the job.
  virtual bool equivalent(const client::Object& job, const client::Object& workload,
                          const FlavorLookup& flavors) const = 0;
};

/// The integration for Kueue's framework name, or null when kueuepp has none.
const JobIntegration* find_integration(std::string_view framework);

}  // namespace kueuepp::kube::jobs
