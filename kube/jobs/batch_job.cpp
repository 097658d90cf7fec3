#include "kube/jobs/batch_job.hpp"

#include "kube/jobs/appwrapper.hpp"
#include "kube/jobs/constants.hpp"
#include "kube/jobs/equivalence.hpp"
#include "kube/jobs/jobset.hpp"
#include "kube/jobs/kubeflow_job.hpp"
#include "kube/jobs/ray_cluster.hpp"
#include "kube/jobs/ray_job.hpp"
#include "kube/jobs/ray_service.hpp"
#include "kube/jobs/trainjob.hpp"

namespace kueuepp::kube::jobs {

namespace {

class BatchJob final : public JobIntegration {
 public:
  std::string_view framework() const override { return "batch/job"; }
  const client::ResourceDescriptor& resource() const override { return client::resources::kJob; }

  bool suspended(const client::Object& job) const override { return job_suspended(job); }
  bool stopping(const client::Object& job) const override {
    return job.annotation(kStoppingAnnotation).value_or("") == "true";
  }
  bool active(const client::Object& job) const override { return job_active(job); }
  std::optional<JobFinish> finished(const client::Object& job) const override { return job_finished(job); }
  bool pods_ready(const client::Object& job) const override { return job_pods_ready(job); }

  Expected<StartResult, InjectionError> start(const client::Object& job, const client::Object& workload,
                                              const FlavorLookup& flavors) const override {
    return start_job(job, workload, flavors);
  }

  // Three writes: suspend (with the stopping annotation), clear status.startTime, then
  // restore the template (the annotation removed).
  std::optional<StopStep> stop(const client::Object& job, const client::Object* workload) const override {
    StopResult r = stop_job(job, workload);
    if (!r.changed) return std::nullopt;
    if (!r.suspend_patch.is_null()) return StopStep{std::move(r.suspend_patch), false, "suspended", false};
    if (r.clear_start_time) return StopStep{clear_start_time_patch(), true, "cleared startTime", false};
    if (!r.restore_patch.is_null()) return StopStep{std::move(r.restore_patch), false, "restored the pod template", true};
    return std::nullopt;
  }

  Expected<client::Object> build_workload(const client::Object& job, const BuildOptions& options) const override {
    return jobs::build_workload(job, options);
  }
  Expected<WorkloadPriority> priority(const client::Object& job, const BuildOptions& options) const override {
    return job_priority(job, options);
  }
  bool equivalent(const client::Object& job, const client::Object& workload,
                  const FlavorLookup& flavors) const override {
    return equivalent_to_workload(job, workload, flavors, EquivalenceOptions{});
  }
};

}  // namespace

const JobIntegration& batch_job_integration() {
  static const BatchJob kBatchJob;
  return kBatchJob;
}

const JobIntegration* find_integration(std::string_view framework) {
  // Kueue's integration names: adding a kind is an adapter file and an entry here.
  for (const JobIntegration* known :
       {&batch_job_integration(), &jobset_integration(), &pytorchjob_integration(), &tfjob_integration(),
        &xgboostjob_integration(), &paddlejob_integration(), &jaxjob_integration(), &mpijob_integration(),
        &rayjob_integration(), &raycluster_integration(), &rayservice_integration(), &trainjob_integration(),
        &appwrapper_integration()}) {
    if (framework == known->framework()) return known;
  }
  return nullptr;
}

}  // namespace kueuepp::kube::jobs
