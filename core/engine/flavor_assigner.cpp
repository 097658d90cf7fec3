#include "core/engine/flavor_assigner.hpp"

#include <algorithm>
#include <climits>
#include <map>

namespace kueuepp::core {
namespace {

constexpr const char* kNoMatchingFlavor = "NoMatchingFlavor";
constexpr const char* kExceedsMaxQuota = "ExceedsMaxQuota";
constexpr const char* kWaitingForQuota = "WaitingForQuota";

void merge_attempt(std::vector<FlavorAttempt>& into, const FlavorAttempt& at) {
  for (auto& existing : into) {
    if (existing.flavor != at.flavor) continue;
    existing.mode = std::min(existing.mode, at.mode);
    existing.borrow = std::max(existing.borrow, at.borrow);
    existing.no_fit_reason = most_severe_reason(existing.no_fit_reason, at.no_fit_reason);
    return;
  }
  into.push_back(at);
}

}  // namespace


bool FlavorAssigner::preferred(const GranularMode& a, const GranularMode& b) const {
  if (a.mode == PreemptionMode::NoFit) return false;
  if (b.mode == PreemptionMode::NoFit) return true;
  bool a_none = a.mode == PreemptionMode::NoCandidates;
  bool b_none = b.mode == PreemptionMode::NoCandidates;
  if (a_none != b_none) return !a_none;
  const auto& pref = ctx_.cq(cq_index_).spec.flavor_fungibility.preference;
  if (pref && *pref == FungibilityPreference::PreemptionOverBorrowing) {
    if (a.borrow != b.borrow) return a.borrow < b.borrow;
    return a.mode > b.mode;
  }
  if (a.mode != b.mode) return a.mode > b.mode;
  return a.borrow < b.borrow;
}

bool FlavorAssigner::try_next_flavor(const GranularMode& m) const {
  const auto& f = ctx_.cq(cq_index_).spec.flavor_fungibility;
  if (m.mode == PreemptionMode::NoFit || m.mode == PreemptionMode::NoCandidates) return true;
  bool preempting = m.mode == PreemptionMode::Preempt || m.mode == PreemptionMode::Reclaim;
  if (preempting && f.when_can_preempt == FungibilityPolicy::TryNextFlavor) return true;
  if (m.borrow != 0 && f.when_can_borrow == FungibilityPolicy::TryNextFlavor) return true;
  return false;
}

bool FlavorAssigner::can_preempt_while_borrowing() const {
  const auto& p = ctx_.cq(cq_index_).spec.preemption;
  return (p.borrow_within_cohort.has_value() && p.borrow_within_cohort->lower_priority) ||
         (ctx_.config.fair_sharing && p.reclaim_within_cohort != PreemptionPolicy::Never);
}

std::optional<FitReason> FlavorAssigner::check_flavor(std::size_t pod_set, FlavorId flavor) const {
  const ResourceFlavor* rf = flavor < ctx_.flavors.size() ? ctx_.flavors[flavor] : nullptr;
  if (rf == nullptr) return FitReason{FitReason::Kind::FlavorNotFound, flavor};
  const PodPlacement& placement = *wl_.pod_sets[pod_set].placement;
  if (const Taint* t = first_untolerated_taint(rf->node_taints, placement.tolerations, rf->tolerations)) {
    return FitReason{FitReason::Kind::UntoleratedTaint, flavor, 0, t - rf->node_taints.data()};
  }
  if (!placement_matches_flavor_labels(placement, rf->node_labels)) {
    return FitReason{FitReason::Kind::AffinityMismatch, flavor};
  }
  return std::nullopt;
}

FlavorAssigner::GranularMode FlavorAssigner::fits_quota(FlavorResource fr, std::int64_t assumed,
                                                        std::int64_t request, std::vector<FitReason>& reasons,
                                                        std::string_view& no_fit_reason) {
  const ClusterQueueState& cq = ctx_.cq(cq_index_);
  const QuotaTree& tree = ctx_.snapshot;
  std::int64_t available = tree.available(cq.node, fr);
  std::int64_t max_capacity = tree.potential_available(cq.node, fr);
  std::int64_t val = sat_add(assumed, request);

  if (val > max_capacity) {
    reasons.push_back(
        FitReason{FitReason::Kind::ExceedsMaxQuota, fr.flavor, fr.resource, assumed, request, max_capacity});
    no_fit_reason = most_severe_reason(no_fit_reason, kExceedsMaxQuota);
    return {PreemptionMode::NoFit, 0};
  }
  auto [borrow, may_reclaim] = tree.lowest_subtree_that_fits(cq.node, fr, val);
  if (val <= available) return {PreemptionMode::Fit, borrow};

  reasons.push_back(FitReason{FitReason::Kind::InsufficientUnused, fr.flavor, fr.resource, val - available});
  if (tree.quota(cq.node, fr).nominal >= val || may_reclaim || can_preempt_while_borrowing()) {
    // A preemption is possible in principle: not a no-fit reason.
    auto [possibility, borrow_after] = oracle_.simulate(wl_, cq_index_, fr, val);
    switch (possibility) {
      case PreemptionPossibility::NoCandidates: return {PreemptionMode::NoCandidates, borrow_after};
      case PreemptionPossibility::Preempt: return {PreemptionMode::Preempt, borrow_after};
      case PreemptionPossibility::Reclaim: return {PreemptionMode::Reclaim, borrow_after};
    }
  }
  no_fit_reason = most_severe_reason(no_fit_reason, kWaitingForQuota);
  return {PreemptionMode::NoFit, borrow};
}

bool FlavorAssigner::find_flavor(std::size_t pod_set, const ResourceAmounts& requests, ResourceId resource,
                                 const Amounts& assigned_usage, Choices& flavors,
                                 std::vector<FitReason>& reasons, std::vector<FlavorAttempt>& attempts) {
  const ClusterQueueState& cq = ctx_.cq(cq_index_);
  int group = cq.group_of(resource);
  if (group < 0) {
    reasons.push_back(FitReason{FitReason::Kind::ResourceUnavailable, 0, resource});
    return false;
  }
  const CompiledResourceGroup& rg = cq.resource_groups[static_cast<std::size_t>(group)];
  group_requests_.clear();
  for (const auto& [r, v] : requests) {
    if (std::find(rg.covered.begin(), rg.covered.end(), r) != rg.covered.end()) {
      group_requests_.emplace_back(r, v);
    }
  }

  best_.clear();
  GranularMode best_mode{PreemptionMode::NoFit, INT_MAX};
  int attempted = -1;
  int start = wl_.scan ? wl_.scan->next_flavor(pod_set, resource) : 0;
  const int n = static_cast<int>(rg.flavors.size());
  const std::size_t reasons_before = reasons.size();
  for (int idx = start; idx < n; ++idx) {
    attempted = idx;
    FlavorId f = rg.flavors[static_cast<std::size_t>(idx)];
    if (nomination_ != nullptr && pod_set < nomination_->size()) {
      const auto& nominated = (*nomination_)[pod_set];
      bool listed = std::any_of(nominated.begin(), nominated.end(),
                                [&](const auto& e) { return e.first == resource && e.second == f; });
      if (!listed) {
        reasons.push_back(FitReason{FitReason::Kind::NotNominated, f, resource});
        continue;
      }
    }
    if (std::optional<FitReason> mismatch = check_flavor(pod_set, f)) {
      reasons.push_back(*mismatch);
      merge_attempt(attempts, {f, AssignMode::NoFit, 0, kNoMatchingFlavor});
      continue;
    }
    choices_.clear();
    GranularMode rep{PreemptionMode::Fit, 0};
    int max_borrow = 0;
    std::string_view flavor_no_fit;
    for (const auto& [r, v] : group_requests_) {
      GranularMode m = fits_quota(FlavorResource{f, r}, assigned_usage.get(FlavorResource{f, r}), v, reasons,
                                  flavor_no_fit);
      max_borrow = std::max(max_borrow, m.borrow);
      if (preferred(rep, m)) rep = m;
      // Kueue keeps evaluating the remaining resources (for the messages) but records
      // no flavor for them once the flavor cannot fit.
      if (rep.mode == PreemptionMode::NoFit) continue;
      choices_.push_back({r, FlavorChoice{f, to_assign_mode(m.mode), 0, m.borrow}});
    }
    merge_attempt(attempts, {f, to_assign_mode(rep.mode), max_borrow, flavor_no_fit});
    if (!try_next_flavor(rep)) {
      best_.swap(choices_);
      best_mode = rep;
      break;
    }
    if (preferred(rep, best_mode)) {
      best_.swap(choices_);
      best_mode = rep;
    }
  }
  // A flavor that fits outright leaves no reasons behind.
  if (best_mode.mode == PreemptionMode::Fit) reasons.resize(reasons_before);
  for (auto& [r, c] : best_) {
    c.tried_index = (attempted == n - 1) ? -1 : attempted;
    flavors.emplace_back(r, c);
  }
  return !best_.empty();
}

Assignment FlavorAssigner::assign(const std::vector<std::int32_t>& counts) {
  const ClusterQueueState& cq = ctx_.cq(cq_index_);
  Assignment a;
  a.scan.cq_generation = cq.generation;
  a.scan.cycle = ctx_.cycle;
  a.scan.hash = wl_.hash;
  int pods_id = ctx_.resource_names.find("pods");
  bool covers_pods = pods_id >= 0 && cq.group_of(static_cast<ResourceId>(pods_id)) >= 0;

  for (std::size_t i = 0; i < wl_.pod_sets.size(); ++i) {
    const PodSetRequest& ps = wl_.pod_sets[i];
    PodSetAssignmentResult psa;
    psa.pod_set = i;
    psa.count = counts.empty() ? ps.count : counts[i];
    for (const auto& [r, per_pod] : ps.per_pod) {
      psa.requests.emplace_back(r, sat_mul(per_pod, psa.count));
    }
    if (covers_pods) {
      auto pid = static_cast<ResourceId>(pods_id);
      auto it = std::find_if(psa.requests.begin(), psa.requests.end(),
                             [pid](const auto& e) { return e.first == pid; });
      std::int64_t pods = sat_mul(static_cast<std::int64_t>(psa.count), 1000);
      if (it != psa.requests.end()) {
        it->second = pods;
      } else {
        psa.requests.emplace_back(pid, pods);
        std::sort(psa.requests.begin(), psa.requests.end(), [&](const auto& x, const auto& y) {
          return ctx_.resource_names.name(x.first) < ctx_.resource_names.name(y.first);
        });
      }
    }

    bool failed = false;
    Choices group_flavors;
    std::vector<FitReason> group_reasons;
    for (const auto& [r, q] : psa.requests) {
      if (cq.group_of(r) < 0) {
        if (q == 0 || ctx_.config.ignore_undeclared_resources) continue;
      }
      // An init-capture: clang 14 (the sanitizer builds' compiler) cannot capture a structured binding.
      if (std::any_of(group_flavors.begin(), group_flavors.end(),
                      [&resource = r](const auto& e) { return e.first == resource; })) {
        continue;
      }
      std::size_t reasons_before = group_reasons.size();
      if (!find_flavor(i, psa.requests, r, a.usage, group_flavors, group_reasons, psa.attempts)) {
        // The pod set fails with this resource group's reasons alone.
        failed = true;
        group_flavors.clear();
        group_reasons.erase(group_reasons.begin(), group_reasons.begin() + static_cast<std::ptrdiff_t>(reasons_before));
        break;
      }
    }
    std::sort(psa.attempts.begin(), psa.attempts.end(), [&](const auto& x, const auto& y) {
      return ctx_.flavor_names.name(x.flavor) < ctx_.flavor_names.name(y.flavor);
    });
    // Each pod set keeps the flavors of the resources it requests.
    for (const auto& [r, c] : group_flavors) {
      bool requested = std::any_of(psa.requests.begin(), psa.requests.end(),
                                   [r = r](const auto& e) { return e.first == r; });
      if (requested) psa.flavors.emplace_back(r, c);
    }
    psa.reasons = std::move(group_reasons);

    std::vector<std::pair<ResourceId, int>> tried;
    for (const auto& [r, c] : psa.flavors) {
      a.borrowing = std::max(a.borrowing, c.borrow);
      auto it = std::find_if(psa.requests.begin(), psa.requests.end(),
                             [r = r](const auto& e) { return e.first == r; });
      a.usage.add(FlavorResource{c.flavor, r}, it != psa.requests.end() ? it->second : 0);
      tried.emplace_back(r, c.tried_index);
    }
    a.scan.last_tried.push_back(std::move(tried));
    bool pod_set_failed = failed || (!psa.requests.empty() && psa.flavors.empty());
    a.pod_sets.push_back(std::move(psa));
    if (pod_set_failed) {
      resolve_no_fit_reason(a);
      return a;
    }
  }
  if (a.representative_mode() == AssignMode::NoFit) resolve_no_fit_reason(a);
  return a;
}

void FlavorAssigner::resolve_no_fit_reason(Assignment& a) const {
  if (a.representative_mode() != AssignMode::NoFit) return;
  const ClusterQueueState& cq = ctx_.cq(cq_index_);
  std::string_view overall;
  for (const auto& ps : a.pod_sets) {
    if (ps.representative_mode() != AssignMode::NoFit) continue;
    if (ps.attempts.empty()) {
      overall = most_severe_reason(overall, kNoMatchingFlavor);
      continue;
    }
    // Within a resource group the flavors are alternatives (the least severe blocker
    // counts); across groups they are all required (the most severe counts).
    std::vector<std::pair<int, std::string_view>> group_min;  // resource group -> reason
    int unknown = -1;
    for (const auto& at : ps.attempts) {
      if (at.mode != AssignMode::NoFit) continue;
      int group = -1;
      for (std::size_t g = 0; g < cq.resource_groups.size(); ++g) {
        const auto& fl = cq.resource_groups[g].flavors;
        if (std::find(fl.begin(), fl.end(), at.flavor) != fl.end()) group = static_cast<int>(g);
      }
      if (group < 0) group = --unknown - 1000;
      auto it = std::find_if(group_min.begin(), group_min.end(), [group](const auto& e) { return e.first == group; });
      if (it == group_min.end()) {
        group_min.emplace_back(group, at.no_fit_reason);
      } else if (no_fit_reason_severity(at.no_fit_reason) < no_fit_reason_severity(it->second)) {
        it->second = at.no_fit_reason;
      }
    }
    std::string_view ps_reason;
    for (const auto& [g, reason] : group_min) ps_reason = most_severe_reason(ps_reason, reason);
    overall = most_severe_reason(overall, ps_reason);
  }
  a.no_fit_reason = overall;
}

}  // namespace kueuepp::core
