// Engine: one Kueue scheduling cycle of one cohort tree (pkg/scheduler/scheduler.go):
// pop one head per ClusterQueue, nominate each against the state at the start of the
// cycle, order them, then process them in order against a snapshot that accumulates the
// cycle's admissions and reservations.

#include <algorithm>
#include <map>

#include "core/engine/engine.hpp"
#include "core/engine/flavor_assigner.hpp"

namespace kueuepp::core {

struct Engine::Entry {
  enum class Status { NotNominated, Skipped, Nominated, Assumed };
  int wl = -1;
  int cq = -1;
  Assignment assignment;
  std::vector<PreemptionTarget> targets;
  Status status = Status::NotNominated;
  RequeueReason requeue_reason = RequeueReason::Generic;
  std::string_view reason;  ///< QuotaReserved=False reason (a literal)
  std::string text;    ///< fixed message text (after the assignment's reasons, if any)
  bool with_details = false;  ///< the assignment's reasons start the message
  bool processed = false;
  bool after_preemptions = false;  ///< fits only with claimed victims' quota (AdmissionDecision)
};

namespace {

std::vector<FlavorResource> frs_needing_preemption(const Assignment& a) {
  std::vector<FlavorResource> out;
  for (const auto& ps : a.pod_sets) {
    for (const auto& [r, c] : ps.flavors) {
      if (c.mode != AssignMode::Preempt) continue;
      FlavorResource fr{c.flavor, r};
      if (std::find(out.begin(), out.end(), fr) == out.end()) out.push_back(fr);
    }
  }
  return out;
}

bool can_be_partially_admitted(const WorkloadRecord& w) {
  return std::any_of(w.pod_sets.begin(), w.pod_sets.end(),
                     [](const PodSetRequest& ps) { return ps.min_count && ps.count > *ps.min_count; });
}

}  // namespace

std::pair<Assignment, std::vector<PreemptionTarget>> Engine::assignments(
    SchedulingContext& ctx, Preemptor& preemptor, WorkloadRecord& wl, int cq,
    const std::vector<std::vector<std::pair<ResourceId, FlavorId>>>* nomination) {
  const ClusterQueueState& state = cqs_[static_cast<std::size_t>(cq)];
  // The flavor scan resumes where the last cycle stopped unless that record is stale:
  // the workload's shape changed, or it is older than the previous cycle and the
  // queue's allocatable resources changed since.
  if (wl.scan) {
    bool outdated = false;
    if (wl.scan->hash != 0 && wl.hash != 0 && wl.scan->hash != wl.hash) {
      outdated = true;
    } else if (cycle_ - wl.scan->cycle > 1) {
      outdated = state.generation > wl.scan->cq_generation;
    }
    if (outdated) wl.scan.reset();
  }
  preemptor.forget_last_search();  // made on an earlier snapshot
  FlavorAssigner assigner(ctx, wl, cq, preemptor);
  if (nomination != nullptr) assigner.restrict_to(*nomination);
  Assignment full = assigner.assign();
  AssignMode mode = full.representative_mode();
  if (mode == AssignMode::Fit) return {std::move(full), std::vector<PreemptionTarget>{}};
  if (mode == AssignMode::Preempt) {
    auto targets = preemptor.targets(wl, cq, full.usage, frs_needing_preemption(full));
    if (!targets.empty()) return {std::move(full), std::move(targets)};
  }
  if (config_.partial_admission && can_be_partially_admitted(wl)) {
    // Kueue's PodSetReducer: binary search (Go's sort.Search) for the smallest
    // reduction step that fits; counts shrink proportionally to (count - minCount).
    std::vector<std::int32_t> full_counts;
    std::vector<std::int32_t> deltas;
    std::int64_t total = 0;
    for (const auto& ps : wl.pod_sets) {
      full_counts.push_back(ps.count);
      std::int32_t d = ps.count - ps.min_count.value_or(ps.count);
      deltas.push_back(d);
      total += d;
    }
    if (total > 0) {
      std::optional<Assignment> last_good;
      std::vector<PreemptionTarget> last_targets;
      std::int64_t last_good_idx = 0;
      auto probe = [&](std::int64_t i) {
        std::vector<std::int32_t> counts(full_counts.size());
        for (std::size_t k = 0; k < counts.size(); ++k) {
          counts[k] = full_counts[k] - static_cast<std::int32_t>(static_cast<std::int64_t>(deltas[k]) * i / total);
        }
        Assignment a = assigner.assign(counts);
        AssignMode m = a.representative_mode();
        std::vector<PreemptionTarget> t;
        bool ok = m == AssignMode::Fit;
        if (m == AssignMode::Preempt) {
          t = preemptor.targets(wl, cq, a.usage, frs_needing_preemption(a));
          ok = !t.empty();
        }
        if (ok) {
          last_good_idx = i;
          last_good = std::move(a);
          last_targets = std::move(t);
        }
        return ok;
      };
      std::int64_t lo = 0;
      std::int64_t hi = total + 1;
      while (lo < hi) {
        std::int64_t mid = lo + (hi - lo) / 2;
        if (!probe(mid)) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      if (last_good && lo == last_good_idx) return {std::move(*last_good), std::move(last_targets)};
    }
  }
  return {std::move(full), std::vector<PreemptionTarget>{}};
}

CycleSummary Engine::run_cycle(Time now) {
  now_ = now;
  ensure_topology();
  release_expired_backoffs();
  review_due_checks();
  ++cycle_;
  CycleSummary total;
  for (auto& tree : trees_) {
    CycleSummary s = run_tree_cycle(tree);
    total.heads += s.heads;
    total.admitted += s.admitted;
    total.preempted += s.preempted;
    total.changed = total.changed || s.changed;
    total.untried_flavors = total.untried_flavors || s.untried_flavors;
  }
  return total;
}

std::vector<int> Engine::order_entries(const std::vector<Entry>& entries) const {
  std::vector<int> order(entries.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::sort(order.begin(), order.end(), [&](int ia, int ib) {
    const Entry& a = entries[static_cast<std::size_t>(ia)];
    const Entry& b = entries[static_cast<std::size_t>(ib)];
    if (a.assignment.borrowing != b.assignment.borrowing) return a.assignment.borrowing < b.assignment.borrowing;
    const WorkloadRecord& wa = *workloads_[static_cast<std::size_t>(a.wl)];
    const WorkloadRecord& wb = *workloads_[static_cast<std::size_t>(b.wl)];
    if (wa.priority() != wb.priority()) return wa.priority() > wb.priority();
    Time ta = queue_order_timestamp(wa, config_);
    Time tb = queue_order_timestamp(wb, config_);
    if (ta != tb) return ta < tb;
    return wa.uid < wb.uid;
  });
  return order;
}

namespace {

/// Kueue's fair-sharing tournament: the next entry to process is decided from the root
/// of the tree down, each cohort preferring the subtree that does not borrow on the
/// resources the workload asks for, then the lower dominant resource share (computed as
/// if the entry were admitted), then priority, then queue order.
class Tournament {
 public:
  Tournament(SchedulingContext& ctx, const EngineConfig& config) : ctx_(ctx), config_(config) {}

  template <class EntryT>
  int pick(const std::vector<EntryT>& entries, const std::vector<int>& remaining) {
    const QuotaTree& t = ctx_.snapshot;
    if (remaining.size() == 1 || !t.has_parent(ctx_.cq(entries[static_cast<std::size_t>(remaining[0])].cq).node)) {
      return remaining[0];
    }
    drs_.clear();
    requested_.clear();
    for (int idx : remaining) {
      const auto& e = entries[static_cast<std::size_t>(idx)];
      int node = ctx_.cq(e.cq).node;
      ctx_.snapshot.add_usage(node, e.assignment.usage);
      DominantResourceShare d = t.dominant_resource_share(node, nullptr, ctx_.resource_names);
      for (int a = t.parent(node); a != QuotaTree::kNoParent; a = t.parent(a)) {
        drs_[{a, idx}] = d;
        d = t.dominant_resource_share(a, nullptr, ctx_.resource_names);
      }
      ctx_.snapshot.remove_usage(node, e.assignment.usage);
      requested_[idx] = &e.assignment.usage;
      by_node_[node] = idx;
    }
    int winner = run(t.root(), entries);
    by_node_.clear();
    return winner;
  }

 private:
  template <class EntryT>
  int run(int cohort, const std::vector<EntryT>& entries) {
    const QuotaTree& t = ctx_.snapshot;
    std::vector<int> candidates;
    for (int child : t.child_cohorts(cohort)) {
      int w = run(child, entries);
      if (w >= 0) candidates.push_back(w);
    }
    for (int q : t.child_cluster_queues(cohort)) {
      auto it = by_node_.find(q);
      if (it != by_node_.end()) candidates.push_back(it->second);
    }
    if (candidates.empty()) return -1;
    int best = candidates[0];
    for (std::size_t i = 1; i < candidates.size(); ++i) {
      if (less(candidates[i], best, cohort, entries)) best = candidates[i];
    }
    return best;
  }

  template <class EntryT>
  bool less(int a, int b, int cohort, const std::vector<EntryT>& entries) const {
    const DominantResourceShare& da = drs_.at({cohort, a});
    const DominantResourceShare& db = drs_.at({cohort, b});
    bool ab = da.borrowing_on(*requested_.at(a));
    bool bb = db.borrowing_on(*requested_.at(b));
    if (ab != bb) return !ab;
    int c = compare_drs(da, db);
    if (c != 0) return c < 0;
    const WorkloadRecord& wa = ctx_.wl(entries[static_cast<std::size_t>(a)].wl);
    const WorkloadRecord& wb = ctx_.wl(entries[static_cast<std::size_t>(b)].wl);
    if (wa.priority() != wb.priority()) return wa.priority() > wb.priority();
    return queue_order_timestamp(wa, config_) < queue_order_timestamp(wb, config_);
  }

  SchedulingContext& ctx_;
  const EngineConfig& config_;
  std::map<std::pair<int, int>, DominantResourceShare> drs_;
  std::map<int, const Amounts*> requested_;
  std::map<int, int> by_node_;
};

}  // namespace

CycleSummary Engine::run_tree_cycle(Tree& tree) {
  CycleSummary summary;
  std::vector<Entry> heads;
  for (int cq : tree.cqs) {
    auto& state = cqs_[static_cast<std::size_t>(cq)];
    if (!state.schedulable()) continue;
    if (QueueSlot* slot = state.queue.pop()) {
      if (heads.empty()) heads.reserve(tree.cqs.size());
      Entry e;
      e.wl = slot->key.workload;
      e.cq = cq;
      heads.push_back(std::move(e));
    }
  }
  if (heads.empty()) return summary;
  summary.heads = heads.size();

  QuotaTree snapshot = tree.quota;
  SchedulingContext ctx{config_, resources_, flavors_, flavor_by_id_, cqs_, workloads_,
                        tree.node_to_cq, snapshot, cycle_, now_, {}};
  Preemptor preemptor(ctx);

  // Nominate.
  std::vector<Entry> entries;
  std::vector<Entry> inadmissible;
  entries.reserve(heads.size());
  for (auto& e : heads) {
    WorkloadRecord& rec = *workloads_[static_cast<std::size_t>(e.wl)];
    const auto& state = cqs_[static_cast<std::size_t>(e.cq)];
    rec.last_evaluated_cycle = cycle_;
    if (!state.spec.namespace_selector || !state.spec.namespace_selector->matches(namespace_labels(rec.ns()))) {
      e.reason = "Misconfigured";
      e.text = "workload namespace doesn't match ClusterQueue selector";
      e.requeue_reason = RequeueReason::NamespaceMismatch;
      inadmissible.push_back(std::move(e));
      continue;
    }
    if (rec.unsupported()) {
      e.reason = "NotSupported";
      e.text = *rec.unsupported();
      inadmissible.push_back(std::move(e));
      continue;
    }
    if (rec.invalid_requests()) {
      e.reason = "Misconfigured";
      e.text = "resource validation failed: " + *rec.invalid_requests();
      inadmissible.push_back(std::move(e));
      continue;
    }
    auto [assignment, targets] = assignments(ctx, preemptor, rec, e.cq, nullptr);
    e.assignment = std::move(assignment);
    e.targets = std::move(targets);
    e.with_details = true;
    rec.scan = e.assignment.scan.pending_flavors() ? std::make_unique<FlavorScanState>(e.assignment.scan) : nullptr;
    entries.push_back(std::move(e));
  }

  // Process, in Kueue's order.
  std::unordered_set<int> claimed;
  blocked_ = false;
  if (config_.fair_sharing) {
    Tournament tournament(ctx, config_);
    std::vector<int> remaining;
    for (std::size_t i = 0; i < entries.size(); ++i) remaining.push_back(static_cast<int>(i));
    while (!remaining.empty()) {
      int next = tournament.pick(entries, remaining);
      remaining.erase(std::find(remaining.begin(), remaining.end(), next));
      process_entry(ctx, preemptor, entries[static_cast<std::size_t>(next)], claimed, summary);
    }
  } else {
    for (int i : order_entries(entries)) {
      process_entry(ctx, preemptor, entries[static_cast<std::size_t>(i)], claimed, summary);
    }
  }

  for (auto& e : entries) {
    if (e.status == Entry::Status::Assumed) continue;
    if (workloads_[static_cast<std::size_t>(e.wl)]->scan) summary.untried_flavors = true;
    requeue(e);
    if (cqs_[static_cast<std::size_t>(e.cq)].queue.is_parked(workloads_[static_cast<std::size_t>(e.wl)]->slot)) {
      summary.changed = true;
    }
  }
  for (auto& e : inadmissible) {
    requeue(e);
    summary.changed = true;
  }
  summary.changed = summary.changed || summary.admitted > 0 || summary.preempted > 0;
  return summary;
}

void Engine::process_entry(SchedulingContext& ctx, Preemptor& preemptor, Entry& e,
                           std::unordered_set<int>& claimed, CycleSummary& summary) {
  WorkloadRecord& rec = *workloads_[static_cast<std::size_t>(e.wl)];
  if (blocked_) {
    // The cycle is waiting for PodsReady: nothing after the blocked entry proceeds.
    e.status = Entry::Status::Skipped;
    e.reason = "WaitingForPodsReady";
    e.with_details = false;
    e.text = "waiting for all admitted workloads to be in PodsReady condition";
    return;
  }
  ClusterQueueState& cq = cqs_[static_cast<std::size_t>(e.cq)];
  QuotaTree& snap = ctx.snapshot;

  // Does the assignment fit the snapshot as it is?
  auto fits_as_is = [&](const Amounts& usage) {
    return std::all_of(usage.begin(), usage.end(),
                       [&](const auto& amount) { return snap.available(cq.node, amount.first) >= amount.second; });
  };
  // Does it fit with every victim claimed this cycle and its own targets taken out?
  auto fits_with = [&](const Amounts& usage, const std::vector<PreemptionTarget>& targets) {
    std::vector<int> removed;
    auto take = [&](int id) {
      if (ctx.removed.contains(id)) return;
      ctx.remove_workload(id);
      removed.push_back(id);
    };
    for (int id : claimed) take(id);
    for (const auto& t : targets) take(t.workload);
    bool ok = fits_as_is(usage);
    for (int id : removed) ctx.restore_workload(id);
    return ok;
  };
  auto overlaps = [&](const std::vector<PreemptionTarget>& targets) {
    return std::any_of(targets.begin(), targets.end(),
                       [&](const PreemptionTarget& t) { return claimed.contains(t.workload); });
  };

  bool fits = fits_with(e.assignment.usage, e.targets);
  if (overlaps(e.targets)) {
    // Recompute against the cluster as it will be once the other preemptions complete,
    // keeping the flavors nominated (Kueue's RecomputeAssignmentUponPreemptionTargetsOverlap).
    std::vector<std::vector<std::pair<ResourceId, FlavorId>>> nomination;
    for (const auto& ps : e.assignment.pod_sets) {
      std::vector<std::pair<ResourceId, FlavorId>> m;
      for (const auto& [r, c] : ps.flavors) m.emplace_back(r, c.flavor);
      nomination.push_back(std::move(m));
    }
    std::vector<int> removed;
    for (int id : claimed) {
      if (!ctx.removed.contains(id)) {
        ctx.remove_workload(id);
        removed.push_back(id);
      }
    }
    rec.scan.reset();
    auto [assignment, targets] = assignments(ctx, preemptor, rec, e.cq, &nomination);
    for (int id : removed) ctx.restore_workload(id);
    if (assignment.representative_mode() == AssignMode::Fit) assignment.set_mode(AssignMode::DeferredFit);
    e.assignment = std::move(assignment);
    e.targets = std::move(targets);
    rec.scan = e.assignment.scan.pending_flavors() ? std::make_unique<FlavorScanState>(e.assignment.scan) : nullptr;
    fits = fits_with(e.assignment.usage, e.targets);
  }

  AssignMode mode = e.assignment.representative_mode();
  if (mode == AssignMode::NoFit) {
    e.requeue_reason = RequeueReason::NoFit;
    e.reason = e.assignment.no_fit_reason;
    return;
  }
  if (mode == AssignMode::Preempt && e.targets.empty()) {
    e.requeue_reason = RequeueReason::PreemptionNoCandidates;
    e.reason = "WaitingForQuota";
    if (cq.spec.preemption.reclaim_within_cohort != PreemptionPolicy::Any) {
      // Hold back the capacity this workload is entitled to, so that lower-ranked
      // entries of the cycle cannot take it.
      Amounts reserve;
      for (const auto& [fr, v] : e.assignment.usage) {
        QuotaTree::Quota q = snap.quota(cq.node, fr);
        std::int64_t used = snap.usage(cq.node, fr);
        std::int64_t amount;
        if (e.assignment.borrowing > 0) {
          amount = q.borrowing_limit == QuotaTree::kUnset
                       ? v
                       : std::min(v, sat_sub(sat_add(q.nominal, q.borrowing_limit), used));
        } else {
          amount = std::max<std::int64_t>(0, std::min(v, sat_sub(q.nominal, used)));
        }
        reserve.set(fr, amount);
      }
      snap.add_usage(cq.node, reserve);
    }
    return;
  }
  if (mode == AssignMode::DeferredFit) {
    e.with_details = false;
    e.text = "Workload has overlapping preemption targets with another workload, but will fit after these preemptions complete";
    e.reason = "WaitingForPreemptedWorkloads";
    e.requeue_reason = RequeueReason::PendingPreemption;
    rec.scan.reset();
    snap.add_usage(cq.node, e.assignment.usage);
    return;
  }
  if (overlaps(e.targets)) {
    e.status = Entry::Status::Skipped;
    e.with_details = false;
    e.text = "Workload has overlapping preemption targets with another workload";
    e.reason = "WaitingForQuota";
    return;
  }
  if (!fits) {
    e.status = Entry::Status::Skipped;
    e.with_details = false;
    e.text = "Workload no longer fits after processing another workload";
    e.reason = "WaitingForQuota";
    return;
  }
  // Whether it fits with every victim's quota still counted: if not, it uses quota a
  // victim holds until its eviction completes.
  e.after_preemptions = !claimed.empty() && !fits_as_is(e.assignment.usage);
  for (const auto& t : e.targets) claimed.insert(t.workload);
  snap.add_usage(cq.node, e.assignment.usage);

  if (mode == AssignMode::Preempt) {
    e.reason = "WaitingForPreemptedWorkloads";
    int issued = 0;
    for (const auto& t : e.targets) {
      WorkloadRecord& victim = *workloads_[static_cast<std::size_t>(t.workload)];
      ++issued;
      if (victim.evicted) continue;  // an earlier cycle already evicted it
      std::string message = preemption_message(rec, victim, t.reason);
      victim.extra().preempted = PreemptionRecord{rec.key, rec.uid, t.reason, message, now_};
      victim.evicted = true;
      victim.extra().eviction_reason = "Preempted";
      EvictionDecision d;
      d.workload = victim.key;
      d.cluster_queue = cqs_[static_cast<std::size_t>(victim.cq)].spec.name;
      d.reason = "Preempted";
      d.preemption_reason = t.reason;
      d.preemptor = rec.key;
      d.message = std::move(message);
      d.at = now_;
      outbox_.evictions.push_back(std::move(d));
      ++summary.preempted;
    }
    rec.scan.reset();
    e.text += ". Pending the preemption of " + std::to_string(issued) + " workload(s)";
    e.requeue_reason = RequeueReason::PendingPreemption;
    return;
  }
  e.status = Entry::Status::Nominated;
  if (config_.block_admission_until_pods_ready && admission_blocked_by_pods_ready()) {
    // Kueue blocks its scheduler here until every admitted workload is PodsReady; the
    // engine cannot block, so the entry (and everything after it in this cycle) waits
    // and is retried by the next cycle.
    snap.remove_usage(cq.node, e.assignment.usage);
    e.reason = "WaitingForPodsReady";
    e.with_details = false;
    e.text = "waiting for all admitted workloads to be in PodsReady condition";
    e.requeue_reason = RequeueReason::FailedAfterNomination;
    blocked_ = true;
    return;
  }
  admit(e, summary);
}

bool Engine::admission_blocked_by_pods_ready() const {
  for (const auto& w : workloads_) {
    if (w && w->reserved && !w->pods_ready) return true;
  }
  return false;
}

void Engine::admit(Entry& e, CycleSummary& summary) {
  WorkloadRecord& rec = *workloads_[static_cast<std::size_t>(e.wl)];
  std::vector<AdmittedPodSet> admission;
  for (const auto& ps : e.assignment.pod_sets) {
    AdmittedPodSet a;
    a.count = ps.count;
    for (const auto& [r, c] : ps.flavors) {
      a.flavors.emplace_back(r, c.flavor);
      for (const auto& [rr, v] : ps.requests) {
        if (rr == r) a.usage.emplace_back(r, v);
      }
    }
    admission.push_back(std::move(a));
  }
  reserve(rec, e.cq, std::move(admission), now_);
  rec.assumed = true;
  rec.reserved_cycle = cycle_;
  std::vector<std::string> checks;
  rec.admitted = checks_at_reservation(rec, checks);
  retally(rec);
  rec.requeued_false = false;
  rec.requeue_at.reset();
  rec.pending = {};
  rec.scan.reset();
  e.status = Entry::Status::Assumed;
  ++summary.admitted;

  AdmissionDecision d;
  d.workload = rec.key;
  d.admission = admission_of(rec);
  d.admitted = rec.admitted;
  d.admission_checks = std::move(checks);
  d.after_preemptions = e.after_preemptions;
  d.at = now_;
  outbox_.admissions.push_back(std::move(d));
}

namespace {

// Whether a cycle's outcome for a workload explains it exactly as last time (then
// nothing is rendered or written).
template <class EntryT>
bool same_explanation(const PendingExplanation& last, std::string_view reason, const EntryT& e) {
  if (last.reason != reason || last.text != e.text) return false;
  if (!e.with_details) return last.details.empty();
  std::size_t i = 0;
  for (const auto& ps : e.assignment.pod_sets) {
    if (ps.reasons.empty()) continue;
    if (i >= last.details.size() || last.details[i].first != ps.pod_set || last.details[i].second != ps.reasons) {
      return false;
    }
    ++i;
  }
  return i == last.details.size();
}

}  // namespace

void Engine::requeue(Entry& e) {
  WorkloadRecord& rec = *workloads_[static_cast<std::size_t>(e.wl)];
  ClusterQueueState& cq = cqs_[static_cast<std::size_t>(e.cq)];
  if (e.status != Entry::Status::NotNominated && e.requeue_reason == RequeueReason::Generic) {
    e.requeue_reason = RequeueReason::FailedAfterNomination;
  }
  rec.requeue_reason = e.requeue_reason;
  std::string_view reason = e.reason.empty() ? std::string_view("Pending") : e.reason;
  if (!same_explanation(rec.pending, reason, e)) {
    rec.pending = PendingExplanation{std::string(reason), std::move(e.text),
                                     e.with_details ? e.assignment.reasons() : AssignmentReasons{}, ++pending_stamps_};
    note_words_changed(cq, rec.slot.hash, rec);
    if (rec.hash != rec.slot.hash) note_words_changed(cq, rec.hash, rec);
    PendingStatus text = render(rec.pending, rec);
    outbox_.pending.push_back({rec.key, std::move(text.reason), std::move(text.message)});
  }
  rec.slot.key = queue_key(rec);
  const std::uint64_t joins = cq.queue.joins();
  cq.queue.set_class(rec.slot, rec.hash);
  if (cq.queue.joins() != joins) note_class_join(cq, rec);
  cq.queue.requeue(rec.slot, e.requeue_reason, backoff_expired(rec), rec.scan && rec.scan->pending_flavors());
  if (e.requeue_reason == RequeueReason::NoFit || e.requeue_reason == RequeueReason::PreemptionNoCandidates) {
    explain_class(cq, rec);
  }
}

void Engine::explain_class(ClusterQueueState& cq, const WorkloadRecord& evaluated) {
  // The rest of the class waits without an evaluation of its own (Kueue's equivalence
  // hashing); each says why, with the words of the one evaluated, so that "why is my
  // job pending" has an answer for every member. Written only when it changes.
  const std::uint64_t hash = evaluated.slot.hash;
  if (hash == 0) return;
  const std::uint64_t stamp = evaluated.pending.stamp;
  auto note = cq.explained_classes.find(hash);
  if (stamp != 0 && note != cq.explained_classes.end() &&
      (note->second.stamp == stamp || *note->second.words == evaluated.pending)) {
    tell_strays(cq, hash, note->second);  // the others were told these very words
    return;
  }
  // Members mostly carry the words the class was told last, under one stamp: their
  // content is compared with the new words once per stamp met, not once per member.
  std::uint64_t compared_stamp = 0;
  bool compared_equal = false;
  auto same_words = [&](const PendingExplanation& p) {
    if (p.stamp == 0) return p == evaluated.pending;
    if (p.stamp == stamp) return true;
    if (p.stamp != compared_stamp) {
      compared_stamp = p.stamp;
      compared_equal = p == evaluated.pending;
    }
    return compared_equal;
  };
  ++class_walks_;
  cq.queue.for_each_parked_in_class(hash, [&](const QueueSlot& s) {
    if (&s == &evaluated.slot) return true;
    ++class_members_walked_;
    WorkloadRecord& member = *workloads_[static_cast<std::size_t>(s.key.workload)];
    if (same_words(member.pending)) {
      member.pending.stamp = evaluated.pending.stamp;  // the next walk compares stamps only
      return true;
    }
    member.pending = evaluated.pending;
    PendingStatus text = render(member.pending, member);
    outbox_.pending.push_back({member.key, std::move(text.reason), std::move(text.message)});
    return true;
  });
  if (stamp == 0) {
    cq.forget_class_note(hash);  // told words the note cannot name
    return;
  }
  cq.explained_classes[hash] = {stamp, std::make_shared<const PendingExplanation>(evaluated.pending), {}};
  if (cq.explained_classes.size() > 2 * cq.queue.class_count() + 16) {
    // Classes come and go with their workloads: forget the notes of those gone.
    std::erase_if(cq.explained_classes, [&](const auto& entry) { return !cq.queue.has_class(entry.first); });
  }
}

void Engine::tell_strays(ClusterQueueState& cq, std::uint64_t hash, ClusterQueueState::ClassExplained& note) {
  for (int id : note.strays) {
    const auto& slot = workloads_[static_cast<std::size_t>(id)];
    if (!slot) continue;  // deleted
    WorkloadRecord& member = *slot;
    // Those a walk of the class would meet: parked in it, in this queue.
    const bool parked_here = member.cq >= 0 && &cqs_[static_cast<std::size_t>(member.cq)] == &cq &&
                             member.slot.hash == hash && cq.queue.parked_with_class(member.slot);
    if (!parked_here || member.pending.same_as(*note.words)) continue;
    member.pending = *note.words;
    PendingStatus text = render(member.pending, member);
    outbox_.pending.push_back({member.key, std::move(text.reason), std::move(text.message)});
  }
  note.strays.clear();
}

void Engine::note_words_changed(ClusterQueueState& cq, std::uint64_t hash, WorkloadRecord& rec) {
  auto note = cq.explained_classes.find(hash);
  if (note == cq.explained_classes.end()) return;
  if (*note->second.words == rec.pending) {
    rec.pending.stamp = note->second.stamp;  // back to the class's words: named as the class's
    return;
  }
  cq.note_class_stray(hash, rec.slot.key.workload);
}

void Engine::adopt_class_explanation(const ClusterQueueState& cq, WorkloadRecord& rec) {
  // A workload that joins a class parked earlier waits with it: it takes the words the
  // class was told, or else the explanation of a member that has one.
  if (auto note = cq.explained_classes.find(rec.slot.hash); note != cq.explained_classes.end()) {
    if (!rec.pending.same_as(*note->second.words)) {
      rec.pending = *note->second.words;
      PendingStatus text = render(rec.pending, rec);
      outbox_.pending.push_back({rec.key, std::move(text.reason), std::move(text.message)});
    }
    return;
  }
  cq.queue.for_each_parked_in_class(rec.slot.hash, [&](const QueueSlot& s) {
    if (&s == &rec.slot) return true;
    const WorkloadRecord& member = *workloads_[static_cast<std::size_t>(s.key.workload)];
    if (member.pending.reason.empty()) return true;
    if (!member.pending.same_as(rec.pending)) {
      rec.pending = member.pending;
      PendingStatus text = render(rec.pending, rec);
      outbox_.pending.push_back({rec.key, std::move(text.reason), std::move(text.message)});
    }
    return false;
  });
}

void Engine::note_class_join(ClusterQueueState& cq, const WorkloadRecord& rec) {
  auto note = cq.explained_classes.find(rec.slot.hash);
  if (note == cq.explained_classes.end()) return;
  const bool told = rec.pending.stamp != 0 && rec.pending.stamp == note->second.stamp;
  if (!told) cq.note_class_stray(rec.slot.hash, rec.slot.key.workload);
}

void Engine::forget_class_notes_of(const WorkloadRecord& rec) {
  if (rec.cq < 0) return;
  ClusterQueueState& cq = cqs_[static_cast<std::size_t>(rec.cq)];
  cq.forget_class_note(rec.slot.hash);
  cq.forget_class_note(rec.hash);
}

std::string Engine::cq_path(int cq) const {
  const auto& state = cqs_[static_cast<std::size_t>(cq)];
  if (state.tree < 0) return "/" + state.spec.name;
  const QuotaTree& t = trees_[static_cast<std::size_t>(state.tree)].quota;
  std::string path;
  for (int n = state.node; n != QuotaTree::kNoParent; n = t.parent(n)) path = "/" + t.name(n) + path;
  return path;
}

std::vector<std::string> Engine::cohort_ancestors(std::string_view name) const {
  const_cast<Engine*>(this)->ensure_topology();
  std::vector<std::string> out;
  int cq = cq_index(name);
  if (cq < 0) return out;
  const auto& state = cqs_[static_cast<std::size_t>(cq)];
  if (state.tree < 0) return out;
  const QuotaTree& t = trees_[static_cast<std::size_t>(state.tree)].quota;
  for (int n = t.parent(state.node); n != QuotaTree::kNoParent; n = t.parent(n)) out.push_back(t.name(n));
  return out;
}

std::string Engine::preemption_message(const WorkloadRecord& preemptor, const WorkloadRecord& victim,
                                       const std::string& reason) const {
  std::string human = "UNKNOWN";
  if (reason == "InClusterQueue") human = "prioritization in the ClusterQueue";
  if (reason == "InCohortReclamation") human = "reclamation within the cohort";
  if (reason == "InCohortFairSharing") human = "Fair Sharing within the cohort";
  if (reason == "InCohortReclaimWhileBorrowing") human = "reclamation within the cohort while borrowing";
  std::string msg = "Preempted to accommodate a workload (UID: " + (preemptor.uid.empty() ? "UNKNOWN" : preemptor.uid) +
                    ", JobUID: " + (preemptor.job_uid().empty() ? "UNKNOWN" : preemptor.job_uid()) + ") due to " +
                    human + "; preemptor path: " + cq_path(preemptor.cq) +
                    "; preemptee path: " + cq_path(victim.cq);
  // Kueue's condition message ends here; the priorities go only into the Preempted event.
  return msg;
}

}  // namespace kueuepp::core
