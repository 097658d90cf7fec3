#pragma once

// The result of flavor assignment for one workload (Kueue's flavorassigner.Assignment):
// per pod set the flavor chosen for each resource with its mode, the borrowing level,
// the quota it would use and, when it does not fit, why.

#include <climits>
#include <optional>
#include <string>
#include <vector>

#include "core/engine/ids.hpp"
#include "core/engine/workload_record.hpp"
#include "core/model/resource_flavor.hpp"

namespace kueuepp::core {

/// How a flavor can be assigned, worst to best.
enum class AssignMode { NoFit = 0, Preempt = 1, DeferredFit = 2, Fit = 3 };

/// The finer mode the assigner ranks flavors by, worst to best.
enum class PreemptionMode { NoFit = 0, NoCandidates = 1, Preempt = 2, Reclaim = 3, Fit = 4 };

inline AssignMode to_assign_mode(PreemptionMode m) {
  switch (m) {
    case PreemptionMode::NoFit: return AssignMode::NoFit;
    case PreemptionMode::Fit: return AssignMode::Fit;
    default: return AssignMode::Preempt;
  }
}

const char* to_string(AssignMode m);

struct FlavorChoice {
  FlavorId flavor = 0;
  AssignMode mode = AssignMode::NoFit;
  int tried_index = 0;  ///< where the scan stopped (-1: it reached the last flavor)
  int borrow = 0;
};

/// Why a flavor could not (immediately) take a pod set's resource. Kept structured and
/// rendered to Kueue's message text only when a message is needed: most evaluations of
/// parked workloads repeat the last explanation, which then costs a comparison.
struct FitReason {
  enum class Kind : std::uint8_t {
    ResourceUnavailable,  ///< "resource R unavailable in ClusterQueue"
    FlavorNotFound,       ///< "flavor F not found"
    UntoleratedTaint,     ///< "untolerated taint {T} in flavor F" (a = taint index)
    AffinityMismatch,     ///< "flavor F doesn't match node affinity"
    NotNominated,         ///< "skipping flavor F as it is not found in the nomination mapping for resource R"
    ExceedsMaxQuota,      ///< a = assumed, b = request, c = maximum capacity
    InsufficientUnused,   ///< a = more needed
  };
  Kind kind = Kind::ResourceUnavailable;
  FlavorId flavor = 0;
  ResourceId resource = 0;
  std::int64_t a = 0;
  std::int64_t b = 0;
  std::int64_t c = 0;

  bool operator==(const FitReason&) const = default;
};

/// Resource names print memory-like quantities in binary units, the rest in decimal.
std::string format_amount(const SymbolTable& resources, ResourceId r, std::int64_t milli);

/// Kueue's text for a reason.
std::string render(const FitReason& r, const SymbolTable& resources, const SymbolTable& flavors,
                   const std::vector<const ResourceFlavor*>& flavor_specs);

/// One flavor considered for a pod set, for the "why" of a NoFit.
struct FlavorAttempt {
  FlavorId flavor = 0;
  AssignMode mode = AssignMode::NoFit;
  int borrow = 0;
  std::string_view no_fit_reason;  ///< NoMatchingFlavor, ExceedsMaxQuota, WaitingForQuota, "" (literals)
};


/// "couldn't assign flavors to pod set main: <reasons, sorted>; ..."
std::string render_message(const AssignmentReasons& reasons, const std::vector<std::string>& pod_set_names,
                           const SymbolTable& resources, const SymbolTable& flavors,
                           const std::vector<const ResourceFlavor*>& flavor_specs);

struct PodSetAssignmentResult {
  std::size_t pod_set = 0;
  std::int32_t count = 0;
  std::vector<std::pair<ResourceId, FlavorChoice>> flavors;
  ResourceAmounts requests;  ///< totals at `count` (with "pods" when the queue covers it)
  std::vector<FitReason> reasons;  ///< empty: fits
  std::optional<std::string> error;
  std::vector<FlavorAttempt> attempts;
  std::optional<AssignMode> mode_override;

  AssignMode representative_mode() const;
  const FlavorChoice* flavor_for(ResourceId r) const {
    for (const auto& [res, c] : flavors) {
      if (res == r) return &c;
    }
    return nullptr;
  }
};

struct Assignment {
  std::vector<PodSetAssignmentResult> pod_sets;
  int borrowing = 0;  ///< height of the smallest subtree the usage fits in; 0: no borrowing
  FlavorScanState scan;
  Amounts usage;  ///< quota the workload would hold
  std::string_view no_fit_reason;  ///< a literal
  std::optional<AssignMode> mode_override;

  AssignMode representative_mode() const;
  void set_mode(AssignMode m) { mode_override = m; }
  /// The reasons of every pod set that does not fit (the material of the message).
  AssignmentReasons reasons() const;
};

/// Severity order of NoFit reasons (Kueue's reasonSeverity).
int no_fit_reason_severity(std::string_view reason);
std::string_view most_severe_reason(std::string_view a, std::string_view b);

}  // namespace kueuepp::core
