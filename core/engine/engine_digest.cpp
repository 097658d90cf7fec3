// Engine: the state digest, a deterministic hash of everything that affects decisions.
// Unordered containers are walked in a sorted order, so equal states give equal digests
// whatever their insertion history.

#include <algorithm>
#include <cstring>

#include "core/engine/engine.hpp"

namespace kueuepp::core {

namespace {

/// FNV-1a over the fields fed to it, each length-prefixed where its size varies.
class Digest {
 public:
  void bytes(const void* p, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) {
      h_ ^= b[i];
      h_ *= 1099511628211ull;
    }
  }
  void num(std::int64_t v) { bytes(&v, sizeof v); }
  void flag(bool b) { num(b ? 1 : 0); }
  void real(double d) {
    std::int64_t bits = 0;
    std::memcpy(&bits, &d, sizeof bits);
    num(bits);
  }
  void text(std::string_view s) {
    num(static_cast<std::int64_t>(s.size()));
    bytes(s.data(), s.size());
  }
  void time(Time t) { num(t.time_since_epoch().count()); }
  void time(const std::optional<Time>& t) {
    flag(t.has_value());
    if (t) time(*t);
  }
  void amounts(const Amounts& a) {
    for (const auto& [fr, v] : a) {
      num(static_cast<std::int64_t>(fr.packed()));
      num(v);
    }
    num(-1);
  }
  void labels(const Labels& l) {
    num(static_cast<std::int64_t>(l.size()));
    for (const auto& [k, v] : l) {
      text(k);
      text(v);
    }
  }
  void groups(const std::vector<ResourceGroup>& rgs) {
    num(static_cast<std::int64_t>(rgs.size()));
    for (const auto& rg : rgs) {
      for (const auto& r : rg.covered_resources) text(r);
      for (const auto& f : rg.flavors) {
        text(f.name);
        for (const auto& q : f.resources) {
          text(q.name);
          num(q.nominal.milli());
          num(q.borrowing_limit ? q.borrowing_limit->milli() : -1);
          num(q.lending_limit ? q.lending_limit->milli() : -1);
        }
      }
    }
  }
  void explanation(const PendingExplanation& p) {
    text(p.reason);
    text(p.text);
    num(static_cast<std::int64_t>(p.details.size()));
    for (const auto& [ps, reasons] : p.details) {
      num(static_cast<std::int64_t>(ps));
      num(static_cast<std::int64_t>(reasons.size()));
    }
    num(static_cast<std::int64_t>(p.stamp));
  }
  std::uint64_t value() const { return h_; }

 private:
  std::uint64_t h_ = 14695981039346656037ull;
};

template <class Set>
std::vector<int> sorted(const Set& s) {
  std::vector<int> v(s.begin(), s.end());
  std::sort(v.begin(), v.end());
  return v;
}

void digest_spec(Digest& d, const ClusterQueue& cq) {
  d.text(cq.name);
  d.text(cq.cohort);
  d.groups(cq.resource_groups);
  d.flag(cq.namespace_selector.has_value());
  d.num(static_cast<std::int64_t>(cq.queueing_strategy));
  d.num(static_cast<std::int64_t>(cq.preemption.within_cluster_queue));
  d.num(static_cast<std::int64_t>(cq.preemption.reclaim_within_cohort));
  d.flag(cq.preemption.borrow_within_cohort.has_value());
  if (cq.preemption.borrow_within_cohort) {
    d.flag(cq.preemption.borrow_within_cohort->lower_priority);
    d.num(cq.preemption.borrow_within_cohort->max_priority_threshold.value_or(-1));
  }
  d.num(static_cast<std::int64_t>(cq.flavor_fungibility.when_can_borrow));
  d.num(static_cast<std::int64_t>(cq.flavor_fungibility.when_can_preempt));
  d.real(cq.fair_weight);
  d.num(static_cast<std::int64_t>(cq.stop_policy));
  for (const auto& ac : cq.admission_checks) d.text(ac.name);
  d.flag(cq.terminating);
  for (const auto& u : cq.unsupported) d.text(u);
}

void digest_record(Digest& d, const WorkloadRecord& w) {
  d.num(w.id);
  d.text(w.key);
  d.text(w.uid);
  d.text(w.queue_name);
  d.time(w.creation);
  d.num(w.base_priority);
  d.num(w.boost);
  d.flag(w.active);
  d.flag(w.gated);
  d.num(static_cast<std::int64_t>(w.hash));
  for (const auto& ps : w.pod_sets) {
    d.text(ps.name);
    d.num(ps.count);
    d.num(ps.min_count.value_or(-1));
    for (const auto& [r, v] : ps.per_pod) {
      d.num(r);
      d.num(v);
    }
    d.num(static_cast<std::int64_t>(ps.placement_hash));
  }
  d.num(w.cq);
  d.num(w.slot.key.priority);
  d.time(w.slot.key.timestamp);
  d.text(w.slot.key.uid);
  d.num(w.slot.key.workload);
  d.num(static_cast<std::int64_t>(w.slot.hash));
  d.num(static_cast<std::int64_t>(w.slot.where));
  d.flag(w.slot.parked);
  d.num(w.slot.parked_epoch);
  d.num(static_cast<std::int64_t>(w.slot.activated_seq));
  d.flag(w.reserved);
  d.text(w.reserved_cq_name);
  d.flag(w.admitted);
  for (const auto& a : w.admission) {
    d.num(a.count);
    for (const auto& [r, f] : a.flavors) {
      d.num(r);
      d.num(f);
    }
    for (const auto& [r, v] : a.usage) {
      d.num(r);
      d.num(v);
    }
  }
  d.amounts(w.usage);
  d.time(w.reserved_at);
  d.num(w.reserved_cycle);
  d.flag(w.assumed);
  d.flag(w.awaiting_object);
  d.flag(w.evicted);
  d.flag(w.finished);
  d.flag(w.pods_ready);
  d.flag(w.requeued_false);
  d.time(w.requeue_at);
  d.time(w.evicted_by_timeout_at);
  d.flag(w.scan != nullptr);
  if (w.scan) {
    for (const auto& ps : w.scan->last_tried) {
      for (const auto& [r, idx] : ps) {
        d.num(r);
        d.num(idx);
      }
      d.num(-1);
    }
    d.num(w.scan->cq_generation);
    d.num(w.scan->cycle);
    d.num(static_cast<std::int64_t>(w.scan->hash));
  }
  d.explanation(w.pending);
  d.num(w.last_evaluated_cycle);
  d.num(static_cast<std::int64_t>(w.requeue_reason));
  d.flag(w.extras != nullptr);
  if (w.extras) {
    const WorkloadExtras& x = *w.extras;
    d.text(x.job_uid);
    d.text(x.eviction_reason);
    d.flag(x.preempted.has_value());
    if (x.preempted) {
      d.text(x.preempted->preemptor_key);
      d.text(x.preempted->reason);
      d.text(x.preempted->message);
      d.time(x.preempted->at);
    }
    for (const auto& c : x.checks) {
      d.text(c.name);
      d.num(static_cast<std::int64_t>(c.state));
      d.time(c.last_transition);
    }
    d.flag(x.deactivation_target);
    d.time(x.check_requeue_at);
    d.flag(x.invalid_requests.has_value());
    d.flag(x.unsupported.has_value());
  }
}

}  // namespace

