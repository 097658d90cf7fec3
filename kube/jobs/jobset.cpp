#include "kube/jobs/jobset.hpp"

#include "kube/jobs/constants.hpp"
#include "kube/jobs/equivalence.hpp"
#include "kube/jobs/merge_patch_diff.hpp"

namespace kueuepp::kube::jobs {

namespace {

constexpr std::string_view kKind = "JobSet";

std::int64_t number_or(const json::value* v, std::int64_t fallback) {
  return v != nullptr && v->is_number() ? v->to_number<std::int64_t>() : fallback;
}

const json::array& replicated_jobs(const client::Object& jobset) {
  static const json::array kNone;
  const json::value* rjobs = jobset.find({"spec", "replicatedJobs"});
  return rjobs != nullptr && rjobs->is_array() ? rjobs->get_array() : kNone;
}

/// spec.replicatedJobs[i].replicas: the CRD defaults it to 1.
std::int64_t replicas_of(const json::value& rjob) { return number_or(json::find(rjob, "replicas"), 1); }

json::value* pod_template_of(json::value& rjob) {
  json::value* at = &rjob;
  for (std::string_view key : {"template", "spec", "template"}) {
    at = json::find(*at, key);
    if (at == nullptr) return nullptr;
  }
  return at->is_object() ? at : nullptr;
}

bool jobset_suspended(const client::Object& jobset) { return jobset.bool_at({"spec", "suspend"}).value_or(false); }

/// The first True condition of `type` (Kueue's FindStatusCondition).
const json::value* true_condition(const client::Object& jobset, std::string_view type) {
  const json::value* conditions = jobset.find({"status", "conditions"});
  if (conditions == nullptr || !conditions->is_array()) return nullptr;
  for (const json::value& c : conditions->get_array()) {
    if (json::get_string(c, "type") != type) continue;
    return json::get_string(c, "status") == "True" ? &c : nullptr;
  }
  return nullptr;
}

/// The PriorityClass the pods ask for: the first pod set's that names one.
std::string_view pods_priority_class(const client::Object& jobset) {
  for (const json::value& rjob : replicated_jobs(jobset)) {
    const json::value* name = json::find_path(rjob, {"template", "spec", "template", "spec", "priorityClassName"});
    if (name != nullptr && name->is_string() && !name->get_string().empty()) return name->get_string();
  }
  return {};
}

/// The info of pod set `name` (nullptr: none).
const PodSetInfo* info_named(const std::vector<PodSetInfo>& infos, std::string_view name) {
  for (const PodSetInfo& i : infos) {
    if (i.name == name) return &i;
  }
  return nullptr;
}

class JobSetIntegration final : public JobIntegration {
 public:
  std::string_view framework() const override { return kJobSetFramework; }
  const client::ResourceDescriptor& resource() const override { return client::resources::kJobSet; }

  bool suspended(const client::Object& jobset) const override { return jobset_suspended(jobset); }
  // The JobSet is suspended and restored in one write: never half stopped.
  bool stopping(const client::Object&) const override { return false; }

  bool active(const client::Object& jobset) const override {
    const json::value* statuses = jobset.find({"status", "replicatedJobsStatus"});
    if (statuses == nullptr || !statuses->is_array()) return false;
    for (const json::value& s : statuses->get_array()) {
      if (number_or(json::find(s, "active"), 0) > 0) return true;
    }
    return false;
  }

  std::optional<JobFinish> finished(const client::Object& jobset) const override {
    if (const json::value* c = true_condition(jobset, "Completed")) {
      return JobFinish{true, std::string(json::get_string(*c, "message"))};
    }
    if (const json::value* c = true_condition(jobset, "Failed")) {
      return JobFinish{false, std::string(json::get_string(*c, "message"))};
    }
    return std::nullopt;
  }

  // Kueue counts child Jobs, not pods: every replica's Job ready or succeeded.
  bool pods_ready(const client::Object& jobset) const override {
    std::int64_t replicas = 0;
    for (const json::value& rjob : replicated_jobs(jobset)) replicas += replicas_of(rjob);
    std::int64_t ready = 0;
    if (const json::value* statuses = jobset.find({"status", "replicatedJobsStatus"}); statuses && statuses->is_array()) {
      for (const json::value& s : statuses->get_array()) {
        ready += number_or(json::find(s, "ready"), 0) + number_or(json::find(s, "succeeded"), 0);
      }
    }
    return replicas == ready;
  }

  Expected<StartResult, InjectionError> start(const client::Object& jobset, const client::Object& workload,
                                              const FlavorLookup& flavors) const override {
    const json::value* admission = workload.find({"status", "admission"});
    if (admission == nullptr || admission->is_null()) {
      return unexpected(InjectionError{
          "Workload " + workload.key() + " has no admission; JobSet " + jobset.key() + " cannot start", false});
    }
    auto infos = pod_set_infos_from_admission(workload, flavors);
    if (!infos) return unexpected(std::move(infos).error());
    const std::size_t rjobs = replicated_jobs(jobset).size();
    if (infos->size() != rjobs) {
      return unexpected(InjectionError{"invalid podset infos: expecting " + std::to_string(rjobs) + " podset, got " +
                                           std::to_string(infos->size()),
                                       true});
    }
    StartResult out;
    out.job = jobset;
    out.job.ensure({"spec", "suspend"}) = false;
    if (rjobs == 0) {
      return unexpected(InjectionError{"JobSet " + jobset.key() + " has no spec.replicatedJobs", true});
    }
    for (json::value& rjob : out.job.ensure({"spec", "replicatedJobs"}).as_array()) {
      std::string_view name = json::get_string(rjob, "name");
      const PodSetInfo* info = info_named(*infos, name);
      json::value* tmpl = pod_template_of(rjob);
      if (info == nullptr || tmpl == nullptr) {
        return unexpected(InjectionError{"JobSet " + jobset.key() + ": replicated job \"" + std::string(name) +
                                             "\" has no pod set in the admission of Workload " + workload.key(),
                                         true});
      }
      if (auto merged = merge_into_template(*tmpl, *info); !merged) {
        return unexpected(InjectionError{"JobSet " + jobset.key() + ": replicated job \"" + std::string(name) +
                                             "\": " + merged.error().message,
                                         true});
      }
    }
    out.changed = !(out.job.json() == jobset.json());
    out.patch = merge_patch_diff(jobset.json(), out.job.json());
    out.message = "Admitted by clusterQueue " + std::string(workload.string_at({"status", "admission", "clusterQueue"}));
    return out;
  }

