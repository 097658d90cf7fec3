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
  using Choices = std::vector<std::pair<ResourceId, FlavorChoice>>;

  /// Finds the flavor for `resource`'s resource group; appends the chosen flavor of
  /// each of the group's resources to `flavors` (nothing when none was found), the
  /// reasons to `reasons` and the flavors tried to `attempts`. Returns whether a flavor
  /// was found.
  bool find_flavor(std::size_t pod_set, const ResourceAmounts& requests, ResourceId resource,
                   const Amounts& assigned_usage, Choices& flavors, std::vector<FitReason>& reasons,
                   std::vector<FlavorAttempt>& attempts);
  /// Whether the flavor suits the pod set; else why not.
  std::optional<FitReason> check_flavor(std::size_t pod_set, FlavorId flavor) const;
  /// Appends why `request` more of `fr` does not fit at once to `reasons`, and sets the
  /// most severe no-fit reason.
  GranularMode fits_quota(FlavorResource fr, std::int64_t assumed, std::int64_t request,
                          std::vector<FitReason>& reasons, std::string_view& no_fit_reason);
  bool preferred(const GranularMode& a, const GranularMode& b) const;
  bool try_next_flavor(const GranularMode& m) const;
  bool can_preempt_while_borrowing() const;
  void resolve_no_fit_reason(Assignment& a) const;

  SchedulingContext& ctx_;
  const WorkloadRecord& wl_;
  int cq_index_;
  Preemptor& oracle_;
  const std::vector<std::vector<std::pair<ResourceId, FlavorId>>>* nomination_ = nullptr;
  // Scratch space reused across the resource groups of one assignment.
  ResourceAmounts group_requests_;
  Choices choices_;
  Choices best_;
};

}  // namespace kueuepp::core
