#include "kube/jobs/kubeflow_job.hpp"

#include <array>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "kube/jobs/equivalence.hpp"
#include "kube/jobs/merge_patch_diff.hpp"

namespace kueuepp::kube::jobs {

namespace {

// Kueue's OrderedReplicaTypes per kind (the training operator's replica type names).
constexpr std::array<std::string_view, 2> kMasterWorker{"Master", "Worker"};
constexpr std::array<std::string_view, 5> kTFTypes{"Chief", "Master", "PS", "Worker", "Evaluator"};
constexpr std::array<std::string_view, 1> kWorkerOnly{"Worker"};
constexpr std::array<std::string_view, 2> kLauncherWorker{"Launcher", "Worker"};

const std::array<KubeflowKind, 6> kKinds{{
    {"kubeflow.org/pytorchjob", &client::resources::kPyTorchJob, "pytorchReplicaSpecs", kMasterWorker},
    {"kubeflow.org/tfjob", &client::resources::kTFJob, "tfReplicaSpecs", kTFTypes},
    {"kubeflow.org/xgboostjob", &client::resources::kXGBoostJob, "xgbReplicaSpecs", kMasterWorker},
    {"kubeflow.org/paddlejob", &client::resources::kPaddleJob, "paddleReplicaSpecs", kMasterWorker},
    {"kubeflow.org/jaxjob", &client::resources::kJAXJob, "jaxReplicaSpecs", kWorkerOnly},
    {"kubeflow.org/mpijob", &client::resources::kMPIJob, "mpiReplicaSpecs", kLauncherWorker},
}};

std::int64_t number_or(const json::value* v, std::int64_t fallback) {
  return v != nullptr && v->is_number() ? v->to_number<std::int64_t>() : fallback;
}

/// kueue.NewPodSetReference: the replica type in lower case.
std::string pod_set_name(std::string_view replica_type) {
  std::string name(replica_type);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

/// The replica spec of `type`, or null when the job has none (a null entry counts as none).
const json::value* replica_spec(const KubeflowKind& kind, const client::Object& job, std::string_view type) {
  const json::value* spec = job.find({"spec", kind.replica_specs_field, type});
  return spec != nullptr && spec->is_object() ? spec : nullptr;
}

/// The replica types present in the job, in Kueue's order.
std::vector<std::string_view> present_types(const KubeflowKind& kind, const client::Object& job) {
  std::vector<std::string_view> out;
  for (std::string_view type : kind.replica_types) {
    if (replica_spec(kind, job, type) != nullptr) out.push_back(type);
  }
  return out;
}

json::value* template_of(json::value& replica) {
  json::value* tmpl = json::find(replica, "template");
  return tmpl != nullptr && tmpl->is_object() ? tmpl : nullptr;
}

bool run_policy_suspended(const client::Object& job) {
  return job.bool_at({"spec", "runPolicy", "suspend"}).value_or(false);
}

/// The first condition of one of `types` with status True (Kueue walks the whole list).
const json::value* first_true(const client::Object& job, std::initializer_list<std::string_view> types) {
  const json::value* conditions = job.find({"status", "conditions"});
  if (conditions == nullptr || !conditions->is_array()) return nullptr;
  for (const json::value& c : conditions->get_array()) {
    if (json::get_string(c, "status") != "True") continue;
    for (std::string_view type : types) {
      if (json::get_string(c, "type") == type) return &c;
    }
  }
  return nullptr;
}

/// Kueue's PriorityClass(): runPolicy.schedulingPolicy.priorityClass, else the first
/// replica template (in Kueue's order) that names one.
std::pair<std::string_view, std::string> pods_priority_class(const KubeflowKind& kind, const client::Object& job) {
  std::string_view policy = job.string_at({"spec", "runPolicy", "schedulingPolicy", "priorityClass"});
  if (!policy.empty()) return {policy, "spec.runPolicy.schedulingPolicy.priorityClass"};
  for (std::string_view type : present_types(kind, job)) {
    const json::value* name = json::find_path(*replica_spec(kind, job, type), {"template", "spec", "priorityClassName"});
    if (name != nullptr && name->is_string() && !name->get_string().empty()) {
      return {name->get_string(),
              "spec." + std::string(kind.replica_specs_field) + "." + std::string(type) + ".template.spec.priorityClassName"};
    }
  }
  return {{}, {}};
}

class KubeflowJobIntegration final : public JobIntegration {
 public:
  explicit KubeflowJobIntegration(const KubeflowKind& kind) : kind_(kind) {}

  std::string_view framework() const override { return kind_.framework; }
  const client::ResourceDescriptor& resource() const override { return *kind_.resource; }

  bool suspended(const client::Object& job) const override { return run_policy_suspended(job); }
  // Suspended and restored in one write: never half stopped.
  bool stopping(const client::Object&) const override { return false; }

  bool active(const client::Object& job) const override {
    const json::value* statuses = job.find({"status", "replicaStatuses"});
    if (statuses == nullptr || !statuses->is_object()) return false;
    for (const auto& entry : statuses->get_object()) {
      if (number_or(json::find(entry.value(), "active"), 0) != 0) return true;
    }
    return false;
  }

  std::optional<JobFinish> finished(const client::Object& job) const override {
    const json::value* c = first_true(job, {"Succeeded", "Failed"});
    if (c == nullptr) return std::nullopt;
    return JobFinish{json::get_string(*c, "type") == "Succeeded", std::string(json::get_string(*c, "message"))};
  }

  bool pods_ready(const client::Object& job) const override { return first_true(job, {"Running"}) != nullptr; }

  Expected<StartResult, InjectionError> start(const client::Object& job, const client::Object& workload,
                                              const FlavorLookup& flavors) const override {
    const json::value* admission = workload.find({"status", "admission"});
    if (admission == nullptr || admission->is_null()) {
      return unexpected(InjectionError{"Workload " + workload.key() + " has no admission; " +
                                           std::string(kind_.resource->kind) + " " + job.key() + " cannot start",
                                       false});
    }
    auto infos = pod_set_infos_from_admission(workload, flavors);
    if (!infos) return unexpected(std::move(infos).error());
    const std::vector<std::string_view> types = present_types(kind_, job);
    if (infos->size() != types.size()) {
      return unexpected(InjectionError{"invalid podset infos: expecting " + std::to_string(types.size()) +
                                           " podset, got " + std::to_string(infos->size()),
                                       true});
    }
    StartResult out;
    out.job = job;
    out.job.ensure({"spec", "runPolicy", "suspend"}) = false;
    // Kueue pairs pod set infos with replica types by position (both in Kueue's order).
    for (std::size_t i = 0; i < types.size(); ++i) {
      json::value* tmpl = template_of(out.job.ensure({"spec", kind_.replica_specs_field, types[i]}));
      if (tmpl == nullptr) {
        return unexpected(InjectionError{what() + " " + job.key() + ": replica type " + std::string(types[i]) +
                                             " has no template",
                                         true});
      }
      if (auto merged = merge_into_template(*tmpl, (*infos)[i]); !merged) {
        return unexpected(InjectionError{what() + " " + job.key() + ": replica type " + std::string(types[i]) + ": " +
                                             merged.error().message,
                                         true});
      }
    }
    out.changed = !(out.job.json() == job.json());
    out.patch = merge_patch_diff(job.json(), out.job.json());
    out.message = "Admitted by clusterQueue " + std::string(workload.string_at({"status", "admission", "clusterQueue"}));
    return out;
  }

  std::optional<StopStep> stop(const client::Object& job, const client::Object* workload) const override {
    client::Object stopped = job;
    stopped.ensure({"spec", "runPolicy", "suspend"}) = true;
    if (workload != nullptr) {
      const std::vector<PodSetInfo> infos = pod_set_infos_from_spec(*workload);
      const std::vector<std::string_view> types = present_types(kind_, job);
      // Kueue skips the restore when the pod set count does not match the job's.
      if (!infos.empty() && infos.size() == types.size()) {
        for (std::size_t i = 0; i < types.size(); ++i) {
          json::value* tmpl = template_of(stopped.ensure({"spec", kind_.replica_specs_field, types[i]}));
          if (tmpl != nullptr) restore_template(*tmpl, infos[i]);
        }
      }
    }
    if (stopped.json() == job.json()) return std::nullopt;
    return StopStep{merge_patch_diff(job.json(), stopped.json()), false, "suspended", true};
  }

  Expected<client::Object> build_workload(const client::Object& job, const BuildOptions& options) const override {
    if (auto valid = validate_kubeflow_job(kind_, job); !valid) return unexpected(valid.error());
    auto queue = owner_queue(job, kind_.resource->kind, options);
    if (!queue) return unexpected(queue.error());
    auto pod_sets =
        kubeflow_pod_sets(kind_, job, PodSetOptions{options.partial_admission, options.topology_aware_scheduling});
    if (!pod_sets) return unexpected(pod_sets.error());
    auto prio = priority(job, options);
    if (!prio) return unexpected(prio.error());
    return assemble_workload(job, resource(), *queue, std::move(*pod_sets), *prio, options);
  }

  Expected<WorkloadPriority> priority(const client::Object& job, const BuildOptions& options) const override {
    auto [name, field] = pods_priority_class(kind_, job);
    return owner_priority(job, kind_.resource->kind, name, field, options);
  }

  bool equivalent(const client::Object& job, const client::Object& workload,
                  const FlavorLookup& flavors) const override {
    auto pod_sets = kubeflow_pod_sets(kind_, job);
    if (!pod_sets) return false;
    return equivalent_pod_sets_to_workload(job, json::value(std::move(*pod_sets)), run_policy_suspended(job), workload,
                                           flavors);
  }

 private:
  std::string what() const { return std::string(kind_.resource->kind); }

  const KubeflowKind& kind_;
};

const JobIntegration& integration_at(std::size_t index) {
  static const std::array<KubeflowJobIntegration, 6> kIntegrations{
      KubeflowJobIntegration(kKinds[0]), KubeflowJobIntegration(kKinds[1]), KubeflowJobIntegration(kKinds[2]),
      KubeflowJobIntegration(kKinds[3]), KubeflowJobIntegration(kKinds[4]), KubeflowJobIntegration(kKinds[5])};
  return kIntegrations[index];
}

}  // namespace

std::span<const KubeflowKind> kubeflow_kinds() { return kKinds; }

const KubeflowKind* find_kubeflow_kind(std::string_view framework) {
  for (const KubeflowKind& k : kKinds) {
    if (k.framework == framework) return &k;
  }
  return nullptr;
}

const JobIntegration& pytorchjob_integration() { return integration_at(0); }
const JobIntegration& tfjob_integration() { return integration_at(1); }
const JobIntegration& xgboostjob_integration() { return integration_at(2); }
const JobIntegration& paddlejob_integration() { return integration_at(3); }
const JobIntegration& jaxjob_integration() { return integration_at(4); }
const JobIntegration& mpijob_integration() { return integration_at(5); }

Expected<json::array> kubeflow_pod_sets(const KubeflowKind& kind, const client::Object& job,
                                        const PodSetOptions& options) {
  const std::string_view what = kind.resource->kind;
  json::array out;
  for (std::string_view type : present_types(kind, job)) {
    const json::value* tmpl = json::find(*replica_spec(kind, job, type), "template");
    if (tmpl == nullptr || !tmpl->is_object()) {
      return fail(std::string(what) + " " + job.key() + ": spec." + std::string(kind.replica_specs_field) + "." +
                  std::string(type) + " has no template; Kueue cannot queue it");
    }
    json::object pod_set;
    pod_set["name"] = pod_set_name(type);
    json::value pod_template = *tmpl;
    if (json::value* spec = json::find(pod_template, "spec"); spec != nullptr && spec->is_object()) {
      sanitize_containers(*spec);
    }
    pod_set["template"] = std::move(pod_template);
    pod_set["count"] = number_or(json::find(*replica_spec(kind, job, type), "replicas"), 1);
    if (options.topology_aware_scheduling) {
      auto req = topology_request(job, *tmpl);
      if (!req) return unexpected(req.error());
      (*req)["podIndexLabel"] = kKubeflowReplicaIndexLabel;
      pod_set["topologyRequest"] = std::move(*req);
    }
    out.push_back(std::move(pod_set));
  }
  if (out.empty()) {
    std::string known;
    for (std::string_view type : kind.replica_types) known += (known.empty() ? "" : ", ") + std::string(type);
    return fail(std::string(what) + " " + job.key() + " has no spec." + std::string(kind.replica_specs_field) +
                " entry of a replica type Kueue knows (" + known + "); Kueue cannot queue it");
  }
  return out;
}

Status validate_kubeflow_job(const KubeflowKind& kind, const client::Object& job) {
  return validate_owner_labels(job, kind.resource->kind);
}

}  // namespace kueuepp::kube::jobs
