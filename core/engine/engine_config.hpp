#pragma once

// The parts of Kueue's manager Configuration that change admission decisions.

#include <string>
#include <vector>

namespace kueuepp::core {

enum class FairSharingStrategy { LessThanOrEqualToFinalShare, LessThanInitialShare };

struct ResourceTransformation {
  std::string input;
  bool replace = false;  ///< strategy Replace (default Retain)
  std::string multiply_by;
  std::vector<std::pair<std::string, std::string>> outputs;  ///< resource -> quantity text
};

struct EngineConfig {
  /// config.fairSharing present.
  bool fair_sharing = false;
  std::vector<FairSharingStrategy> fair_sharing_strategies = {
      FairSharingStrategy::LessThanOrEqualToFinalShare, FairSharingStrategy::LessThanInitialShare};
  /// QuotaCheckStrategy IgnoreUndeclared (default BlockUndeclared).
  bool ignore_undeclared_resources = false;
  /// config.resources.excludeResourcePrefixes.
  std::vector<std::string> exclude_resource_prefixes;
  /// waitForPodsReady.requeuingStrategy.timestamp == Eviction (the default).
  bool requeue_by_eviction_timestamp = true;
  /// PartialAdmission feature gate (beta, on).
  bool partial_admission = true;
  /// PriorityBoost feature gate (alpha, off): the kueue.x-k8s.io/priority-boost
  /// annotation adds to a workload's priority.
  bool priority_boost = false;
  /// waitForPodsReady enabled with blockAdmission: no new admission while any workload
  /// holding quota has not reached PodsReady (Kueue blocks its scheduler until then).
  bool block_admission_until_pods_ready = false;
};

}  // namespace kueuepp::core
