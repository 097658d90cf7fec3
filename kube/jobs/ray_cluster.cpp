#include "kube/jobs/ray_cluster.hpp"

#include <string>
#include <utility>
#include <vector>

#include "kube/jobs/equivalence.hpp"
#include "kube/jobs/merge_patch_diff.hpp"
#include "kube/jobs/ray_cluster_spec.hpp"

namespace kueuepp::kube::jobs {

namespace {

constexpr std::string_view kKind = "RayCluster";

const json::value& spec_of(const client::Object& cluster) {
  static const json::value kNone = json::object{};
  const json::value* spec = cluster.find({"spec"});
  return spec != nullptr && spec->is_object() ? *spec : kNone;
}

bool cluster_suspended(const client::Object& cluster) { return cluster.bool_at({"spec", "suspend"}).value_or(false); }

bool ready(const client::Object& cluster) { return cluster.string_at({"status", "state"}) == "ready"; }

class RayClusterIntegration final : public JobIntegration {
 public:
  std::string_view framework() const override { return kRayClusterFramework; }
  const client::ResourceDescriptor& resource() const override { return client::resources::kRayCluster; }

  bool suspended(const client::Object& cluster) const override { return cluster_suspended(cluster); }
  // Suspended and restored in one write: never half stopped.
  bool stopping(const client::Object&) const override { return false; }
  bool active(const client::Object& cluster) const override { return ready(cluster); }
  // Kueue never finishes a RayCluster's Workload: the cluster serves until it is deleted.
  std::optional<JobFinish> finished(const client::Object&) const override { return std::nullopt; }
  bool pods_ready(const client::Object& cluster) const override { return ready(cluster); }

  Expected<StartResult, InjectionError> start(const client::Object& cluster, const client::Object& workload,
                                              const FlavorLookup& flavors) const override {
    const json::value* admission = workload.find({"status", "admission"});
    if (admission == nullptr || admission->is_null()) {
      return unexpected(InjectionError{
          "Workload " + workload.key() + " has no admission; RayCluster " + cluster.key() + " cannot start", false});
    }
    auto infos = pod_set_infos_from_admission(workload, flavors);
    if (!infos) return unexpected(std::move(infos).error());
    const std::size_t expected = ray_cluster_pod_set_count(spec_of(cluster));
    if (infos->size() != expected) {
      return unexpected(InjectionError{"invalid podset infos: expecting " + std::to_string(expected) +
                                           " podset, got " + std::to_string(infos->size()),
                                       true});
    }
    StartResult out;
    out.job = cluster;
    out.job.ensure({"spec", "suspend"}) = false;
    if (auto injected = ray_cluster_inject(out.job.ensure({"spec"}), *infos, "RayCluster " + cluster.key());
        !injected) {
      return unexpected(std::move(injected).error());
    }
    out.changed = !(out.job.json() == cluster.json());
    out.patch = merge_patch_diff(cluster.json(), out.job.json());
    out.message = "Admitted by clusterQueue " + std::string(workload.string_at({"status", "admission", "clusterQueue"}));
    return out;
  }

  std::optional<StopStep> stop(const client::Object& cluster, const client::Object* workload) const override {
    client::Object stopped = cluster;
    stopped.ensure({"spec", "suspend"}) = true;
    if (workload != nullptr) {
      const std::vector<PodSetInfo> infos = pod_set_infos_from_spec(*workload);
      // Kueue skips the restore when the pod set count does not match the cluster's.
      if (infos.size() == ray_cluster_pod_set_count(spec_of(cluster))) {
        ray_cluster_restore(stopped.ensure({"spec"}), infos);
      }
    }
    if (stopped.json() == cluster.json()) return std::nullopt;
    return StopStep{merge_patch_diff(cluster.json(), stopped.json()), false, "suspended", true};
  }

  Expected<client::Object> build_workload(const client::Object& cluster, const BuildOptions& options) const override {
    if (auto valid = validate_owner_labels(cluster, kKind); !valid) return unexpected(valid.error());
    auto queue = owner_queue(cluster, kKind, options);
    if (!queue) return unexpected(queue.error());
    auto pod_sets =
        raycluster_pod_sets(cluster, PodSetOptions{options.partial_admission, options.topology_aware_scheduling});
    if (!pod_sets) return unexpected(pod_sets.error());
    auto prio = priority(cluster, options);
    if (!prio) return unexpected(prio.error());
    return assemble_workload(cluster, resource(), *queue, std::move(*pod_sets), *prio, options);
  }

  Expected<WorkloadPriority> priority(const client::Object& cluster, const BuildOptions& options) const override {
    auto [name, field] = ray_cluster_priority_class(spec_of(cluster), "spec");
    return owner_priority(cluster, kKind, name, field, options);
  }

  bool equivalent(const client::Object& cluster, const client::Object& workload,
                  const FlavorLookup& flavors) const override {
    auto pod_sets = raycluster_pod_sets(cluster);
    if (!pod_sets) return false;
    return equivalent_pod_sets_to_workload(cluster, json::value(std::move(*pod_sets)), cluster_suspended(cluster),
                                           workload, flavors);
  }
};

}  // namespace

Expected<json::array> raycluster_pod_sets(const client::Object& cluster, const PodSetOptions& options) {
  return ray_cluster_pod_sets(spec_of(cluster), cluster, "RayCluster " + cluster.key(), options);
}

const JobIntegration& raycluster_integration() {
  static const RayClusterIntegration kRayCluster;
  return kRayCluster;
}

}  // namespace kueuepp::kube::jobs
