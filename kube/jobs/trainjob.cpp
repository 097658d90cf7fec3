#include "kube/jobs/trainjob.hpp"

#include <utility>

#include "kube/jobs/equivalence.hpp"
#include "kube/jobs/jobset.hpp"
#include "kube/jobs/merge_patch_diff.hpp"

namespace kueuepp::kube::jobs {

namespace {

constexpr std::string_view kKind = "TrainJob";

std::int64_t number_or(const json::value* v, std::int64_t fallback) {
  return v != nullptr && v->is_number() ? v->to_number<std::int64_t>() : fallback;
}

bool spec_suspended(const client::Object& trainjob) { return trainjob.bool_at({"spec", "suspend"}).value_or(false); }

/// The index of Kueue's runtime patch in spec.runtimePatches, if there is one.
std::optional<std::size_t> kueue_patch_index(const client::Object& trainjob) {
  const json::value* patches = trainjob.find({"spec", "runtimePatches"});
  if (patches == nullptr || !patches->is_array()) return std::nullopt;
  const json::array& list = patches->get_array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (json::get_string(list[i], "manager") == kKueueRuntimePatchManager) return i;
  }
  return std::nullopt;
}

/// Kueue's runtime patch's replicated jobs (what its start injected), or null.
const json::value* injected_jobs(const client::Object& trainjob) {
  auto index = kueue_patch_index(trainjob);
  if (!index) return nullptr;
  const json::value& patch = trainjob.find({"spec", "runtimePatches"})->get_array()[*index];
  const json::value* jobs = json::find_path(patch, {"trainingRuntimeSpec", "template", "spec", "replicatedJobs"});
  return jobs != nullptr && jobs->is_array() && !jobs->get_array().empty() ? jobs : nullptr;
}

/// Kueue's runtime patch of `trainjob`, added when missing (a TrainJob created while the
/// mutating webhook was not called).
json::object& kueue_patch_of(client::Object& trainjob) {
  json::value& patches = trainjob.ensure({"spec", "runtimePatches"});
  if (!patches.is_array()) patches = json::array{};
  auto index = kueue_patch_index(trainjob);
  if (!index) {
    patches.as_array().push_back(kueue_runtime_patch());
    index = patches.as_array().size() - 1;
  }
  return patches.as_array()[*index].as_object();
}

/// The object member `key` of `o`, made an object when it is not one.
json::object& object_member(json::object& o, std::string_view key) {
  json::value& v = o[key];
  if (!v.is_object()) v = json::object{};
  return v.as_object();
}

/// Kueue's runtime patch's JobSet spec patch.
json::object& spec_patch_of(json::object& patch) {
  return object_member(object_member(object_member(patch, "trainingRuntimeSpec"), "template"), "spec");
}

json::object string_map_json(const client::StringMap& map) {
  json::object out;
  for (const auto& [k, v] : map) out[k] = v;
  return out;
}

/// Kueue's ReplicatedJobPatch for one pod set's info.
json::value replicated_job_patch(const PodSetInfo& info) {
  json::object metadata;
  if (!info.annotations.empty()) metadata["annotations"] = string_map_json(info.annotations);
  if (!info.labels.empty()) metadata["labels"] = string_map_json(info.labels);
  json::object spec;
  if (!info.node_selector.empty()) spec["nodeSelector"] = string_map_json(info.node_selector);
  if (!info.tolerations.empty()) spec["tolerations"] = info.tolerations;
  if (!info.scheduling_gates.empty()) spec["schedulingGates"] = info.scheduling_gates;
  return json::object{
      {"name", info.name},
      {"template",
       json::object{{"spec", json::object{{"template", json::object{{"metadata", std::move(metadata)},
                                                                    {"spec", std::move(spec)}}}}}}}};
}

std::string runtime_not_found(const client::Object& trainjob, const TrainingRuntimeRef& ref) {
  std::string where = ref.ns.empty() ? std::string() : " in namespace " + ref.ns;
  return "TrainJob " + trainjob.key() + ": runtime '" + ref.name + "' not found: " + ref.kind + " " + ref.name + where +
         " does not exist; create it and the TrainJob is queued";
}

/// The TrainJob's JobSet, or why there is none.
Expected<client::Object> child_jobset(const client::Object& trainjob, const TrainingRuntimeLookup& runtimes) {
  auto ref = training_runtime_ref(trainjob);
  if (!ref) return unexpected(ref.error());
  const client::Object* runtime = runtimes ? runtimes(*ref) : nullptr;
  if (runtime == nullptr) return fail(runtime_not_found(trainjob, *ref));
  return trainjob_jobset(trainjob, *runtime);
}

/// The PriorityClass the pods ask for: the first replicated job's template naming one.
std::pair<std::string, std::string> pods_priority_class(const client::Object& trainjob,
                                                        const TrainingRuntimeLookup& runtimes) {
  auto jobset = child_jobset(trainjob, runtimes);
  if (!jobset) return {};
  const json::value* rjobs = jobset->find({"spec", "replicatedJobs"});
  if (rjobs == nullptr || !rjobs->is_array()) return {};
  for (const json::value& rjob : rjobs->get_array()) {
    const json::value* name = json::find_path(rjob, {"template", "spec", "template", "spec", "priorityClassName"});
    if (name != nullptr && name->is_string() && !name->get_string().empty()) {
      return {std::string(name->get_string()), "the pod template of replicated job \"" +
                                                   std::string(json::get_string(rjob, "name")) +
                                                   "\" of the TrainJob's runtime, priorityClassName"};
    }
  }
  return {};
}

class TrainJobIntegration final : public JobIntegration {
 public:
  explicit TrainJobIntegration(TrainingRuntimeLookup runtimes) : runtimes_(std::move(runtimes)) {}

