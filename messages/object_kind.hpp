#pragma once

// The Kubernetes kinds the controller watches or writes, as a compact tag for messages.
// kAllObjectKinds lists the watched ones.

#include <cstdint>
#include <string_view>

namespace kueuepp::messages {

enum class ObjectKind : std::uint8_t {
  ResourceFlavor,
  ClusterQueue,
  Cohort,
  LocalQueue,
  WorkloadPriorityClass,
  PriorityClass,
  Namespace,
  AdmissionCheck,
  Workload,
  Job,
  Event,  ///< written only (core/v1 Events), never watched
};

inline constexpr ObjectKind kAllObjectKinds[] = {
    ObjectKind::ResourceFlavor, ObjectKind::ClusterQueue,          ObjectKind::Cohort,
    ObjectKind::LocalQueue,     ObjectKind::WorkloadPriorityClass, ObjectKind::PriorityClass,
    ObjectKind::Namespace,      ObjectKind::AdmissionCheck,        ObjectKind::Workload,
    ObjectKind::Job,
};

constexpr std::string_view to_string(ObjectKind kind) {
  switch (kind) {
    case ObjectKind::ResourceFlavor: return "ResourceFlavor";
    case ObjectKind::ClusterQueue: return "ClusterQueue";
    case ObjectKind::Cohort: return "Cohort";
    case ObjectKind::LocalQueue: return "LocalQueue";
    case ObjectKind::WorkloadPriorityClass: return "WorkloadPriorityClass";
    case ObjectKind::PriorityClass: return "PriorityClass";
    case ObjectKind::Namespace: return "Namespace";
    case ObjectKind::AdmissionCheck: return "AdmissionCheck";
    case ObjectKind::Workload: return "Workload";
    case ObjectKind::Job: return "Job";
    case ObjectKind::Event: return "Event";
  }
  return "Unknown";
}

}  // namespace kueuepp::messages
