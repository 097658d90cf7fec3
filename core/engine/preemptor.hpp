#pragma once

// Preemption target selection (Kueue's pkg/scheduler/preemption): the classical
// algorithm (withinClusterQueue, reclaimWithinCohort, borrowWithinCohort, hierarchical
// reclaim, minimal victim set by fill-back) and the fair-sharing algorithm (dominant
// resource share strategies). Victims are simulated by taking their usage out of the
// cycle's snapshot and always put back before returning. The two searches live in
// preemptor_classical.cpp and preemptor_fair_sharing.cpp.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/engine/scheduling_context.hpp"

namespace kueuepp::core {

struct PreemptionTarget {
  int workload = -1;
  std::string reason;  ///< InClusterQueue, InCohortReclamation, InCohortReclaimWhileBorrowing, InCohortFairSharing
};

enum class PreemptionPossibility { NoCandidates, Preempt, Reclaim };

class Preemptor {
 public:
  explicit Preemptor(SchedulingContext& ctx) : ctx_(ctx) {}

  /// The workloads to evict so that `usage` fits for `preemptor` in ClusterQueue `cq`;
  /// empty when no set of allowed victims makes it fit. `frs` are the flavor-resources
  /// whose assignment needs preemption.
  std::vector<PreemptionTarget> targets(const WorkloadRecord& preemptor, int cq,
                                        const Amounts& usage,
                                        const std::vector<FlavorResource>& frs);

  /// The flavor assigner's oracle: could `quantity` of `fr` be made available by
  /// preemption, and at which borrowing level would it then be?
  std::pair<PreemptionPossibility, int> simulate(const WorkloadRecord& preemptor, int cq,
                                                 FlavorResource fr, std::int64_t quantity);

  /// Forgets the oracle's last search. Called whenever the snapshot may have changed
  /// since it ran (a new evaluation starts).
  void forget_last_search() { last_search_.reset(); }

 private:
  struct Request {
    const WorkloadRecord* preemptor;
    int cq;
    const Amounts* usage;
    const std::vector<FlavorResource>* frs;
  };
  std::vector<PreemptionTarget> search(const Request& r);
  std::vector<PreemptionTarget> classical(const Request& r);
  /// Whether `cq` holds nothing of lower priority than the preemptor (nothing at all
  /// included): LowerPriority finds no candidate there.
  bool holds_no_lower(const ClusterQueueState& cq, const Request& r) const;
  std::vector<PreemptionTarget> fair(const Request& r);
  bool fits(const Request& r, bool allow_borrowing) const;
  void fill_back(const Request& r, std::vector<PreemptionTarget>& targets, bool allow_borrowing);
  /// The next entry of removable_usage_ for `node` (the current last one if it is that
  /// node's), cleared when new.
  Amounts& removable_usage_for(int node);

  SchedulingContext& ctx_;
  Amounts scratch_usage_;
  std::vector<FlavorResource> scratch_frs_;
  /// The oracle's last search. The evaluation that made it mostly asks for the same
  /// targets next (the flavor it chose needs exactly that resource preempted), with
  /// nothing changed in between: that search is not run twice.
  struct LastSearch {
    const WorkloadRecord* preemptor = nullptr;
    int cq = -1;
    Amounts usage;
    std::vector<FlavorResource> frs;
    std::vector<PreemptionTarget> targets;
  };
  std::optional<LastSearch> last_search_;
  /// The usage an attempt could remove, summed per ClusterQueue node (classical's early
  /// check). Entries are reused across calls: the first `removable_used_` are current.
  std::vector<std::pair<int, Amounts>> removable_usage_;
  std::size_t removable_used_ = 0;
};

/// Kueue's CandidatesOrdering: evicted first, other ClusterQueues before the
/// preemptor's, lower priority first, most recently reserved first, then UID.
bool candidate_before(const WorkloadRecord& a, const WorkloadRecord& b, int preemptor_cq, Time now);

/// candidate_before's keys of one candidate, taken once before sorting: the sort compared
/// two workload records (scattered in memory) per step and, for the many candidates
/// reserved within the same second, their UIDs as strings (docs/performance.md).
/// `uid_prefix` holds the UID's first 8 bytes big-endian, so integers compare as the
/// strings' prefixes do.
struct CandidateOrder {
  bool evicted = false;
  bool own = false;
  std::int64_t priority = 0;
  Time reserved_at{};
  std::uint64_t uid_prefix = 0;
};
CandidateOrder candidate_order(const WorkloadRecord& w, int preemptor_cq, Time now);
/// candidate_before on the keys. Equal keys (the same UID prefix) leave the order to the
/// full UIDs: the caller compares them (rare).
enum class OrderCompare { Before, After, SameKeys };
OrderCompare compare_candidate_order(const CandidateOrder& a, const CandidateOrder& b);

/// Whether `policy` allows `preemptor` to preempt `candidate`.
bool satisfies_preemption_policy(const WorkloadRecord& preemptor, const WorkloadRecord& candidate,
                                 PreemptionPolicy policy, const EngineConfig& config);

/// The timestamp a workload is ordered by in its queue.
Time queue_order_timestamp(const WorkloadRecord& w, const EngineConfig& config);

}  // namespace kueuepp::core