  std::string_view framework() const override { return kTrainJobFramework; }
  const client::ResourceDescriptor& resource() const override { return client::resources::kTrainJob; }

  bool suspended(const client::Object& trainjob) const override {
    return spec_suspended(trainjob) && !stopping(trainjob);
  }
  // Suspended with Kueue's injections still in its runtime patch: the restore is due.
  bool stopping(const client::Object& trainjob) const override {
    return spec_suspended(trainjob) && injected_jobs(trainjob) != nullptr;
  }

  bool active(const client::Object& trainjob) const override {
    const json::value* statuses = trainjob.find({"status", "jobsStatus"});
    if (statuses == nullptr || !statuses->is_array()) return false;
    for (const json::value& s : statuses->get_array()) {
      if (number_or(json::find(s, "active"), 0) > 0) return true;
    }
    return false;
  }

  std::optional<JobFinish> finished(const client::Object& trainjob) const override {
    if (auto c = trainjob.condition("Complete"); c && c->status == "True") return JobFinish{true, c->message};
    if (auto c = trainjob.condition("Failed"); c && c->status == "True") return JobFinish{false, c->message};
    return std::nullopt;
  }

  // Kueue counts the JobSet's replicas against the Jobs ready or succeeded.
  bool pods_ready(const client::Object& trainjob) const override {
    auto jobset = child_jobset(trainjob, runtimes_);
    if (!jobset) return false;
    std::int64_t replicas = 0;
    for (const json::value& rjob : jobset->find({"spec", "replicatedJobs"})->get_array()) {
      replicas += number_or(json::find(rjob, "replicas"), 1);
    }
    std::int64_t ready = 0;
    if (const json::value* statuses = trainjob.find({"status", "jobsStatus"}); statuses && statuses->is_array()) {
      for (const json::value& s : statuses->get_array()) {
        ready += number_or(json::find(s, "ready"), 0) + number_or(json::find(s, "succeeded"), 0);
      }
    }
    return replicas == ready;
  }

  Expected<StartResult, InjectionError> start(const client::Object& trainjob, const client::Object& workload,
                                              const FlavorLookup& flavors) const override {
    const json::value* admission = workload.find({"status", "admission"});
    if (admission == nullptr || admission->is_null()) {
      return unexpected(InjectionError{
          "Workload " + workload.key() + " has no admission; TrainJob " + trainjob.key() + " cannot start", false});
    }
    auto infos = pod_set_infos_from_admission(workload, flavors);
    if (!infos) return unexpected(std::move(infos).error());
    // A runtime that went missing may come back: retried, not failed.
    auto jobset = child_jobset(trainjob, runtimes_);
    if (!jobset) return unexpected(InjectionError{jobset.error().message, false});
    const std::size_t rjobs = jobset->find({"spec", "replicatedJobs"})->get_array().size();
    if (infos->size() != rjobs) {
      return unexpected(InjectionError{"invalid podset infos: expecting " + std::to_string(rjobs) + " podset, got " +
                                           std::to_string(infos->size()),
                                       true});
    }
    StartResult out;
    out.job = trainjob;
    json::array patches;
    for (const PodSetInfo& info : *infos) patches.push_back(replicated_job_patch(info));
    spec_patch_of(kueue_patch_of(out.job))["replicatedJobs"] = std::move(patches);
    out.job.ensure({"spec", "suspend"}) = false;
    out.changed = !(out.job.json() == trainjob.json());
    out.patch = merge_patch_diff(trainjob.json(), out.job.json());
    out.message = "Admitted by clusterQueue " + std::string(workload.string_at({"status", "admission", "clusterQueue"}));
    return out;
  }

