// Kueue's fair-sharing preemption (pkg/scheduler/preemption, fairPreemptions): victims
// taken from the ClusterQueues with the highest dominant resource share first, each
// admitted only when the configured strategy (LessThanOrEqualToFinalShare, then
// LessThanInitialShare on the candidates the first one passed over) says the preemptor
// would not end up with a larger share than its victim.

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "core/engine/preemption_candidates.hpp"
#include "core/engine/preemptor.hpp"

namespace kueuepp::core {
namespace {

using preemption::kInClusterQueue;
using preemption::kInCohortFairSharing;
using preemption::kInCohortReclamation;
using preemption::uses_resources;

/// Kueue's TargetClusterQueueOrdering: walks the cohort tree from the root towards the
/// most-borrowing ClusterQueue that still has candidates.
class TargetOrdering {
 public:
  TargetOrdering(SchedulingContext& ctx, int preemptor_cq, const std::vector<int>& candidates)
      : ctx_(ctx), preemptor_cq_(preemptor_cq) {
    const QuotaTree& t = ctx_.snapshot;
    for (int a = t.parent(ctx_.cq(preemptor_cq).node); a != QuotaTree::kNoParent; a = t.parent(a)) {
      ancestors_.insert(a);
    }
    for (int id : candidates) per_cq_[ctx_.wl(id).cq].push_back(id);
  }

  /// The next target ClusterQueue, or -1 when none is left.
  int next() {
    const QuotaTree& t = ctx_.snapshot;
    int own_node = ctx_.cq(preemptor_cq_).node;
    if (!t.has_parent(own_node)) {
      return (!pruned_cqs_.contains(preemptor_cq_) && has_workload(preemptor_cq_)) ? preemptor_cq_ : -1;
    }
    while (!pruned_cohorts_.contains(t.root())) {
      int cq = next_in(t.root());
      if (cq >= 0) return cq;
    }
    return -1;
  }

  bool has_workload(int cq) const {
    auto it = per_cq_.find(cq);
    return it != per_cq_.end() && !it->second.empty();
  }
  int pop(int cq) {
    auto& list = per_cq_[cq];
    int id = list.front();
    list.erase(list.begin());
    return id;
  }
  void drop(int cq) { pruned_cqs_.insert(cq); }

  /// (preemptor's almost-LCA share, target's almost-LCA share).
  std::pair<DominantResourceShare, DominantResourceShare> shares(int target_cq) const {
    int lca = lca_of(target_cq);
    return {drs(almost_lca(ctx_.cq(preemptor_cq_).node, lca)),
            drs(almost_lca(ctx_.cq(target_cq).node, lca))};
  }
  DominantResourceShare target_share_after_removal(int target_cq, int workload) {
    const WorkloadRecord& w = ctx_.wl(workload);
    int node = ctx_.cq(target_cq).node;
    ctx_.snapshot.remove_usage(node, w.usage);
    DominantResourceShare d = drs(almost_lca(node, lca_of(target_cq)));
    ctx_.snapshot.add_usage(node, w.usage);
    return d;
  }

 private:
  DominantResourceShare drs(int node) const {
    return ctx_.snapshot.dominant_resource_share(node, nullptr, ctx_.resource_names);
  }
  int lca_of(int target_cq) const {
    const QuotaTree& t = ctx_.snapshot;
    for (int a = t.parent(ctx_.cq(target_cq).node); a != QuotaTree::kNoParent; a = t.parent(a)) {
      if (ancestors_.contains(a)) return a;
    }
    return t.root();
  }
  int almost_lca(int node, int lca) const {
    const QuotaTree& t = ctx_.snapshot;
    int child = node;
    for (int a = t.parent(node); a != QuotaTree::kNoParent; a = t.parent(a)) {
      if (a == lca) return child;
      child = a;
    }
    return child;
  }

  int next_in(int cohort) {
    const QuotaTree& t = ctx_.snapshot;
    int best_cq = -1;
    DominantResourceShare best_cq_drs = DominantResourceShare::negative();
    for (int q : t.child_cluster_queues(cohort)) {
      int qi = ctx_.node_to_cq[static_cast<std::size_t>(q)];
      if (qi < 0 || !ctx_.cq(qi).schedulable() || pruned_cqs_.contains(qi)) continue;
      DominantResourceShare d = drs(q);
      int c = compare_drs(d, best_cq_drs);
      if ((!d.borrowing && qi != preemptor_cq_) || !has_workload(qi)) {
        pruned_cqs_.insert(qi);
      } else if (c == 0) {
        int nw = per_cq_[qi].front();
        int cw = per_cq_[best_cq].front();
        if (candidate_before(ctx_.wl(nw), ctx_.wl(cw), preemptor_cq_, ctx_.now)) best_cq = qi;
      } else if (c == 1) {
        best_cq_drs = d;
        best_cq = qi;
      }
    }
    int best_cohort = -1;
    DominantResourceShare best_cohort_drs = DominantResourceShare::negative();
    for (int cc : t.child_cohorts(cohort)) {
      if (pruned_cohorts_.contains(cc)) continue;
      DominantResourceShare d = drs(cc);
      if (!d.borrowing && !ancestors_.contains(cc)) {
        pruned_cohorts_.insert(cc);
      } else if (compare_drs(d, best_cohort_drs) >= 0) {
        best_cohort_drs = d;
        best_cohort = cc;
      }
    }
    if (best_cohort < 0 && best_cq < 0) {
      pruned_cohorts_.insert(cohort);
      return -1;
    }
    if (compare_drs(best_cohort_drs, best_cq_drs) >= 0) return next_in(best_cohort);
    return best_cq;
  }

