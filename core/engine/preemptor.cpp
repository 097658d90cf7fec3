#include "core/engine/preemptor.hpp"

#include <algorithm>
#include <span>
#include <unordered_set>

namespace kueuepp::core {
namespace {

constexpr const char* kInClusterQueue = "InClusterQueue";
constexpr const char* kInCohortReclamation = "InCohortReclamation";
constexpr const char* kInCohortReclaimWhileBorrowing = "InCohortReclaimWhileBorrowing";
constexpr const char* kInCohortFairSharing = "InCohortFairSharing";

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

bool uses_resources(const WorkloadRecord& w, const std::vector<FlavorResource>& frs) {
  for (const auto& [fr, v] : w.usage) {
    if (std::find(frs.begin(), frs.end(), fr) != frs.end()) return true;
  }
  return false;
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

Time queue_order_timestamp(const WorkloadRecord& w, const EngineConfig& /*config*/) {
  if (w.evicted_by_timeout_at) return *w.evicted_by_timeout_at;
  return w.creation;
}

bool satisfies_preemption_policy(const WorkloadRecord& preemptor, const WorkloadRecord& candidate,
                                 PreemptionPolicy policy, const EngineConfig& config) {
  bool lower = preemptor.priority() > candidate.priority();
  switch (policy) {
    case PreemptionPolicy::LowerPriority:
      return lower;
    case PreemptionPolicy::LowerOrNewerEqualPriority:
      return lower || (preemptor.priority() == candidate.priority() &&
                       queue_order_timestamp(preemptor, config) < queue_order_timestamp(candidate, config));
    case PreemptionPolicy::Any:
      return true;
    case PreemptionPolicy::Never:
      return false;
  }
  return false;
}

CandidateOrder candidate_order(const WorkloadRecord& w, int preemptor_cq, Time now) {
  CandidateOrder o;
  o.evicted = w.evicted;
  o.own = w.cq == preemptor_cq;
  o.priority = w.priority();
  o.reserved_at = w.reserved ? w.reserved_at : now;
  const std::size_t n = std::min<std::size_t>(8, w.uid.size());
  for (std::size_t i = 0; i < 8; ++i) {
    o.uid_prefix = (o.uid_prefix << 8) | (i < n ? static_cast<unsigned char>(w.uid[i]) : 0u);
  }
  return o;
}

OrderCompare compare_candidate_order(const CandidateOrder& a, const CandidateOrder& b) {
  auto before = [](bool x) { return x ? OrderCompare::Before : OrderCompare::After; };
  if (a.evicted != b.evicted) return before(a.evicted);
  if (a.own != b.own) return before(!a.own);
  if (a.priority != b.priority) return before(a.priority < b.priority);
  if (a.reserved_at != b.reserved_at) return before(a.reserved_at > b.reserved_at);
  if (a.uid_prefix != b.uid_prefix) return before(a.uid_prefix < b.uid_prefix);
  return OrderCompare::SameKeys;
}

bool candidate_before(const WorkloadRecord& a, const WorkloadRecord& b, int preemptor_cq, Time now) {
  if (a.evicted != b.evicted) return a.evicted;
  bool a_own = a.cq == preemptor_cq;
  bool b_own = b.cq == preemptor_cq;
  if (a_own != b_own) return !a_own;
  if (a.priority() != b.priority()) return a.priority() < b.priority();
  Time ta = a.reserved ? a.reserved_at : now;
  Time tb = b.reserved ? b.reserved_at : now;
  if (ta != tb) return ta > tb;
  return a.uid < b.uid;
}

bool Preemptor::fits(const Request& r, bool allow_borrowing) const {
  int node = ctx_.cqs[static_cast<std::size_t>(r.cq)].node;
  for (const auto& [fr, v] : *r.usage) {
    if (v == 0) continue;  // zero requests take no quota (Kueue leaves them out)
    if (!allow_borrowing && ctx_.snapshot.borrowing_with(node, fr, v)) return false;
    if (v > ctx_.snapshot.available(node, fr)) return false;
  }
  return true;
}

void Preemptor::fill_back(const Request& r, std::vector<PreemptionTarget>& targets,
                          bool allow_borrowing) {
  // Put victims back, latest-but-one first, keeping only those without which the
  // preemptor would not fit (Kueue's fillBackWorkloads, including its swap-removal).
  for (int i = static_cast<int>(targets.size()) - 2; i >= 0; --i) {
    ctx_.restore_workload(targets[static_cast<std::size_t>(i)].workload);
    if (fits(r, allow_borrowing)) {
      targets[static_cast<std::size_t>(i)] = targets.back();
      targets.pop_back();
    } else {
      ctx_.remove_workload(targets[static_cast<std::size_t>(i)].workload);
    }
  }
}

std::vector<PreemptionTarget> Preemptor::targets(const WorkloadRecord& preemptor, int cq,
                                                 const Amounts& usage,
                                                 const std::vector<FlavorResource>& frs) {
  if (last_search_ && last_search_->preemptor == &preemptor && last_search_->cq == cq && last_search_->usage == usage &&
      last_search_->frs == frs) {
    std::vector<PreemptionTarget> found = std::move(last_search_->targets);
    last_search_.reset();
    return found;
  }
  last_search_.reset();
  return search(Request{&preemptor, cq, &usage, &frs});
}

std::vector<PreemptionTarget> Preemptor::search(const Request& r) {
  return ctx_.config.fair_sharing ? fair(r) : classical(r);
}

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
      if (!ctx_.candidate_visible(id)) continue;
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
  // now removed, the attempt cannot succeed and is dropped, before any sorting. On the
  // 1,000-queue perf shape 57 % of the searches sorted their candidates (about 110 on
  // average) and then failed (a head over its nominal quota may not reclaim from the
  // cohort, and its own queue holds too little of lower priority): sorting was 12 % of
  // the controller's samples.
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

// -- fair sharing ---------------------------------------------------------------------

namespace {

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
      if (!ctx_.candidate_visible(id)) continue;
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

std::pair<PreemptionPossibility, int> Preemptor::simulate(const WorkloadRecord& preemptor, int cq,
                                                          FlavorResource fr, std::int64_t quantity) {
  // Scratch buffers: the oracle runs for every resource that does not fit right away.
  scratch_usage_.clear();
  scratch_usage_.set(fr, quantity);
  scratch_frs_.assign(1, fr);
  std::vector<PreemptionTarget> found = search(Request{&preemptor, cq, &scratch_usage_, &scratch_frs_});
  last_search_ = LastSearch{&preemptor, cq, scratch_usage_, scratch_frs_, found};
  int node = ctx_.cq(cq).node;
  if (found.empty()) {
    return {PreemptionPossibility::NoCandidates, ctx_.snapshot.lowest_subtree_that_fits(node, fr, quantity).first};
  }
  for (const auto& t : found) ctx_.remove_workload(t.workload);
  int borrow = ctx_.snapshot.lowest_subtree_that_fits(node, fr, quantity).first;
  for (const auto& t : found) ctx_.restore_workload(t.workload);
  bool own = std::any_of(found.begin(), found.end(),
                         [&](const PreemptionTarget& t) { return ctx_.wl(t.workload).cq == cq; });
  return {own ? PreemptionPossibility::Preempt : PreemptionPossibility::Reclaim, borrow};
}

}  // namespace kueuepp::core
