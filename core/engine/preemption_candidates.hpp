#pragma once

// What the classical and the fair-sharing preemption searches share inside the engine:
// the reasons written to victims and the test that a candidate holds contested quota.
// Not part of the Preemptor's interface (see preemptor.hpp).

#include <algorithm>
#include <vector>

#include "core/engine/workload_record.hpp"

namespace kueuepp::core::preemption {

// Kueue's Preempted condition reasons, as written on the victim.
inline constexpr const char* kInClusterQueue = "InClusterQueue";
inline constexpr const char* kInCohortReclamation = "InCohortReclamation";
inline constexpr const char* kInCohortReclaimWhileBorrowing = "InCohortReclaimWhileBorrowing";
inline constexpr const char* kInCohortFairSharing = "InCohortFairSharing";

/// Whether `w` holds quota of one of the flavor-resources that need preemption: evicting
/// a workload that holds none of them frees nothing the preemptor lacks.
inline bool uses_resources(const WorkloadRecord& w, const std::vector<FlavorResource>& frs) {
  for (const auto& [fr, v] : w.usage) {
    if (std::find(frs.begin(), frs.end(), fr) != frs.end()) return true;
  }
  return false;
}

}  // namespace kueuepp::core::preemption
