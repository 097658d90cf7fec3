#pragma once

// kueue.x-k8s.io/v1beta2 Workload: queue, priority, pod sets and the admission the
// scheduler writes into status.

#include <map>
#include <optional>

#include "kube/client/object.hpp"
#include "kube/client/resource.hpp"

namespace kueuepp::kube::client {

struct PodSetAssignment {
  std::string name;
  std::map<std::string, std::string> flavors;         ///< resource → flavor
  std::map<std::string, std::string> resource_usage;  ///< resource → quantity
  std::optional<std::int64_t> count;

  json::value to_json() const;
  static PodSetAssignment from_json(const json::value& v);
  bool operator==(const PodSetAssignment&) const = default;
};

struct Admission {
  std::string cluster_queue;
  std::vector<PodSetAssignment> pod_set_assignments;

  json::value to_json() const;
  static Admission from_json(const json::value& v);
  bool operator==(const Admission&) const = default;
};

struct PriorityClassRef {
  std::string group;  ///< kueue.x-k8s.io or scheduling.k8s.io
  std::string kind;   ///< WorkloadPriorityClass or PriorityClass
  std::string name;
};

struct PodSetInfo {
  std::string name;
  std::int64_t count = 1;
  std::optional<std::int64_t> min_count;
  /// The pod template (null when absent); points into the Workload's document.
  const json::value* pod_template = nullptr;
};

class Workload : public Object {
 public:
  using Object::Object;
  Workload() = default;
  explicit Workload(Object o) : Object(std::move(o)) {}
  static const ResourceDescriptor& resource() { return resources::kWorkload; }

  std::string_view queue_name() const { return string_at({"spec", "queueName"}); }
  void set_queue_name(std::string_view queue) { ensure({"spec", "queueName"}) = queue; }
  std::optional<std::int64_t> priority() const { return int_at({"spec", "priority"}); }
  void set_priority(std::int64_t priority) { ensure({"spec", "priority"}) = priority; }
  std::optional<PriorityClassRef> priority_class_ref() const;
  /// spec.active (true when absent).
  bool active() const { return bool_at({"spec", "active"}).value_or(true); }
  void set_active(bool active) { ensure({"spec", "active"}) = active; }
  std::vector<PodSetInfo> pod_sets() const;

  std::optional<Admission> admission() const;
  /// Sets status.admission; nullopt removes it (eviction).
  void set_admission(const std::optional<Admission>& admission);

  bool has_quota_reservation() const { return condition_true("QuotaReserved"); }
  bool admitted() const { return condition_true("Admitted"); }
  bool finished() const { return condition_true("Finished"); }
  bool evicted() const { return condition_true("Evicted"); }
};

}  // namespace kueuepp::kube::client