  // One write: spec.suspend=true and every template restored from the Workload's pod
  // sets (the JobSet controller lets templates change while suspended).
  std::optional<StopStep> stop(const client::Object& jobset, const client::Object* workload) const override {
    client::Object stopped = jobset;
    stopped.ensure({"spec", "suspend"}) = true;
    if (workload != nullptr) {
      std::vector<PodSetInfo> infos = pod_set_infos_from_spec(*workload);
      // Kueue skips the restore when the pod set count does not match the JobSet's.
      if (!infos.empty() && infos.size() == replicated_jobs(jobset).size()) {
        for (json::value& rjob : stopped.ensure({"spec", "replicatedJobs"}).as_array()) {
          const PodSetInfo* info = info_named(infos, json::get_string(rjob, "name"));
          json::value* tmpl = pod_template_of(rjob);
          if (info != nullptr && tmpl != nullptr) restore_template(*tmpl, *info);
        }
      }
    }
    if (stopped.json() == jobset.json()) return std::nullopt;
    return StopStep{merge_patch_diff(jobset.json(), stopped.json()), false, "suspended", true};
  }

  Expected<client::Object> build_workload(const client::Object& jobset, const BuildOptions& options) const override {
    if (auto valid = validate_jobset(jobset); !valid) return unexpected(valid.error());
    auto queue = owner_queue(jobset, kKind, options);
    if (!queue) return unexpected(queue.error());
    auto pod_sets = jobset_pod_sets(jobset, PodSetOptions{options.partial_admission, options.topology_aware_scheduling});
    if (!pod_sets) return unexpected(pod_sets.error());
    auto prio = priority(jobset, options);
    if (!prio) return unexpected(prio.error());
    return assemble_workload(jobset, resource(), *queue, std::move(*pod_sets), *prio, options);
  }

  Expected<WorkloadPriority> priority(const client::Object& jobset, const BuildOptions& options) const override {
    return owner_priority(jobset, kKind, pods_priority_class(jobset),
                          "spec.replicatedJobs[*].template.spec.template.spec.priorityClassName", options);
  }

  bool equivalent(const client::Object& jobset, const client::Object& workload,
                  const FlavorLookup& flavors) const override {
    auto pod_sets = jobset_pod_sets(jobset);
    if (!pod_sets) return false;
    return equivalent_pod_sets_to_workload(jobset, json::value(std::move(*pod_sets)), jobset_suspended(jobset),
                                           workload, flavors);
  }
};

}  // namespace

std::int64_t jobset_pods_per_replica(const json::value& replicated_job) {
  const json::value* spec = json::find_path(replicated_job, {"template", "spec"});
  if (spec == nullptr) return 1;
  std::int64_t count = number_or(json::find(*spec, "parallelism"), 1);
  std::int64_t completions = number_or(json::find(*spec, "completions"), count);
  return completions < count ? completions : count;
}

Expected<json::array> jobset_pod_sets(const client::Object& jobset, const PodSetOptions& options) {
  json::array out;
  for (const json::value& rjob : replicated_jobs(jobset)) {
    std::string_view name = json::get_string(rjob, "name");
    const json::value* tmpl = json::find_path(rjob, {"template", "spec", "template"});
    if (tmpl == nullptr || !tmpl->is_object()) {
      return fail("JobSet " + jobset.key() + ": replicated job \"" + std::string(name) +
                  "\" has no template.spec.template; Kueue cannot queue it");
    }
    json::object pod_set;
    pod_set["name"] = name;
    json::value pod_template = *tmpl;
    if (json::value* spec = json::find(pod_template, "spec"); spec != nullptr && spec->is_object()) {
      sanitize_containers(*spec);
    }
    pod_set["template"] = std::move(pod_template);
    const std::int64_t replicas = replicas_of(rjob);
    pod_set["count"] = replicas * jobset_pods_per_replica(rjob);
    if (options.topology_aware_scheduling) {
      auto req = topology_request(jobset, *tmpl);
      if (!req) return unexpected(req.error());
      // Each replica is one child Job: pods are grouped by the replica's index.
      (*req)["subGroupIndexLabel"] = kJobSetJobIndexLabel;
      (*req)["subGroupCount"] = replicas;
      pod_set["topologyRequest"] = std::move(*req);
    }
    out.push_back(std::move(pod_set));
  }
  if (out.empty()) return fail("JobSet " + jobset.key() + " has no spec.replicatedJobs; Kueue cannot queue it");
  return out;
}

Status validate_jobset(const client::Object& jobset) { return validate_owner_labels(jobset, kKind); }

const JobIntegration& jobset_integration() {
  static const JobSetIntegration kJobSet;
  return kJobSet;
}

}  // namespace kueuepp::kube::jobs
