// Kueue's classical preemption (pkg/scheduler/preemption/classical): candidates from the
// preemptor's own ClusterQueue (withinClusterQueue) and from the queues of its cohort tree
// that use more than their nominal quota (reclaimWithinCohort, borrowWithinCohort,
// hierarchical reclaim), removed in order until the preemptor fits, then filled back.

#include <algorithm>
#include <span>

#include "core/engine/preemption_candidates.hpp"
#include "core/engine/preemptor.hpp"

namespace kueuepp::core {
namespace {

using preemption::kInClusterQueue;
using preemption::kInCohortReclaimWhileBorrowing;
using preemption::kInCohortReclamation;
using preemption::uses_resources;

enum class Variant { Never, WithinCQ, HierarchicalReclaim, ReclaimWithoutBorrowing, ReclaimWhileBorrowing };

const char* reason_of(Variant v) {
  switch (v) {
    case Variant::WithinCQ: return kInClusterQueue;
    case Variant::HierarchicalReclaim: return kInCohortReclamation;
    case Variant::ReclaimWhileBorrowing: return kInCohortReclaimWhileBorrowing;
    case Variant::ReclaimWithoutBorrowing: return kInCohortReclamation;
    case Variant::Never: break;
  }
  return "Unknown";
}

struct Candidate {
  int workload;
  int lca;  ///< tree node of the subtree root it was found under (-1: own queue)
  Variant variant;
  CandidateOrder order;  ///< filled just before sorting
};

bool borrow_within_cohort_forbidden(const ClusterQueueState& cq) {
  const auto& b = cq.spec.preemption.borrow_within_cohort;
  return !b.has_value() || !b->lower_priority;
}

}  // namespace

bool Preemptor::holds_no_lower(const ClusterQueueState& cq, const Request& r) const {
  auto lowest = cq.holding.min_priority([this](int id) { return ctx_.wl(id).priority(); });
  return !lowest || *lowest >= r.preemptor->priority();
}

Amounts& Preemptor::removable_usage_for(int node) {
  if (removable_used_ > 0 && removable_usage_[removable_used_ - 1].first == node) {
    return removable_usage_[removable_used_ - 1].second;  // candidates come grouped by queue
  }
  if (removable_used_ == removable_usage_.size()) removable_usage_.emplace_back();
  auto& [at, usage] = removable_usage_[removable_used_++];
  at = node;
  usage.clear();
  return usage;
}

std::vector<PreemptionTarget> Preemptor::classical(const Request& r) {
  ClusterQueueState& own = ctx_.cq(r.cq);
  const QuotaTree& tree = ctx_.snapshot;
  const auto& frs = *r.frs;
  const QuotaTree::DenseIndexes dense = tree.dense_indexes(frs);

  auto classify = [&](const WorkloadRecord& cand, bool advantage) {
    if (!uses_resources(cand, frs)) return Variant::Never;
    bool same = cand.cq == r.cq;
    PreemptionPolicy policy = same ? own.spec.preemption.within_cluster_queue
                                   : own.spec.preemption.reclaim_within_cohort;
    if (!satisfies_preemption_policy(*r.preemptor, cand, policy, ctx_.config)) return Variant::Never;
    if (same) return Variant::WithinCQ;
    if (advantage) return Variant::HierarchicalReclaim;
    if (borrow_within_cohort_forbidden(own)) return Variant::ReclaimWithoutBorrowing;
    std::int64_t cp = cand.priority();
    std::int64_t ip = r.preemptor->priority();
    const auto& threshold = own.spec.preemption.borrow_within_cohort->max_priority_threshold;
    if (cp >= ip || (threshold.has_value() && cp > *threshold)) return Variant::ReclaimWithoutBorrowing;
    return Variant::ReclaimWhileBorrowing;
  };
  auto collect_from_cq = [&](int cq_index, int lca, bool advantage, std::vector<Candidate>& out) {
    for (int id : ctx_.cq(cq_index).holding) {
      if (!ctx_.candidate_visible(id) || ctx_.evicted_for_another(id, *r.preemptor)) continue;
      Variant v = classify(ctx_.wl(id), advantage);
      if (v != Variant::Never) out.push_back({id, lca, v, {}});
    }
  };

  std::vector<Candidate> same_queue;
  const PreemptionPolicy within = own.spec.preemption.within_cluster_queue;
  if (within != PreemptionPolicy::Never && !(within == PreemptionPolicy::LowerPriority && holds_no_lower(own, r))) {
    collect_from_cq(r.cq, -1, false, same_queue);
  }
  std::vector<Candidate> hierarchy;
  std::vector<Candidate> priority;
  if (tree.has_parent(own.node) &&
      own.spec.preemption.reclaim_within_cohort != PreemptionPolicy::Never) {
    Amounts remaining;
    bool advantage = tree.quantities_fit_in_quota(own.node, *r.usage, &remaining);
    int previous = -1;
    for (int a = tree.parent(own.node); a != QuotaTree::kNoParent; a = tree.parent(a)) {
      std::vector<Candidate>& list = advantage ? hierarchy : priority;
      // Walk A's subtree, skipping the child subtree already visited and nodes within
      // their nominal quota on the contested resources.
      std::vector<int> stack;
      if (tree.any_borrowing_cq_below(a, dense)) stack.push_back(a);
      while (!stack.empty()) {
        int c = stack.back();
        stack.pop_back();
        for (int cc : tree.child_cohorts(c)) {
          if (cc == previous || tree.within_nominal_dense(cc, dense)) continue;
          stack.push_back(cc);
        }
        for (int q : tree.child_cluster_queues(c)) {
          int qi = ctx_.node_to_cq[static_cast<std::size_t>(q)];
          if (qi == r.cq || qi < 0 || !ctx_.cq(qi).schedulable()) continue;
          if (!tree.within_nominal_dense(q, dense)) collect_from_cq(qi, a, advantage, list);
        }
      }
      Amounts next_remaining;
      bool fits_here = tree.quantities_fit_in_quota(a, remaining, &next_remaining);
      remaining = std::move(next_remaining);
      advantage = advantage || fits_here;
      previous = a;
    }
  }

  if (same_queue.empty() && priority.empty() && hierarchy.empty()) return {};

  bool forbidden = borrow_within_cohort_forbidden(own);
  bool under_nominal = true;
  for (FlavorResource fr : frs) {
    if (tree.quota(own.node, fr).nominal <= tree.usage(own.node, fr)) under_nominal = false;
  }
  std::vector<bool> attempts;
  if ((hierarchy.empty() && priority.empty()) || (forbidden && !under_nominal)) {
    attempts = {true};
  } else if (forbidden && hierarchy.empty()) {
    attempts = {false, true};
  } else {
    attempts = {true, false};
  }

  auto valid = [&](const Candidate& c, bool allow_borrowing) {
    const WorkloadRecord& w = ctx_.wl(c.workload);
    if (w.cq == r.cq) return true;
    if (allow_borrowing && c.variant == Variant::ReclaimWithoutBorrowing) return false;
    int node = ctx_.cq(w.cq).node;
    if (tree.within_nominal_dense(node, dense)) return false;
    for (int n = tree.parent(node); n != QuotaTree::kNoParent; n = tree.parent(n)) {
      if (n == c.lca) break;
      if (tree.within_nominal_dense(n, dense)) return false;
    }
    return true;
  };

  // An attempt removes candidates valid at the time, in order, until the preemptor fits.
  // Removals only free quota and only make more queues within their nominal quota (so
  // fewer candidates valid): if the preemptor does not fit with every candidate valid
  // now removed, the attempt cannot succeed and is dropped, before any sorting: most
  // searches at scale are such (a head over its nominal quota may not reclaim from the
  // cohort, and its own queue holds too little of lower priority), and sorting their
  // candidates for nothing was a large share of the controller (docs/performance.md).
  //
  // The usage is taken out per ClusterQueue, summed: the quota tree ends in the same state
  // for a sum as for its parts in turn (a node passes up what exceeds its own quota either
  // way), and a walk up the tree per workload was half of this check's cost on that shape.
  auto could_succeed = [&](bool allow_borrowing) {
    removable_used_ = 0;
    for (const auto* list : {&same_queue, &priority, &hierarchy}) {
      for (const Candidate& c : *list) {
        if (!valid(c, allow_borrowing)) continue;
        const WorkloadRecord& w = ctx_.wl(c.workload);
        removable_usage_for(ctx_.cq(w.cq).node).add_all(w.usage);
      }
    }
    const auto removable = std::span(removable_usage_).first(removable_used_);
    for (const auto& [node, usage] : removable) ctx_.snapshot.remove_usage(node, usage);
    const bool fit = fits(r, allow_borrowing);
    for (const auto& [node, usage] : removable) ctx_.snapshot.add_usage(node, usage);
    return fit;
  };
  std::erase_if(attempts, [&](bool allow_borrowing) { return !could_succeed(allow_borrowing); });
  if (attempts.empty()) return {};

  Time now = ctx_.now;
  auto order = [&](std::vector<Candidate>& list) {
    // Keys only for the searches that get this far: most stop at could_succeed.
    for (Candidate& c : list) c.order = candidate_order(ctx_.wl(c.workload), r.cq, now);
    std::sort(list.begin(), list.end(), [&](const Candidate& x, const Candidate& y) {
      switch (compare_candidate_order(x.order, y.order)) {
        case OrderCompare::Before: return true;
        case OrderCompare::After: return false;
        case OrderCompare::SameKeys: break;
      }
      return candidate_before(ctx_.wl(x.workload), ctx_.wl(y.workload), r.cq, now);
    });
  };
  order(same_queue);
  order(priority);
  order(hierarchy);
  auto split_evicted = [&](const std::vector<Candidate>& list) {
    auto it = std::find_if(list.begin(), list.end(), [](const Candidate& c) { return !c.order.evicted; });
    return it - list.begin();
  };
  std::vector<Candidate> sequence;
  auto he = split_evicted(hierarchy);
  auto pe = split_evicted(priority);
  auto se = split_evicted(same_queue);
  sequence.insert(sequence.end(), hierarchy.begin(), hierarchy.begin() + he);
  sequence.insert(sequence.end(), priority.begin(), priority.begin() + pe);
  sequence.insert(sequence.end(), same_queue.begin(), same_queue.begin() + se);
  sequence.insert(sequence.end(), hierarchy.begin() + he, hierarchy.end());
  sequence.insert(sequence.end(), priority.begin() + pe, priority.end());
  sequence.insert(sequence.end(), same_queue.begin() + se, same_queue.end());

  for (bool allow_borrowing : attempts) {
    std::vector<PreemptionTarget> targets;
    for (const Candidate& c : sequence) {
      if (!valid(c, allow_borrowing)) continue;
      ctx_.remove_workload(c.workload);
      targets.push_back({c.workload, reason_of(c.variant)});
      if (fits(r, allow_borrowing)) {
        fill_back(r, targets, allow_borrowing);
        for (const auto& t : targets) ctx_.restore_workload(t.workload);
        return targets;
      }
    }
    for (const auto& t : targets) ctx_.restore_workload(t.workload);
  }
  return {};
}

}  // namespace kueuepp::core
