// The Preemptor's entry points and what both of its searches use: the candidate ordering
// and policy tests, the fit check, the fill-back that keeps the victim set minimal, and
// the flavor assigner's oracle. The searches themselves are in preemptor_classical.cpp
// and preemptor_fair_sharing.cpp.

#include "core/engine/preemptor.hpp"

#include <algorithm>

namespace kueuepp::core {

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
