#pragma once

// kueue.x-k8s.io Workload: the unit the engine admits.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/model/labels.hpp"
#include "core/model/resources.hpp"
#include "core/model/scheduling.hpp"
#include "core/model/time.hpp"

namespace kueuepp::core {

struct PodSet {
  std::string name;
  std::int32_t count = 1;
  std::optional<std::int32_t> min_count;
  /// Requests of one pod (see pod_requests()).
  ResourceList per_pod_requests;
  PodPlacement placement;
  /// The pod template's priorityClassName, for priority resolution.
  std::string priority_class_name;
  /// A container whose requests exceed its limits, if any ("cpu in container c").
  std::optional<std::string> invalid_requests;
  /// What the pod set asks for that kueuepp does not implement (a topology request), if
  /// anything: such a workload is never admitted on quota alone.
  std::optional<std::string> unsupported;

  bool operator==(const PodSet&) const = default;
};

struct PodSetAssignment {
  std::string name;
  std::map<std::string, std::string, std::less<>> flavors;  ///< resource -> flavor
  ResourceList resource_usage;                               ///< totals for the pod set
  std::optional<std::int32_t> count;

  bool operator==(const PodSetAssignment&) const = default;
};

struct Admission {
  std::string cluster_queue;
  std::vector<PodSetAssignment> pod_set_assignments;

  bool operator==(const Admission&) const = default;
};

struct Condition {
  std::string type;
  bool status = false;
  std::string reason;
  std::string message;
  Time last_transition{};

  bool operator==(const Condition&) const = default;
};

struct PriorityClassRef {
  enum class Kind { WorkloadPriorityClass, PriorityClass };
  Kind kind = Kind::WorkloadPriorityClass;
  std::string name;

  bool operator==(const PriorityClassRef&) const = default;
};

/// The state of one admission check on a Workload (status.admissionChecks[].state).
enum class CheckState { Pending, Ready, Retry, Rejected };

/// status.admissionChecks[]: what the check's controller says of this workload.
struct AdmissionCheckState {
  std::string name;
  CheckState state = CheckState::Pending;
  Time last_transition{};
  std::string message;
  /// Set by the check's controller with Retry: wait at least this long after
  /// last_transition before the workload competes again.
  std::optional<std::int32_t> requeue_after_seconds;
  std::int32_t retry_count = 0;

  bool operator==(const AdmissionCheckState&) const = default;
};

struct ReclaimablePod {
  std::string name;
  std::int32_t count = 0;

  bool operator==(const ReclaimablePod&) const = default;
};

struct Workload {
  std::string ns;
  std::string name;
  std::string uid;
  Time creation{};
  Labels labels;
  std::string queue_name;
  std::optional<std::int32_t> priority;
  std::optional<PriorityClassRef> priority_class_ref;
  std::int32_t priority_boost = 0;  ///< kueue.x-k8s.io/priority-boost annotation
  std::vector<PodSet> pod_sets;
  bool active = true;
  /// kueue.x-k8s.io/admission-gated-by: while non-empty the workload is not admissible.
  std::vector<std::string> admission_gates;

  // -- status -----------------------------------------------------------------
  std::optional<Admission> admission;
  std::vector<Condition> conditions;
  std::vector<ReclaimablePod> reclaimable_pods;
  std::optional<Time> requeue_at;
  std::int32_t requeue_count = 0;
  std::vector<AdmissionCheckState> admission_checks;

  std::string key() const { return ns + "/" + name; }
  const Condition* condition(std::string_view type) const;
  bool condition_true(std::string_view type) const;

  bool operator==(const Workload&) const = default;
};

inline const Condition* Workload::condition(std::string_view type) const {
  for (const auto& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

inline bool Workload::condition_true(std::string_view type) const {
  const Condition* c = condition(type);
  return c != nullptr && c->status;
}

}  // namespace kueuepp::core
