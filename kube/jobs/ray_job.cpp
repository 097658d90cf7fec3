#include "kube/jobs/ray_job.hpp"

#include <string>
#include <utility>
#include <vector>

#include "kube/jobs/equivalence.hpp"
#include "kube/jobs/merge_patch_diff.hpp"
#include "kube/jobs/ray_cluster_spec.hpp"

namespace kueuepp::kube::jobs {

namespace {

constexpr std::string_view kKind = "RayJob";
constexpr std::string_view kSubmitterPodSet = "submitter";

const json::value& cluster_spec_of(const client::Object& rayjob) {
  static const json::value kNone = json::object{};
  const json::value* spec = rayjob.find({"spec", "rayClusterSpec"});
  return spec != nullptr && spec->is_object() ? *spec : kNone;
}

bool has_cluster_spec(const client::Object& rayjob) {
  const json::value* spec = rayjob.find({"spec", "rayClusterSpec"});
  return spec != nullptr && spec->is_object();
}

bool rayjob_suspended(const client::Object& rayjob) { return rayjob.bool_at({"spec", "suspend"}).value_or(false); }

std::string_view submission_mode(const client::Object& rayjob) {
  return rayjob.string_at({"spec", "submissionMode"});
}

/// K8sJobMode: KubeRay runs `ray job submit` in a Job of its own, one more pod set.
bool submitter_job(const client::Object& rayjob) { return submission_mode(rayjob) == "K8sJobMode"; }

std::size_t expected_pod_sets(const client::Object& rayjob) {
  return ray_cluster_pod_set_count(cluster_spec_of(rayjob)) + (submitter_job(rayjob) ? 1 : 0);
}

/// KubeRay's default submitter container resources.
json::value submitter_resources() {
  json::object limits;
  limits["cpu"] = "1";
  limits["memory"] = "1Gi";
  json::object requests;
  requests["cpu"] = "500m";
  requests["memory"] = "200Mi";
  json::object resources;
  resources["limits"] = std::move(limits);
  resources["requests"] = std::move(requests);
  return resources;
}

/// getSubmitterTemplate: spec.submitterPodTemplate, else KubeRay's default submitter pod
/// (the head's first image, so versions match).
json::value submitter_template(const client::Object& rayjob) {
  if (const json::value* t = rayjob.find({"spec", "submitterPodTemplate"}); t != nullptr && t->is_object()) return *t;
  json::object container;
  container["name"] = kRaySubmitterContainer;
  const json::value* containers = json::find_path(cluster_spec_of(rayjob), {"headGroupSpec", "template", "spec", "containers"});
  if (containers != nullptr && containers->is_array() && !containers->get_array().empty()) {
    container["image"] = json::get_string(containers->get_array()[0], "image");
  }
  container["resources"] = submitter_resources();
  json::object spec;
  spec["containers"] = json::array{std::move(container)};
  spec["restartPolicy"] = "Never";
  json::object tmpl;
  tmpl["spec"] = std::move(spec);
  return tmpl;
}

/// The PriorityClass the pods ask for: the first pod set's template that names one.
std::pair<std::string, std::string> pods_priority_class(const client::Object& rayjob) {
  const json::value& cluster = cluster_spec_of(rayjob);
  auto named = [](const json::value* tmpl) -> std::string_view {
    const json::value* name = tmpl != nullptr ? json::find_path(*tmpl, {"spec", "priorityClassName"}) : nullptr;
    return name != nullptr && name->is_string() ? std::string_view(name->get_string()) : std::string_view{};
  };
  if (auto n = named(json::find_path(cluster, {"headGroupSpec", "template"})); !n.empty()) {
    return {std::string(n), "spec.rayClusterSpec.headGroupSpec.template.spec.priorityClassName"};
  }
  const json::array& groups = ray_worker_groups(cluster);
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (auto n = named(json::find(groups[i], "template")); !n.empty()) {
      return {std::string(n),
              "spec.rayClusterSpec.workerGroupSpecs[" + std::to_string(i) + "].template.spec.priorityClassName"};
    }
  }
  if (submitter_job(rayjob)) {
    if (auto n = named(rayjob.find({"spec", "submitterPodTemplate"})); !n.empty()) {
      return {std::string(n), "spec.submitterPodTemplate.spec.priorityClassName"};
    }
  }
  return {};
}

class RayJobIntegration final : public JobIntegration {
 public:
  std::string_view framework() const override { return kRayJobFramework; }
  const client::ResourceDescriptor& resource() const override { return client::resources::kRayJob; }

