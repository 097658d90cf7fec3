#pragma once

// The kueue.x-k8s.io/v1beta2 configuration kinds: ResourceFlavor, ClusterQueue,
// LocalQueue, Cohort and WorkloadPriorityClass. Nested structures the engine parses
// itself (resourceGroups, preemption, fairSharing) are exposed as JSON.

#include <optional>

#include "kube/client/kinds/scheduling.hpp"
#include "kube/client/object.hpp"
#include "kube/client/resource.hpp"

namespace kueuepp::kube::client {

class ResourceFlavor : public Object {
 public:
  using Object::Object;
  ResourceFlavor() = default;
  explicit ResourceFlavor(Object o) : Object(std::move(o)) {}
  static const ResourceDescriptor& resource() { return resources::kResourceFlavor; }

  StringMap node_labels() const { return string_map_at({"spec", "nodeLabels"}); }
  std::vector<Taint> node_taints() const;
  std::vector<Toleration> tolerations() const {
    return read_tolerations(find({"spec", "tolerations"}));
  }
  std::string_view topology_name() const { return string_at({"spec", "topologyName"}); }
};

class ClusterQueue : public Object {
 public:
  using Object::Object;
  ClusterQueue() = default;
  explicit ClusterQueue(Object o) : Object(std::move(o)) {}
  static const ResourceDescriptor& resource() { return resources::kClusterQueue; }

  std::string_view cohort_name() const { return string_at({"spec", "cohortName"}); }
  void set_cohort_name(std::string_view cohort) { ensure({"spec", "cohortName"}) = cohort; }
  /// spec.namespaceSelector (null: matches no namespace; `{}`: every namespace).
  const json::value* namespace_selector() const { return find({"spec", "namespaceSelector"}); }
  const json::value* resource_groups() const { return find({"spec", "resourceGroups"}); }
  const json::value* preemption() const { return find({"spec", "preemption"}); }
  /// None, Hold or HoldAndDrain ("None" when absent).
  std::string_view stop_policy() const;
  /// StrictFIFO or BestEffortFIFO ("BestEffortFIFO" when absent).
  std::string_view queueing_strategy() const;

  /// Status counters the controller publishes.
  void set_workload_counts(std::int64_t pending, std::int64_t reserving, std::int64_t admitted);
};

class LocalQueue : public Object {
 public:
  using Object::Object;
  LocalQueue() = default;
  explicit LocalQueue(Object o) : Object(std::move(o)) {}
  static const ResourceDescriptor& resource() { return resources::kLocalQueue; }

  std::string_view cluster_queue() const { return string_at({"spec", "clusterQueue"}); }
  std::string_view stop_policy() const;
  void set_workload_counts(std::int64_t pending, std::int64_t reserving, std::int64_t admitted);
};

class Cohort : public Object {
 public:
  using Object::Object;
  Cohort() = default;
  explicit Cohort(Object o) : Object(std::move(o)) {}
  static const ResourceDescriptor& resource() { return resources::kCohort; }

  std::string_view parent_name() const { return string_at({"spec", "parentName"}); }
  const json::value* resource_groups() const { return find({"spec", "resourceGroups"}); }
};

class WorkloadPriorityClass : public Object {
 public:
  using Object::Object;
  WorkloadPriorityClass() = default;
  explicit WorkloadPriorityClass(Object o) : Object(std::move(o)) {}
  static const ResourceDescriptor& resource() { return resources::kWorkloadPriorityClass; }

  std::int64_t value() const { return int_at({"value"}).value_or(0); }
  std::string_view description() const { return string_at({"description"}); }
};

}  // namespace kueuepp::kube::client
