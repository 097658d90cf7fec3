#pragma once

// Flavor assignment (Kueue's pkg/scheduler/flavorassigner): for each pod set and each
// resource group it requests, the first flavor in the ClusterQueue's order whose node
// labels and taints suit the pods and whose quota can hold the request, honouring flavor
// fungibility (whenCanBorrow, whenCanPreempt, preference) and resuming the scan where the
// previous cycle stopped.

#include <cstdint>
#include <vector>

#include "core/engine/assignment.hpp"
#include "core/engine/preemptor.hpp"
#include "core/engine/scheduling_context.hpp"

namespace kueuepp::core {

class FlavorAssigner {
 public:
  FlavorAssigner(SchedulingContext& ctx, const WorkloadRecord& wl, int cq, Preemptor& oracle)
      : ctx_(ctx), wl_(wl), cq_index_(cq), oracle_(oracle) {}

  /// Assigns flavors for the full counts (empty `counts`) or reduced counts (partial
  /// admission probes).
  Assignment assign(const std::vector<std::int32_t>& counts = {});

  /// Restricts each pod set's resources to the flavors nominated earlier in the cycle
  /// (used when an assignment is recomputed within a cycle).
  void restrict_to(const std::vector<std::vector<std::pair<ResourceId, FlavorId>>>& nomination) {
    nomination_ = &nomination;
  }

 private:
  struct GranularMode {
    PreemptionMode mode = PreemptionMode::NoFit;
    int borrow = 0;
  };
  struct Status {
    std::vector<FitReason> reasons;
    std::string no_fit_reason;
  };
  struct FlavorSearch {
    std::vector<std::pair<ResourceId, FlavorChoice>> flavors;  ///< empty: none found
    bool fit = false;
    Status status;
    std::vector<FlavorAttempt> attempts;
  };

  FlavorSearch find_flavor(std::size_t pod_set, const ResourceAmounts& requests, ResourceId resource,
                           const Amounts& assigned_usage);
  /// Whether the flavor suits the pod set; else why not.
  std::optional<FitReason> check_flavor(std::size_t pod_set, FlavorId flavor) const;
  GranularMode fits_quota(FlavorResource fr, std::int64_t assumed, std::int64_t request, Status& status);
  bool preferred(const GranularMode& a, const GranularMode& b) const;
  bool try_next_flavor(const GranularMode& m) const;
  bool can_preempt_while_borrowing() const;
  void resolve_no_fit_reason(Assignment& a) const;

  SchedulingContext& ctx_;
  const WorkloadRecord& wl_;
  int cq_index_;
  Preemptor& oracle_;
  const std::vector<std::vector<std::pair<ResourceId, FlavorId>>>* nomination_ = nullptr;
};

}  // namespace kueuepp::core