  bool suspended(const client::Object& rayjob) const override { return rayjob_suspended(rayjob); }
  // Suspended and restored in one write: never half stopped.
  bool stopping(const client::Object&) const override { return false; }

  // Kueue's reading: only Suspended and New have no pods (an empty status counts as active).
  bool active(const client::Object& rayjob) const override {
    const std::string_view status = rayjob.string_at({"status", "jobDeploymentStatus"});
    return status != "Suspended" && status != "New";
  }

  std::optional<JobFinish> finished(const client::Object& rayjob) const override {
    const std::string_view status = rayjob.string_at({"status", "jobDeploymentStatus"});
    if (status != "Complete" && status != "Failed") return std::nullopt;
    return JobFinish{rayjob.string_at({"status", "jobStatus"}) == "SUCCEEDED",
                     std::string(rayjob.string_at({"status", "message"}))};
  }

  bool pods_ready(const client::Object& rayjob) const override {
    return rayjob.string_at({"status", "rayClusterStatus", "state"}) == "ready";
  }

  Expected<StartResult, InjectionError> start(const client::Object& rayjob, const client::Object& workload,
                                              const FlavorLookup& flavors) const override {
    const json::value* admission = workload.find({"status", "admission"});
    if (admission == nullptr || admission->is_null()) {
      return unexpected(InjectionError{
          "Workload " + workload.key() + " has no admission; RayJob " + rayjob.key() + " cannot start", false});
    }
    if (!has_cluster_spec(rayjob)) {
      return unexpected(InjectionError{"RayJob " + rayjob.key() + " has no spec.rayClusterSpec", true});
    }
    auto infos = pod_set_infos_from_admission(workload, flavors);
    if (!infos) return unexpected(std::move(infos).error());
    const std::size_t expected = expected_pod_sets(rayjob);
    if (infos->size() != expected) {
      return unexpected(InjectionError{"invalid podset infos: expecting " + std::to_string(expected) +
                                           " podset, got " + std::to_string(infos->size()),
                                       true});
    }
    StartResult out;
    out.job = rayjob;
    out.job.ensure({"spec", "suspend"}) = false;
    const std::string what = "RayJob " + rayjob.key();
    if (auto injected = ray_cluster_inject(out.job.ensure({"spec", "rayClusterSpec"}), *infos, what); !injected) {
      return unexpected(std::move(injected).error());
    }
    if (submitter_job(rayjob)) {
      json::value tmpl = submitter_template(rayjob);
      if (auto merged = merge_into_template(tmpl, infos->back()); !merged) {
        return unexpected(InjectionError{what + ": submitter: " + merged.error().message, true});
      }
      out.job.ensure({"spec", "submitterPodTemplate"}) = std::move(tmpl);
    }
    out.changed = !(out.job.json() == rayjob.json());
    out.patch = merge_patch_diff(rayjob.json(), out.job.json());
    out.message = "Admitted by clusterQueue " + std::string(workload.string_at({"status", "admission", "clusterQueue"}));
    return out;
  }

