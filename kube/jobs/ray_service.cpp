#include "kube/jobs/ray_service.hpp"

#include <string>
#include <utility>
#include <vector>

#include "kube/jobs/equivalence.hpp"
#include "kube/jobs/merge_patch_diff.hpp"
#include "kube/jobs/ray_cluster_spec.hpp"

namespace kueuepp::kube::jobs {

namespace {

constexpr std::string_view kKind = "RayService";
constexpr std::string_view kClusterConfig = "rayClusterConfig";
/// KubeRay's RayServiceReady condition: the service has serve endpoints.
constexpr std::string_view kReadyCondition = "Ready";

const json::value& cluster_spec_of(const client::Object& service) {
  static const json::value kNone = json::object{};
  const json::value* spec = service.find({"spec", kClusterConfig});
  return spec != nullptr && spec->is_object() ? *spec : kNone;
}

bool service_suspended(const client::Object& service) {
  return service.bool_at({"spec", kClusterConfig, "suspend"}).value_or(false);
}

std::string what(const client::Object& service) { return "RayService " + service.key(); }

class RayServiceIntegration final : public JobIntegration {
 public:
  std::string_view framework() const override { return kRayServiceFramework; }
  const client::ResourceDescriptor& resource() const override { return client::resources::kRayService; }

  bool suspended(const client::Object& service) const override { return service_suspended(service); }
  // Suspended and restored in one write: never half stopped.
  bool stopping(const client::Object&) const override { return false; }
  bool active(const client::Object& service) const override { return service.condition_true(kReadyCondition); }
  // A service has no end: Kueue's Finished is always "Running", not finished.
  std::optional<JobFinish> finished(const client::Object&) const override { return std::nullopt; }
  bool pods_ready(const client::Object& service) const override { return service.condition_true(kReadyCondition); }

  Expected<StartResult, InjectionError> start(const client::Object& service, const client::Object& workload,
                                              const FlavorLookup& flavors) const override {
    const json::value* admission = workload.find({"status", "admission"});
    if (admission == nullptr || admission->is_null()) {
      return unexpected(
          InjectionError{"Workload " + workload.key() + " has no admission; " + what(service) + " cannot start", false});
    }
    auto infos = pod_set_infos_from_admission(workload, flavors);
    if (!infos) return unexpected(std::move(infos).error());
    const std::size_t expected = ray_cluster_pod_set_count(cluster_spec_of(service));
    if (infos->size() != expected) {
      return unexpected(InjectionError{"invalid podset infos: expecting " + std::to_string(expected) +
                                           " podset, got " + std::to_string(infos->size()),
                                       true});
    }
    StartResult out;
    out.job = service;
    json::value& cluster = out.job.ensure({"spec", kClusterConfig});
    if (!cluster.is_object()) cluster = json::object{};
    cluster.as_object()["suspend"] = false;
    if (auto injected = ray_cluster_inject(cluster, *infos, what(service)); !injected) {
      return unexpected(std::move(injected).error());
    }
    out.changed = !(out.job.json() == service.json());
    out.patch = merge_patch_diff(service.json(), out.job.json());
    out.message = "Admitted by clusterQueue " + std::string(workload.string_at({"status", "admission", "clusterQueue"}));
    return out;
  }

  std::optional<StopStep> stop(const client::Object& service, const client::Object* workload) const override {
    client::Object stopped = service;
    json::value& cluster = stopped.ensure({"spec", kClusterConfig});
    if (!cluster.is_object()) cluster = json::object{};
    cluster.as_object()["suspend"] = true;
    if (workload != nullptr) {
      const std::vector<PodSetInfo> infos = pod_set_infos_from_spec(*workload);
      // Kueue skips the restore when the pod set count does not match the cluster's.
      if (infos.size() == ray_cluster_pod_set_count(cluster)) ray_cluster_restore(cluster, infos);
    }
    if (stopped.json() == service.json()) return std::nullopt;
    return StopStep{merge_patch_diff(service.json(), stopped.json()), false, "suspended", true};
  }

  Expected<client::Object> build_workload(const client::Object& service, const BuildOptions& options) const override {
    if (auto valid = validate_owner_labels(service, kKind); !valid) return unexpected(valid.error());
    auto queue = owner_queue(service, kKind, options);
    if (!queue) return unexpected(queue.error());
    auto pod_sets =
        rayservice_pod_sets(service, PodSetOptions{options.partial_admission, options.topology_aware_scheduling});
    if (!pod_sets) return unexpected(pod_sets.error());
    auto prio = priority(service, options);
    if (!prio) return unexpected(prio.error());
    return assemble_workload(service, resource(), *queue, std::move(*pod_sets), *prio, options);
  }

  Expected<WorkloadPriority> priority(const client::Object& service, const BuildOptions& options) const override {
    auto [name, field] = ray_cluster_priority_class(cluster_spec_of(service), "spec.rayClusterConfig");
    return owner_priority(service, kKind, name, field, options);
  }

  bool equivalent(const client::Object& service, const client::Object& workload,
                  const FlavorLookup& flavors) const override {
    auto pod_sets = rayservice_pod_sets(service);
    if (!pod_sets) return false;
    return equivalent_pod_sets_to_workload(service, json::value(std::move(*pod_sets)), service_suspended(service),
                                           workload, flavors);
  }
};

}  // namespace

Expected<json::array> rayservice_pod_sets(const client::Object& service, const PodSetOptions& options) {
  if (service.find({"spec", kClusterConfig}) == nullptr) {
    return fail(what(service) + ": spec.rayClusterConfig is missing; Kueue queues a RayService by its cluster");
  }
  return ray_cluster_pod_sets(cluster_spec_of(service), service, what(service), options);
}

const JobIntegration& rayservice_integration() {
  static const RayServiceIntegration kRayService;
  return kRayService;
}

}  // namespace kueuepp::kube::jobs