  SchedulingContext& ctx_;
  int preemptor_cq_;
  std::unordered_set<int> ancestors_;
  std::unordered_map<int, std::vector<int>> per_cq_;
  std::unordered_set<int> pruned_cqs_;
  std::unordered_set<int> pruned_cohorts_;
};

}  // namespace

std::vector<PreemptionTarget> Preemptor::fair(const Request& r) {
  ClusterQueueState& own = ctx_.cq(r.cq);
  QuotaTree& tree = ctx_.snapshot;
  const auto& frs = *r.frs;

  std::vector<int> candidates;
  auto add_from = [&](int cq_index, PreemptionPolicy policy) {
    for (int id : ctx_.cq(cq_index).holding) {
      if (!ctx_.candidate_visible(id) || ctx_.evicted_for_another(id, *r.preemptor)) continue;
      const WorkloadRecord& w = ctx_.wl(id);
      if (!satisfies_preemption_policy(*r.preemptor, w, policy, ctx_.config)) continue;
      if (!uses_resources(w, frs)) continue;
      candidates.push_back(id);
    }
  };
  if (own.spec.preemption.within_cluster_queue != PreemptionPolicy::Never) {
    add_from(r.cq, own.spec.preemption.within_cluster_queue);
  }
  if (tree.has_parent(own.node) && own.spec.preemption.reclaim_within_cohort != PreemptionPolicy::Never) {
    // Every other ClusterQueue of the tree that borrows a contested pair, found by
    // descending only into subtrees where some queue borrows.
    const QuotaTree::DenseIndexes dense = tree.dense_indexes(frs);
    std::vector<int> stack;
    if (tree.any_borrowing_cq_below(tree.root(), dense)) stack.push_back(tree.root());
    std::vector<int> borrowing;
    while (!stack.empty()) {
      int c = stack.back();
      stack.pop_back();
      for (int cc : tree.child_cohorts(c)) {
        if (tree.any_borrowing_cq_below(cc, dense)) stack.push_back(cc);
      }
      for (int q : tree.child_cluster_queues(c)) {
        int qi = ctx_.node_to_cq[static_cast<std::size_t>(q)];
        if (qi < 0 || qi == r.cq || !ctx_.cq(qi).schedulable()) continue;
        if (tree.any_borrowing_cq_below(q, dense)) borrowing.push_back(qi);
      }
    }
    std::sort(borrowing.begin(), borrowing.end());
    for (int qi : borrowing) add_from(qi, own.spec.preemption.reclaim_within_cohort);
  }
  if (candidates.empty()) return {};
  std::sort(candidates.begin(), candidates.end(), [&](int a, int b) {
    return candidate_before(ctx_.wl(a), ctx_.wl(b), r.cq, ctx_.now);
  });

  // Shares are computed as if the preemptor were already admitted.
  tree.add_usage(own.node, *r.usage);
  auto fits_fs = [&] {
    tree.remove_usage(own.node, *r.usage);
    bool ok = fits(r, true);
    tree.add_usage(own.node, *r.usage);
    return ok;
  };

  bool within_nominal = true;
  for (FlavorResource fr : frs) {
    if (tree.borrowing_with(own.node, fr, 0)) within_nominal = false;
  }

  std::vector<PreemptionTarget> targets;
  std::vector<int> retry;
  bool done = false;
  {
    TargetOrdering ordering(ctx_, r.cq, candidates);
    const auto strategy = ctx_.config.fair_sharing_strategies.empty()
                              ? FairSharingStrategy::LessThanOrEqualToFinalShare
                              : ctx_.config.fair_sharing_strategies.front();
    for (int target = ordering.next(); target >= 0 && !done; target = ordering.next()) {
      if (target == r.cq) {
        int w = ordering.pop(target);
        ctx_.remove_workload(w);
        targets.push_back({w, kInClusterQueue});
        if (fits_fs()) done = true;
        continue;
      }
      if (within_nominal) {
        int w = ordering.pop(target);
        ctx_.remove_workload(w);
        targets.push_back({w, kInCohortReclamation});
        if (fits_fs()) done = true;
        continue;
      }
      auto [preemptor_new, target_old] = ordering.shares(target);
      if (preemptor_new.zero_weight_borrows() && !target_old.zero_weight_borrows()) {
        while (ordering.has_workload(target)) retry.push_back(ordering.pop(target));
        continue;
      }
      while (ordering.has_workload(target)) {
        int w = ordering.pop(target);
        DominantResourceShare target_new = ordering.target_share_after_removal(target, w);
        bool passed = strategy == FairSharingStrategy::LessThanOrEqualToFinalShare
                          ? compare_drs(preemptor_new, target_new) <= 0
                          : compare_drs(preemptor_new, target_old) < 0;
        if (passed) {
          ctx_.remove_workload(w);
          targets.push_back({w, kInCohortFairSharing});
          if (fits_fs()) done = true;
          break;
        }
        retry.push_back(w);
      }
    }
  }
  if (!done && ctx_.config.fair_sharing_strategies.size() > 1) {
    TargetOrdering ordering(ctx_, r.cq, retry);
    for (int target = ordering.next(); target >= 0 && !done; target = ordering.next()) {
      auto [preemptor_new, target_old] = ordering.shares(target);
      int w = ordering.pop(target);
      if (compare_drs(preemptor_new, target_old) < 0) {
        ctx_.remove_workload(w);
        targets.push_back({w, kInCohortFairSharing});
        if (fits_fs()) done = true;
      }
      ordering.drop(target);
    }
  }
  tree.remove_usage(own.node, *r.usage);
  if (!done) {
    for (const auto& t : targets) ctx_.restore_workload(t.workload);
    return {};
  }
  fill_back(r, targets, true);
  for (const auto& t : targets) ctx_.restore_workload(t.workload);
  return targets;
}

}  // namespace kueuepp::core