  std::optional<StopStep> stop(const client::Object& rayjob, const client::Object* workload) const override {
    client::Object stopped = rayjob;
    stopped.ensure({"spec", "suspend"}) = true;
    if (workload != nullptr && has_cluster_spec(rayjob)) {
      const std::vector<PodSetInfo> infos = pod_set_infos_from_spec(*workload);
      // Kueue skips the restore when the pod set count does not match the RayJob's.
      if (infos.size() == expected_pod_sets(rayjob)) {
        ray_cluster_restore(stopped.ensure({"spec", "rayClusterSpec"}), infos);
        // Only a submitter template the RayJob has is restored (the default one is not kept).
        if (submitter_job(rayjob) && rayjob.find({"spec", "submitterPodTemplate"}) != nullptr) {
          json::value& tmpl = stopped.ensure({"spec", "submitterPodTemplate"});
          if (tmpl.is_object()) restore_template(tmpl, infos.back());
        }
      }
    }
    if (stopped.json() == rayjob.json()) return std::nullopt;
    return StopStep{merge_patch_diff(rayjob.json(), stopped.json()), false, "suspended", true};
  }

  Expected<client::Object> build_workload(const client::Object& rayjob, const BuildOptions& options) const override {
    if (auto valid = validate_owner_labels(rayjob, kKind); !valid) return unexpected(valid.error());
    auto queue = owner_queue(rayjob, kKind, options);
    if (!queue) return unexpected(queue.error());
    auto pod_sets = rayjob_pod_sets(rayjob, PodSetOptions{options.partial_admission, options.topology_aware_scheduling});
    if (!pod_sets) return unexpected(pod_sets.error());
    auto prio = priority(rayjob, options);
    if (!prio) return unexpected(prio.error());
    return assemble_workload(rayjob, resource(), *queue, std::move(*pod_sets), *prio, options);
  }

  Expected<WorkloadPriority> priority(const client::Object& rayjob, const BuildOptions& options) const override {
    auto [name, field] = pods_priority_class(rayjob);
    return owner_priority(rayjob, kKind, name, field, options);
  }

  bool equivalent(const client::Object& rayjob, const client::Object& workload,
                  const FlavorLookup& flavors) const override {
    auto pod_sets = rayjob_pod_sets(rayjob);
    if (!pod_sets) return false;
    return equivalent_pod_sets_to_workload(rayjob, json::value(std::move(*pod_sets)), rayjob_suspended(rayjob), workload,
                                           flavors);
  }
};

}  // namespace

Expected<json::array> rayjob_pod_sets(const client::Object& rayjob, const PodSetOptions& options) {
  const std::string what = "RayJob " + rayjob.key();
  if (!has_cluster_spec(rayjob)) {
    return fail(what + " has no spec.rayClusterSpec (a RayJob on an existing cluster is not queued by Kueue)");
  }
  auto pod_sets = ray_cluster_pod_sets(cluster_spec_of(rayjob), rayjob, what, options);
  if (!pod_sets) return unexpected(pod_sets.error());
  if (submitter_job(rayjob)) {
    json::object submitter;
    submitter["name"] = kSubmitterPodSet;
    json::value tmpl = submitter_template(rayjob);
    submitter["template"] = tmpl;
    submitter["count"] = 1;
    if (options.topology_aware_scheduling) {
      auto req = ray_topology_request(rayjob, tmpl);
      if (!req) return unexpected(req.error());
      if (*req) submitter["topologyRequest"] = std::move(**req);
    }
    pod_sets->push_back(std::move(submitter));
  } else if (submission_mode(rayjob) == "SidecarMode") {
    // KubeRay adds the submitter container to the head pod, with its default resources.
    json::value* spec = json::find((*pod_sets)[0], "template");
    spec = spec != nullptr ? json::find(*spec, "spec") : nullptr;
    json::value* containers = spec != nullptr ? json::find(*spec, "containers") : nullptr;
    if (containers != nullptr && containers->is_array()) {
      json::object container;
      container["name"] = kRaySubmitterContainer;
      container["resources"] = submitter_resources();
      containers->as_array().push_back(std::move(container));
    }
  }
  return pod_sets;
}

const JobIntegration& rayjob_integration() {
  static const RayJobIntegration kRayJob;
  return kRayJob;
}

}  // namespace kueuepp::kube::jobs