  std::optional<StopStep> stop(const client::Object& trainjob, const client::Object*) const override {
    const bool injected = injected_jobs(trainjob) != nullptr;
    if (!spec_suspended(trainjob)) {
      client::Object stopped = trainjob;
      stopped.ensure({"spec", "suspend"}) = true;
      return StopStep{merge_patch_diff(trainjob.json(), stopped.json()), false, "suspended", !injected};
    }
    // The trainer refuses a patch change while a child Job is active: the restore waits.
    if (!injected || active(trainjob)) return std::nullopt;
    client::Object restored = trainjob;
    spec_patch_of(kueue_patch_of(restored)).erase("replicatedJobs");
    return StopStep{merge_patch_diff(trainjob.json(), restored.json()), false, "restored its runtime patch", true};
  }

  Expected<client::Object> build_workload(const client::Object& trainjob, const BuildOptions& options) const override {
    if (auto valid = validate_trainjob(trainjob); !valid) return unexpected(valid.error());
    auto queue = owner_queue(trainjob, kKind, options);
    if (!queue) return unexpected(queue.error());
    auto pod_sets =
        trainjob_pod_sets(trainjob, runtimes_, PodSetOptions{options.partial_admission, options.topology_aware_scheduling});
    if (!pod_sets) return unexpected(pod_sets.error());
    auto prio = priority(trainjob, options);
    if (!prio) return unexpected(prio.error());
    return assemble_workload(trainjob, resource(), *queue, std::move(*pod_sets), *prio, options);
  }

  Expected<WorkloadPriority> priority(const client::Object& trainjob, const BuildOptions& options) const override {
    auto [name, field] = pods_priority_class(trainjob, runtimes_);
    return owner_priority(trainjob, kKind, name, field, options);
  }

  // Without its runtime the TrainJob's pod sets are unknown: its Workload is kept, not
  // taken for a stale one (Kueue's reconcile errors out and changes nothing).
  bool equivalent(const client::Object& trainjob, const client::Object& workload,
                  const FlavorLookup& flavors) const override {
    auto pod_sets = trainjob_pod_sets(trainjob, runtimes_);
    if (!pod_sets) return true;
    return equivalent_pod_sets_to_workload(trainjob, json::value(std::move(*pod_sets)), spec_suspended(trainjob),
                                           workload, flavors);
  }

 private:
  TrainingRuntimeLookup runtimes_;
};

}  // namespace

const JobIntegration& trainjob_integration() {
  static const TrainJobIntegration kWithoutRuntimes{TrainingRuntimeLookup{}};
  return kWithoutRuntimes;
}

std::unique_ptr<const JobIntegration> make_trainjob_integration(TrainingRuntimeLookup runtimes) {
  return std::make_unique<const TrainJobIntegration>(std::move(runtimes));
}

Expected<json::array> trainjob_pod_sets(const client::Object& trainjob, const TrainingRuntimeLookup& runtimes,
                                        const PodSetOptions& options) {
  auto jobset = child_jobset(trainjob, runtimes);
  if (!jobset) return unexpected(jobset.error());
  return jobset_pod_sets(*jobset, options);
}

Status validate_trainjob(const client::Object& trainjob) { return validate_owner_labels(trainjob, kKind); }

json::value kueue_runtime_patch() {
  return json::object{
      {"manager", kKueueRuntimePatchManager},
      {"trainingRuntimeSpec", json::object{{"template", json::object{{"spec", json::object{}}}}}}};
}

}  // namespace kueuepp::kube::jobs
