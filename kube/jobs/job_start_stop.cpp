#include "kube/jobs/job_start_stop.hpp"

#include <array>

#include "kube/jobs/constants.hpp"
#include "kube/jobs/job_pod_sets.hpp"
#include "kube/jobs/job_status.hpp"
#include "kube/jobs/merge_patch_diff.hpp"

namespace kueuepp::kube::jobs {

namespace {

/// Labels the batch Job controller owns on the template: a restore keeps their current
/// values rather than the Workload's snapshot.
constexpr std::array<std::string_view, 4> kManagedLabels = {"job-name", "controller-uid", "batch.kubernetes.io/job-name",
                                                            "batch.kubernetes.io/controller-uid"};

/// Under partial admission the Job runs `count` pods (RunWithPodSetsInfo and
/// RestorePodSetsInfo both do this).
void apply_count(client::Object& job, std::int64_t count) {
  job.ensure({"spec", "parallelism"}) = count;
  if (job_completions_follow_parallelism(job)) job.ensure({"spec", "completions"}) = count;
}

json::value& pod_template(client::Object& job) {
  json::value& tmpl = job.ensure({"spec", "template"});
  if (!tmpl.is_object()) tmpl = json::object{};
  return tmpl;
}

json::value patch_or_null(const json::value& from, const json::value& to) {
  json::value diff = merge_patch_diff(from, to);
  return diff.is_object() && diff.get_object().empty() ? json::value(nullptr) : diff;
}

}  // namespace

Expected<StartResult, InjectionError> start_job(const client::Object& job, const client::Object& workload,
                                                const FlavorLookup& flavors, const InjectionOptions& options) {
  if (workload.find({"status", "admission"}) == nullptr || workload.find({"status", "admission"})->is_null()) {
    return unexpected(InjectionError{"Workload " + workload.key() + " has no admission; Job " + job.key() +
                                         " cannot start",
                                     false});
  }
  auto infos = pod_set_infos_from_admission(workload, flavors, options);
  if (!infos) return unexpected(std::move(infos).error());
  if (infos->size() != 1) {
    return unexpected(InjectionError{
        "invalid podset infos: expecting 1 podset, got " + std::to_string(infos->size()), true});
  }
  const PodSetInfo& info = infos->front();
  StartResult out;
  out.job = job;
  out.job.ensure({"spec", "suspend"}) = false;
  if (job_min_pods_count(job)) apply_count(out.job, info.count);
  if (auto merged = merge_into_template(pod_template(out.job), info); !merged) {
    return unexpected(InjectionError{"Job " + job.key() + ": " + merged.error().message, true});
  }
  out.changed = !(out.job.json() == job.json());
  out.patch = merge_patch_diff(job.json(), out.job.json());
  out.message = "Admitted by clusterQueue " + std::string(workload.string_at({"status", "admission", "clusterQueue"}));
  return out;
}

StopResult stop_job(const client::Object& job, const client::Object* workload) {
  StopResult out;
  client::Object suspended = job;
  if (!job_suspended(job)) {
    suspended.ensure({"spec", "suspend"}) = true;
    suspended.set_annotation(kStoppingAnnotation, "true");
    out.suspend_patch = patch_or_null(job.json(), suspended.json());
  }
  const json::value* start_time = job.find({"status", "startTime"});
  out.clear_start_time = start_time != nullptr && !start_time->is_null();

  out.job = suspended;
  if (workload != nullptr) {
    std::vector<PodSetInfo> infos = pod_set_infos_from_spec(*workload);
    if (!infos.empty()) {
      PodSetInfo info = infos.front();
      if (job_min_pods_count(job) && out.job.int_at({"spec", "parallelism"}).value_or(0) != info.count) {
        apply_count(out.job, info.count);
      }
      client::StringMap current = out.job.string_map_at({"spec", "template", "metadata", "labels"});
      for (auto key : kManagedLabels) {
        if (auto it = current.find(std::string(key)); it != current.end()) info.labels[it->first] = it->second;
      }
      restore_template(pod_template(out.job), info);
    }
  }
  out.job.remove_annotation(kStoppingAnnotation);
  if (const json::value* a = out.job.find({"metadata", "annotations"}); a && a->is_object() && a->get_object().empty() &&
      job.find({"metadata", "annotations"}) == nullptr) {
    out.job.erase({"metadata", "annotations"});
  }
  if (out.clear_start_time) out.job.erase({"status", "startTime"});
  out.restore_patch = patch_or_null(suspended.json(), out.job.json());
  if (out.restore_patch.is_object()) out.restore_patch.get_object().erase("status");
  if (out.restore_patch.is_object() && out.restore_patch.get_object().empty()) out.restore_patch = nullptr;
  out.changed = !out.suspend_patch.is_null() || out.clear_start_time || !out.restore_patch.is_null();
  return out;
}

json::value clear_start_time_patch() { return json::object{{"status", json::object{{"startTime", nullptr}}}}; }

}  // namespace kueuepp::kube::jobs