std::uint64_t Engine::state_digest() const {
  Digest d;
  d.flag(config_.fair_sharing);
  for (auto s : config_.fair_sharing_strategies) d.num(static_cast<std::int64_t>(s));
  d.flag(config_.partial_admission);
  d.flag(config_.priority_boost);
  d.flag(config_.block_admission_until_pods_ready);
  d.flag(config_.requeue_by_eviction_timestamp);
  d.flag(config_.ignore_undeclared_resources);
  for (const auto& [name, f] : flavor_specs_) {
    d.text(name);
    d.labels(f.node_labels);
    d.text(f.topology_name.value_or(""));
  }
  for (const auto& [name, c] : cohorts_) {
    d.text(name);
    d.text(c.parent);
    d.groups(c.resource_groups);
    d.real(c.fair_weight);
  }
  for (const auto& [key, lq] : local_queues_) {
    d.text(key);
    d.text(lq.cluster_queue);
    d.num(static_cast<std::int64_t>(lq.stop_policy));
  }
  std::vector<std::string> namespace_names;
  for (const auto& [n, ns] : namespaces_) namespace_names.push_back(n);
  std::sort(namespace_names.begin(), namespace_names.end());
  for (const auto& name : namespace_names) {
    d.text(name);
    d.labels(namespaces_.find(name)->second.labels);
  }
  for (const auto& [name, pc] : priority_classes_) {
    d.text(name);
    d.num(pc.value);
    d.flag(pc.global_default);
  }
  for (const auto& [name, wpc] : workload_priority_classes_) {
    d.text(name);
    d.num(wpc.value);
  }
  for (const auto& [name, ac] : admission_checks_) {
    d.text(name);
    d.flag(ac.active);
  }
  for (std::size_t i = 0; i < cqs_.size(); ++i) {
    const ClusterQueueState& cq = cqs_[i];
    d.flag(cq_exists_[i]);
    digest_spec(d, cq.spec);
    d.num(cq.tree);
    d.num(cq.node);
    d.flag(cq.active);
    d.text(cq.inactive_message);
    d.flag(cq.in_cohort_cycle);
    d.num(cq.generation);
    for (int id : cq.queue.ordered()) d.num(id);
    d.num(static_cast<std::int64_t>(cq.queue.size()));
    d.num(static_cast<std::int64_t>(cq.queue.active_size()));
    d.num(static_cast<std::int64_t>(cq.queue.joins()));
    for (int id : sorted(cq.holding)) d.num(id);
    std::vector<std::uint64_t> classes;
    for (const auto& [hash, note] : cq.explained_classes) classes.push_back(hash);
    std::sort(classes.begin(), classes.end());
    for (std::uint64_t hash : classes) {
      const auto& note = cq.explained_classes.at(hash);
      d.num(static_cast<std::int64_t>(hash));
      d.num(static_cast<std::int64_t>(note.stamp));
      d.explanation(*note.words);
      for (int id : note.strays) d.num(id);
    }
  }
  d.num(static_cast<std::int64_t>(workloads_.size()));
  for (const auto& w : workloads_) {
    d.flag(w != nullptr);
    if (w) digest_record(d, *w);
  }
  for (int id : free_ids_) d.num(id);
  for (const auto& tree : trees_) {
    d.text(tree.root);
    for (int node = 0; node < tree.quota.size(); ++node) {
      for (FlavorResource fr : tree.quota.flavor_resources()) d.num(tree.quota.usage(node, fr));
    }
  }
  d.flag(topology_dirty_);
  d.num(cycle_);
  d.time(now_);
  d.time(earliest_backoff_);
  d.num(static_cast<std::int64_t>(pending_stamps_));
  d.flag(blocked_);
  for (const auto& a : outbox_.admissions) d.text(a.workload);
  for (const auto& e : outbox_.evictions) d.text(e.workload);
  for (const auto& p : outbox_.pending) {
    d.text(p.workload);
    d.text(p.reason);
    d.text(p.message);
  }
  for (const auto& c : outbox_.checks) d.text(c.workload);
  for (int id : sorted(checks_due_)) d.num(id);
  return d.value();
}

}  // namespace kueuepp::core
