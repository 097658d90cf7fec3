#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/model/labels.hpp"
#include "core/model/quota.hpp"

namespace kueuepp::core {

enum class QueueingStrategy { BestEffortFIFO, StrictFIFO };
enum class PreemptionPolicy { Never, LowerPriority, LowerOrNewerEqualPriority, Any };
enum class StopPolicy { None, Hold, HoldAndDrain };
enum class FungibilityPolicy { MayStopSearch, TryNextFlavor };
enum class FungibilityPreference { BorrowingOverPreemption, PreemptionOverBorrowing };

struct BorrowWithinCohort {
  bool lower_priority = false;  ///< policy LowerPriority (else Never)
  std::optional<std::int32_t> max_priority_threshold;
  bool operator==(const BorrowWithinCohort&) const = default;
};

struct ClusterQueuePreemption {
  PreemptionPolicy within_cluster_queue = PreemptionPolicy::Never;
  PreemptionPolicy reclaim_within_cohort = PreemptionPolicy::Never;
  std::optional<BorrowWithinCohort> borrow_within_cohort;
  bool operator==(const ClusterQueuePreemption&) const = default;
};

struct FlavorFungibility {
  FungibilityPolicy when_can_borrow = FungibilityPolicy::MayStopSearch;
  FungibilityPolicy when_can_preempt = FungibilityPolicy::TryNextFlavor;
  std::optional<FungibilityPreference> preference;
  bool operator==(const FlavorFungibility&) const = default;
};

/// kueue.x-k8s.io ClusterQueue spec.
struct ClusterQueue {
  std::string name;
  std::string cohort;  ///< empty: no cohort
  std::vector<ResourceGroup> resource_groups;
  /// Unset: no namespace may use this queue. An empty selector allows all.
  std::optional<LabelSelector> namespace_selector;
  QueueingStrategy queueing_strategy = QueueingStrategy::BestEffortFIFO;
  ClusterQueuePreemption preemption;
  FlavorFungibility flavor_fungibility;
  double fair_weight = 1.0;
  StopPolicy stop_policy = StopPolicy::None;
  /// AdmissionCheck names required by the queue (with the flavors they apply to; empty
  /// means all flavors).
  struct AdmissionCheckRef {
    std::string name;
    std::vector<std::string> on_flavors;
    bool operator==(const AdmissionCheckRef&) const = default;
  };
  std::vector<AdmissionCheckRef> admission_checks;
  /// True when the ClusterQueue is being deleted (deletionTimestamp set).
  bool terminating = false;
  /// What the spec asks for that kueuepp does not implement ("sets spec.admissionScope,
  /// and kueuepp does not implement admission fair sharing"): such a queue is inactive
  /// rather than admitting as if it had not been asked.
  std::vector<std::string> unsupported;
  bool operator==(const ClusterQueue&) const = default;
};

/// kueue.x-k8s.io Cohort spec: a node of the cohort tree with its own quota.
struct Cohort {
  std::string name;
  std::string parent;  ///< empty: a root
  std::vector<ResourceGroup> resource_groups;
  double fair_weight = 1.0;
};

/// kueue.x-k8s.io LocalQueue spec.
struct LocalQueue {
  std::string ns;
  std::string name;
  std::string cluster_queue;
  StopPolicy stop_policy = StopPolicy::None;
  double fair_weight = 1.0;
  bool operator==(const LocalQueue&) const = default;
};

/// kueue.x-k8s.io AdmissionCheck (the parts admission depends on).
struct AdmissionCheck {
  std::string name;
  std::string controller_name;
  bool active = false;  ///< status condition Active=True
};

/// core/v1 Namespace (the parts admission depends on).
struct Namespace {
  std::string name;
  Labels labels;
};

/// scheduling.k8s.io PriorityClass.
struct PriorityClass {
  std::string name;
  std::int32_t value = 0;
  bool global_default = false;
};

/// kueue.x-k8s.io WorkloadPriorityClass.
struct WorkloadPriorityClass {
  std::string name;
  std::int32_t value = 0;
};

}  // namespace kueuepp::core
