// Engine: workloads — loading, routing to queues, holding and releasing quota.

#include <algorithm>

#include "core/engine/engine.hpp"

namespace kueuepp::core {
namespace {

constexpr std::uint64_t kFnvOffset = 1469598103934665603ULL;
constexpr std::uint64_t kFnvPrime = 1099511628211ULL;

void fnv(std::uint64_t& h, std::string_view s) {
  for (unsigned char c : s) {
    h ^= c;
    h *= kFnvPrime;
  }
  h ^= 0xff;  // separator, so that ("ab","c") and ("a","bc") differ
  h *= kFnvPrime;
}
void fnv(std::uint64_t& h, std::int64_t v) {
  for (int i = 0; i < 8; ++i) {
    h ^= static_cast<std::uint64_t>(v >> (i * 8)) & 0xffu;
    h *= kFnvPrime;
  }
}

std::string canonical(const PodPlacement& p) {
  std::string out = "ns{";
  for (const auto& [k, v] : p.node_selector) out += k + "=" + v + ";";
  out += "}aff{";
  if (p.required_affinity) {
    for (const auto& term : *p.required_affinity) {
      out += "[";
      for (const auto& r : term.match_expressions) {
        out += r.key + ":" + std::to_string(static_cast<int>(r.op)) + ":";
        for (const auto& v : r.values) out += v + ",";
        out += ";";
      }
      out += "]";
    }
  } else {
    out += "none";
  }
  out += "}tol{";
  for (const auto& t : p.tolerations) {
    out += t.key + ":" + std::to_string(static_cast<int>(t.op)) + ":" + t.value + ":" +
           (t.effect ? std::to_string(static_cast<int>(*t.effect)) : "*") + ";";
  }
  return out + "}";
}

bool excluded(const std::string& resource, const std::vector<std::string>& prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](const std::string& p) { return resource.rfind(p, 0) == 0; });
}

}  // namespace

std::pair<std::shared_ptr<const PodPlacement>, std::uint64_t> Engine::intern_placement(
    const PodPlacement& p) {
  std::string key = canonical(p);
  auto it = placements_.find(key);
  if (it != placements_.end()) return it->second;
  std::uint64_t h = kFnvOffset;
  fnv(h, key);
  auto entry = std::make_pair(std::make_shared<const PodPlacement>(p), h);
  placements_.emplace(std::move(key), entry);
  return entry;
}

std::uint64_t Engine::scheduling_hash(const WorkloadRecord& rec) const {
  std::uint64_t h = kFnvOffset;
  fnv(h, rec.priority());
  for (const auto& ps : rec.pod_sets) {
    fnv(h, ps.name);
    fnv(h, ps.count);
    fnv(h, ps.min_count.value_or(-1));
    for (const auto& [r, v] : ps.per_pod) {
      fnv(h, resources_.name(r));
      fnv(h, v);
    }
    fnv(h, static_cast<std::int64_t>(ps.placement_hash));
  }
  return h == 0 ? 1 : h;
}

std::int32_t Engine::resolve_priority(const Workload& wl) const {
  if (wl.priority) return *wl.priority;
  if (wl.priority_class_ref) {
    const auto& ref = *wl.priority_class_ref;
    if (ref.kind == PriorityClassRef::Kind::WorkloadPriorityClass) {
      auto it = workload_priority_classes_.find(ref.name);
      return it == workload_priority_classes_.end() ? 0 : it->second.value;
    }
    auto it = priority_classes_.find(ref.name);
    return it == priority_classes_.end() ? 0 : it->second.value;
  }
  for (const auto& ps : wl.pod_sets) {
    if (ps.priority_class_name.empty()) continue;
    auto it = priority_classes_.find(ps.priority_class_name);
    return it == priority_classes_.end() ? 0 : it->second.value;
  }
  // The lowest-valued globalDefault PriorityClass, else 0.
  std::optional<std::int32_t> global;
  for (const auto& [name, pc] : priority_classes_) {
    if (pc.global_default && (!global || pc.value < *global)) global = pc.value;
  }
  return global.value_or(0);
}

Status Engine::load_record(WorkloadRecord& rec, const Workload& wl) {
  // rec.key is set once by record_for() and must never be reassigned: by_key_ holds a
  // view of its characters (a move-assignment would free them and leave the index
  // dangling, and the next apply of the same workload would create a second record).
  rec.uid = wl.uid.empty() ? rec.key : wl.uid;
  auto job_uid = wl.labels.find("kueue.x-k8s.io/job-uid");
  bool has_job_uid = job_uid != wl.labels.end() && !job_uid->second.empty();
  if (has_job_uid || rec.extras) rec.extra().job_uid = has_job_uid ? job_uid->second : "";
  rec.queue_name = wl.queue_name;
  rec.creation = wl.creation;
  const std::int64_t old_priority = rec.priority();
  rec.base_priority = resolve_priority(wl);
  rec.boost = config_.priority_boost ? wl.priority_boost : 0;
  if (rec.reserved && rec.cq >= 0 && rec.priority() != old_priority) {
    cqs_[static_cast<std::size_t>(rec.cq)].holding.priority_changed();
  }
  if (wl.priority_class_ref || rec.extras) rec.extra().priority_class_ref = wl.priority_class_ref;
  rec.active = wl.active;
  rec.gated = !wl.admission_gates.empty();
  if (rec.extras) {
    rec.extras->invalid_requests.reset();
    rec.extras->unsupported.reset();
  }
  rec.pod_sets.clear();
  if (wl.pod_sets.empty()) return fail("workload " + rec.key + " has no pod sets");
  for (const auto& ps : wl.pod_sets) {
    if (ps.count < 0) return fail("workload " + rec.key + ": pod set " + ps.name + " has a negative count");
    if (ps.min_count && (*ps.min_count < 0 || *ps.min_count > ps.count)) {
      return fail("workload " + rec.key + ": pod set " + ps.name + " has minCount " +
                  std::to_string(*ps.min_count) + " outside [0, count " + std::to_string(ps.count) + "]");
    }
    if (ps.invalid_requests) rec.extra().invalid_requests = "pod set " + ps.name + ": " + *ps.invalid_requests;
    if (ps.unsupported && !rec.unsupported()) rec.extra().unsupported = "pod set " + ps.name + " " + *ps.unsupported;
    PodSetRequest req;
    req.name = ps.name;
    req.count = ps.count;
    req.min_count = ps.min_count;
    for (const auto& [name, q] : ps.per_pod_requests) {  // name order (std::map)
      if (excluded(name, config_.exclude_resource_prefixes)) continue;
      req.per_pod.emplace_back(resources_.intern(name), std::max<std::int64_t>(0, q.milli()));
    }
    auto [placement, phash] = intern_placement(ps.placement);
    req.placement = std::move(placement);
    req.placement_hash = phash;
    rec.pod_sets.push_back(std::move(req));
  }
  rec.hash = scheduling_hash(rec);
  return {};
}

int Engine::record_for(const Workload& wl, bool& created) {
  std::string key = wl.key();
  auto it = by_key_.find(std::string_view(key));
  if (it != by_key_.end()) {
    created = false;
    return it->second;
  }
  created = true;
  int id;
  if (!free_ids_.empty()) {
    id = free_ids_.back();
    free_ids_.pop_back();
    workloads_[static_cast<std::size_t>(id)] = std::make_unique<WorkloadRecord>();
  } else {
    id = static_cast<int>(workloads_.size());
    workloads_.push_back(std::make_unique<WorkloadRecord>());
  }
  WorkloadRecord& rec = *workloads_[static_cast<std::size_t>(id)];
  rec.id = id;
  rec.key = std::move(key);
  by_key_[std::string_view(rec.key)] = id;
  return id;
}

const Labels& Engine::namespace_labels(std::string_view ns) const {
  auto it = namespaces_.find(ns);
  if (it != namespaces_.end()) return it->second.labels;
  // A namespace the engine was not told about exists with only its name label.
  auto implicit = implicit_namespaces_.find(ns);
  if (implicit == implicit_namespaces_.end()) {
    implicit = implicit_namespaces_.emplace(std::string(ns), Labels{{"kubernetes.io/metadata.name", std::string(ns)}}).first;
  }
  return implicit->second;
}

QueueOrderKey Engine::queue_key(const WorkloadRecord& rec) const {
  QueueOrderKey key;
  key.priority = rec.priority();
  key.timestamp = queue_order_timestamp(rec, config_);
  key.uid = rec.uid;
  key.workload = rec.id;
  return key;
}

bool Engine::backoff_expired(const WorkloadRecord& rec) const {
  if (rec.requeued_false) return false;
  return !rec.requeue_at || now_ >= *rec.requeue_at;
}

void Engine::unqueue(WorkloadRecord& rec) {
  if (rec.cq >= 0 && !rec.reserved) cqs_[static_cast<std::size_t>(rec.cq)].queue.remove(rec.slot);
}

void Engine::route(WorkloadRecord& rec) {
  if (rec.reserved) return;
  int target = -1;
  PendingExplanation why;
  auto lq = local_queues_.find(std::string(rec.ns()) + "/" + rec.queue_name);
  if (rec.queue_name.empty()) {
    // manageJobsWithoutQueueName holds such a job until it is given a queue.
    why = {"Misconfigured", "no LocalQueue: set the kueue.x-k8s.io/queue-name label, or create a LocalQueue named default in the namespace"};
  } else if (lq == local_queues_.end()) {
    why = {"Misconfigured", "LocalQueue " + rec.queue_name + " doesn't exist"};
  } else if (lq->second.stop_policy != StopPolicy::None) {
    why = {"Suspended", "LocalQueue " + rec.queue_name + " is stopped"};
  } else {
    int cq = cq_index(lq->second.cluster_queue);
    if (cq < 0 || !cq_exists_[static_cast<std::size_t>(cq)]) {
      why = {"Misconfigured", "ClusterQueue " + lq->second.cluster_queue + " doesn't exist"};
    } else {
      target = cq;
      const auto& state = cqs_[static_cast<std::size_t>(cq)];
      if (!state.active) {
        why = state.spec.stop_policy != StopPolicy::None
                  ? PendingExplanation{"Suspended", "ClusterQueue " + state.spec.name + " is inactive"}
                  : PendingExplanation{"Suspended", "ClusterQueue " + state.spec.name + " is inactive"};
      } else if (state.in_cohort_cycle) {
        why = {"Suspended", "ClusterQueue " + state.spec.name + " is inactive: its cohort tree has a cycle"};
      }
    }
  }
  if (!rec.active) why = {"Deactivated", "The workload is deactivated"};
  if (rec.gated) why = {"AdmissionGated", "The workload is gated by admission gates"};

  if (target != rec.cq && rec.cq >= 0) cqs_[static_cast<std::size_t>(rec.cq)].queue.remove(rec.slot);
  rec.cq = target;
  retally(rec);
  if (!why.reason.empty() && !rec.finished && !(why == rec.pending)) {
    // No cycle will look at it, so its status is written from here: a workload in a
    // stopped or missing queue says so at once (Kueue's workload controller does this).
    rec.pending = why;
    forget_class_notes_of(rec);
    PendingStatus text = render(rec.pending, rec);
    outbox_.pending.push_back({rec.key, std::move(text.reason), std::move(text.message), {}, {}});
  }
  enqueue(rec, true);
}

void Engine::enqueue(WorkloadRecord& rec, bool may_have_become_admissible) {
  if (rec.cq < 0 || rec.reserved) return;
  auto& queue = cqs_[static_cast<std::size_t>(rec.cq)].queue;
  if (rec.finished || !rec.active || rec.gated || rec.awaiting_object) {
    queue.remove(rec.slot);
    return;
  }
  const std::uint64_t joins = queue.joins();
  queue.push_or_update(rec.slot, queue_key(rec), rec.hash, may_have_become_admissible, backoff_expired(rec));
  ClusterQueueState& cq = cqs_[static_cast<std::size_t>(rec.cq)];
  if (rec.pending.reason.empty() && queue.is_parked(rec.slot)) adopt_class_explanation(cq, rec);
  if (queue.joins() != joins) note_class_join(cq, rec);
}

void Engine::reserve(WorkloadRecord& rec, int cq, std::vector<AdmittedPodSet> admission, Time at) {
  if (rec.reserved) release(rec);
  if (rec.cq >= 0) cqs_[static_cast<std::size_t>(rec.cq)].queue.remove(rec.slot);
  rec.reserved = true;
  rec.cq = cq;
  rec.admission = std::move(admission);
  rec.usage.clear();
  for (const auto& ps : rec.admission) {
    for (const auto& [r, v] : ps.usage) {
      auto flavor = std::find_if(ps.flavors.begin(), ps.flavors.end(), [r = r](auto& e) { return e.first == r; });
      if (flavor == ps.flavors.end()) continue;
      rec.usage.add(FlavorResource{flavor->second, r}, v);
    }
  }
  rec.reserved_at = at;
  if (cq < 0) {
    retally(rec);
    return;
  }
  auto& state = cqs_[static_cast<std::size_t>(cq)];
  rec.reserved_cq_name = state.spec.name;
  state.holding.insert(rec.id);
  if (state.tree >= 0) trees_[static_cast<std::size_t>(state.tree)].quota.add_usage(state.node, rec.usage);
  retally(rec);
}

void Engine::release(WorkloadRecord& rec) {
  if (!rec.reserved) return;
  int cq = rec.cq;
  if (cq >= 0) {
    auto& state = cqs_[static_cast<std::size_t>(cq)];
    if (state.tree >= 0 && !topology_dirty_) {
      trees_[static_cast<std::size_t>(state.tree)].quota.remove_usage(state.node, rec.usage);
    }
    state.holding.erase(rec.id);
    ++state.generation;
  }
  rec.reserved = false;
  rec.admitted = false;
  rec.assumed = false;
  rec.evicted = false;
  rec.admission.clear();
  rec.usage.clear();
  rec.reserved_cycle = -1;
  retally(rec);
  if (cq >= 0) flush_tree_of(cq);
}

void Engine::flush_tree_of(int cq) {
  auto& state = cqs_[static_cast<std::size_t>(cq)];
  std::vector<int> members;
  if (state.tree >= 0) {
    members = trees_[static_cast<std::size_t>(state.tree)].cqs;
  } else {
    members.push_back(cq);
  }
  for (int m : members) {
    auto& target = cqs_[static_cast<std::size_t>(m)];
    const auto& selector = target.spec.namespace_selector;
    target.queue.flush([&](int id) {
      const WorkloadRecord& w = *workloads_[static_cast<std::size_t>(id)];
      if (!selector || !selector->matches(namespace_labels(w.ns()))) return false;
      return backoff_expired(w);
    });
  }
}

void Engine::flush_all() {
  for (std::size_t i = 0; i < cqs_.size(); ++i) {
    if (cq_exists_[i] && cqs_[i].tree >= 0 && trees_[static_cast<std::size_t>(cqs_[i].tree)].cqs.front() == static_cast<int>(i)) {
      flush_tree_of(static_cast<int>(i));
    } else if (cq_exists_[i] && cqs_[i].tree < 0) {
      flush_tree_of(static_cast<int>(i));
    }
  }
}

void Engine::evict(WorkloadRecord& rec, std::string reason, std::string message) {
  rec.evicted = true;
  reset_checks_after_eviction(rec);
  rec.extra().eviction_reason = reason;
  EvictionDecision d;
  d.workload = rec.key;
  d.cluster_queue = rec.cq >= 0 ? cqs_[static_cast<std::size_t>(rec.cq)].spec.name : rec.reserved_cq_name;
  d.reason = std::move(reason);
  d.message = std::move(message);
  d.at = now_;
  outbox_.evictions.push_back(std::move(d));
}

Admission Engine::admission_of(const WorkloadRecord& rec) const {
  Admission a;
  a.cluster_queue = rec.reserved_cq_name;
  for (std::size_t i = 0; i < rec.admission.size() && i < rec.pod_sets.size(); ++i) {
    const auto& ps = rec.admission[i];
    PodSetAssignment out;
    out.name = rec.pod_sets[i].name;
    out.count = ps.count;
    for (const auto& [r, f] : ps.flavors) out.flavors[resources_.name(r)] = flavors_.name(f);
    for (const auto& [r, v] : ps.usage) out.resource_usage[resources_.name(r)] = Quantity::from_milli(v);
    a.pod_set_assignments.push_back(std::move(out));
  }
  return a;
}

// -- applying workload objects ------------------------------------------------------------

Status Engine::apply(const Workload& wl) {
  ensure_topology();
  bool created = false;
  int id = record_for(wl, created);
  WorkloadRecord& rec = *workloads_[static_cast<std::size_t>(id)];
  // Its queue names and whether it is finished may change: out of the finished counts
  // while it is loaded, back in after if it is (still) finished.
  if (rec.finished) count_finished(rec, -1);
  Status loaded = load_workload(rec, wl, created);
  if (rec.finished) count_finished(rec, +1);
  // Once for what load_workload set without a retally of its own (the queue name, the
  // Admitted condition): the release, reservation or finish inside it retallied already.
  retally(rec);
  return loaded;
}

void Engine::count_finished(const WorkloadRecord& rec, int delta) {
  auto queues = std::make_tuple(rec.reserved_cq_name, rec.key.substr(0, rec.key.find('/')), rec.queue_name);
  if (delta > 0) {
    ++finished_counts_[std::move(queues)];
    return;
  }
  auto it = finished_counts_.find(queues);  // always there: every -1 follows a +1
  if (it != finished_counts_.end() && --it->second == 0) finished_counts_.erase(it);
}

Status Engine::load_workload(WorkloadRecord& rec, const Workload& wl, bool created) {
  std::uint64_t old_hash = rec.hash;
  std::int64_t old_priority = rec.priority();
  bool old_requeued_false = rec.requeued_false;
  // A newer object: a workload held after a refused admission write competes again.
  const bool released_hold = rec.awaiting_object;
  rec.awaiting_object = false;

  Status loaded = load_record(rec, wl);
  load_checks(rec, wl);

  // Status.
  rec.requeue_at = wl.requeue_at;
  if (rec.requeue_at) earliest_backoff_ = std::min(earliest_backoff_, *rec.requeue_at);
  const Condition* requeued = wl.condition("Requeued");
  bool object_requeued_false = requeued != nullptr && !requeued->status;
  const Condition* evicted = wl.condition("Evicted");
  rec.evicted_by_timeout_at.reset();
  if (evicted != nullptr && evicted->status) {
    if ((evicted->reason == "PodsReadyTimeout" && config_.requeue_by_eviction_timestamp) ||
        evicted->reason == "AdmissionCheck") {
      rec.evicted_by_timeout_at = evicted->last_transition;
    }
  }
  bool object_reserved = wl.condition_true("QuotaReserved") && wl.admission.has_value();

  if (!loaded) {
    if (rec.reserved) release(rec);
    unqueue(rec);
    rec.pending = {"Misconfigured", loaded.error().message, {}};
    forget_class_notes_of(rec);
    return loaded;
  }

  if (wl.condition_true("Finished")) {
    if (rec.reserved) release(rec);
    unqueue(rec);
    set_finished(rec, true);
    // Kueue counts a finished workload in the queue that admitted it.
    rec.reserved_cq_name = wl.admission ? wl.admission->cluster_queue : std::string();
    return {};
  }
  set_finished(rec, false);
  rec.pods_ready = wl.condition_true("PodsReady");

  if (object_reserved) {
    rec.assumed = false;
    // The admission the object records: flavors and usage per pod set.
    std::vector<AdmittedPodSet> admission;
    for (std::size_t i = 0; i < rec.pod_sets.size(); ++i) {
      AdmittedPodSet ps;
      const PodSetAssignment* psa = nullptr;
      for (const auto& a : wl.admission->pod_set_assignments) {
        if (a.name == rec.pod_sets[i].name) psa = &a;
      }
      ps.count = psa && psa->count ? *psa->count : rec.pod_sets[i].count;
      if (psa != nullptr) {
        for (const auto& [res, flavor] : psa->flavors) {
          ps.flavors.emplace_back(resources_.intern(res), flavors_.intern(flavor));
        }
        for (const auto& [res, q] : psa->resource_usage) ps.usage.emplace_back(resources_.intern(res), q.milli());
        // Usage missing from the object: derive it from the requests.
        for (const auto& [r, f] : ps.flavors) {
          if (std::none_of(ps.usage.begin(), ps.usage.end(), [r = r](auto& e) { return e.first == r; })) {
            for (const auto& [pr, v] : rec.pod_sets[i].per_pod) {
              if (pr == r) ps.usage.emplace_back(r, sat_mul(v, ps.count));
            }
          }
        }
      }
      admission.push_back(std::move(ps));
    }
    if (flavor_by_id_.size() < flavors_.size()) mark_topology_dirty();
    int cq = cq_index(wl.admission->cluster_queue);
    if (cq >= 0 && !cq_exists_[static_cast<std::size_t>(cq)]) cq = -1;
    Time at = now_;
    if (const Condition* qr = wl.condition("QuotaReserved")) at = qr->last_transition;
    bool same = rec.reserved && rec.cq == cq && rec.reserved_cq_name == wl.admission->cluster_queue;
    if (same) {
      // Same queue: keep the reservation unless the admitted quantities changed.
      Amounts fresh;
      for (const auto& ps : admission) {
        for (const auto& [r, v] : ps.usage) {
          auto f = std::find_if(ps.flavors.begin(), ps.flavors.end(), [r = r](auto& e) { return e.first == r; });
          if (f != ps.flavors.end()) fresh.add(FlavorResource{f->second, r}, v);
        }
      }
      same = fresh == rec.usage;
    }
    if (!same) {
      unqueue(rec);
      rec.reserved_cq_name = wl.admission->cluster_queue;
      reserve(rec, cq, std::move(admission), at);
      rec.reserved_at = at;
    }
    // Admitted as the object says; review_admission_checks admits it once every check it
    // needs (often none) is Ready.
    rec.admitted = wl.condition_true("Admitted");
    if (evicted != nullptr && evicted->status && !rec.evicted) {
      rec.evicted = true;
      rec.extra().eviction_reason = evicted->reason;
    }
    // Reviewed at the next cycle's time; most reservations have nothing to review, and
    // left out they do not make the next cycle look like work (has_work).
    if (check_review_can_act(rec)) checks_due_.insert(rec.id);
    return {};
  }

  if (rec.reserved) {
    // Our own admission the object does not show yet: the write is in flight.
    if (rec.assumed) return {};
    // The admission was cleared: the eviction completed.
    std::string reason = rec.eviction_reason();
    release(rec);
    rec.requeued_false = object_requeued_false;
  } else {
    rec.requeued_false = object_requeued_false;
  }
  if (rec.requeued_false && (requeued->reason == "ClusterQueueStopped" || requeued->reason == "LocalQueueStopped")) {
    // Held out by a stop policy (possibly before a restart of this controller): let it
    // back when its queue runs again.
    rec.extra().eviction_reason = requeued->reason;
    restart_if_queue_runs(rec);
  }

  bool changed = created || old_hash != rec.hash || old_priority != rec.priority() ||
                 old_requeued_false != rec.requeued_false || released_hold;
  if (changed && old_hash != rec.hash) rec.scan.reset();
  if (rec.cq >= 0 && !created) {
    // Re-key in place: order key or eligibility may have changed.
    enqueue(rec, changed);
  }
  route(rec);
  return {};
}

void Engine::remove_workload(std::string_view key) {
  auto it = by_key_.find(key);
  if (it == by_key_.end()) return;
  int id = it->second;
  WorkloadRecord& rec = *workloads_[static_cast<std::size_t>(id)];
  if (rec.finished) count_finished(rec, -1);
  if (rec.reserved) release(rec);
  unqueue(rec);
  by_key_.erase(it);
  lq_tallies_.move(rec.tally, TallyShare{});
  workloads_[static_cast<std::size_t>(id)].reset();
  free_ids_.push_back(id);
}

void Engine::set_finished(WorkloadRecord& rec, bool finished) {
  rec.finished = finished;
  retally(rec);
}

void Engine::retally(WorkloadRecord& rec) {
  const bool counted = !rec.finished && rec.cq >= 0;
  const int group = counted ? lq_tallies_.group_of(rec.cq, rec.ns(), rec.queue_name, rec.tally.group) : -1;
  const bool reserved = counted && rec.reserved;
  const bool admitted = reserved && rec.admitted;
  const TallyShare& was = rec.tally;
  if (was.group == group && was.reserved == reserved && was.admitted == admitted &&
      (reserved ? was.usage == rec.usage : was.usage.empty())) {
    return;  // the common case (a status change that moves nothing): no copy of the usage
  }
  TallyShare now;
  now.group = group;
  now.reserved = reserved;
  now.admitted = admitted;
  if (reserved) now.usage = rec.usage;
  lq_tallies_.move(rec.tally, now);
  rec.tally = std::move(now);
}

Status Engine::finish_workload(std::string_view key) {
  ensure_topology();
  auto it = by_key_.find(key);
  if (it == by_key_.end()) return fail("workload " + std::string(key) + " not found");
  WorkloadRecord& rec = *workloads_[static_cast<std::size_t>(it->second)];
  if (rec.finished) return {};
  if (rec.reserved) release(rec);
  unqueue(rec);
  set_finished(rec, true);
  count_finished(rec, +1);
  return {};
}

Status Engine::complete_eviction(std::string_view key) {
  ensure_topology();
  auto it = by_key_.find(key);
  if (it == by_key_.end()) return fail("workload " + std::string(key) + " not found");
  WorkloadRecord& rec = *workloads_[static_cast<std::size_t>(it->second)];
  if (!rec.reserved) return fail("workload " + rec.key + " holds no quota; nothing to release");
  std::string reason = rec.eviction_reason();
  release(rec);
  // Preempted workloads compete again at once (Requeued=True); stop-policy evictions
  // wait for the queue to be restarted (Requeued=False).
  rec.requeued_false = reason == "ClusterQueueStopped" || reason == "LocalQueueStopped" ||
                       reason.starts_with("Deactivated");
  rec.extra().eviction_reason = reason;
  // Kueue resets the admission checks to Pending at every eviction (preemptions too).
  reset_checks_after_eviction(rec);
  if (reason == "AdmissionCheck" && rec.extras->check_requeue_at) {
    // A Retry check asked for a delay: held until then (Requeued=False, then
    // BackoffFinished).
    rec.requeue_at = rec.extras->check_requeue_at;
    rec.extras->check_requeue_at.reset();
    earliest_backoff_ = std::min(earliest_backoff_, *rec.requeue_at);
  }
  rec.scan.reset();
  route(rec);
  return {};
}

Status Engine::forget_admission(std::string_view key, bool hold_until_update) {
  auto it = by_key_.find(key);
  if (it == by_key_.end()) return fail("workload " + std::string(key) + " not found");
  WorkloadRecord& rec = *workloads_[static_cast<std::size_t>(it->second)];
  if (!rec.reserved) return {};
  release(rec);
  rec.awaiting_object = hold_until_update;
  route(rec);
  return {};
}

void Engine::reprioritize(const std::string& wpc_name, std::int32_t value) {
  for (auto& w : workloads_) {
    if (!w || !w->priority_class_ref()) continue;
    if (w->priority_class_ref()->kind != PriorityClassRef::Kind::WorkloadPriorityClass ||
        w->priority_class_ref()->name != wpc_name) {
      continue;
    }
    if (w->base_priority == value) continue;
    w->base_priority = value;
    if (w->reserved && w->cq >= 0) cqs_[static_cast<std::size_t>(w->cq)].holding.priority_changed();
    w->hash = scheduling_hash(*w);
    w->scan.reset();
    if (!w->reserved) enqueue(*w, true);
  }
}

void Engine::release_expired_backoffs() {
  if (now_ < earliest_backoff_) return;
  earliest_backoff_ = Time::max();
  for (auto& w : workloads_) {
    if (!w || w->reserved || w->finished || !w->requeue_at || w->requeued_false) continue;
    if (now_ < *w->requeue_at) {
      earliest_backoff_ = std::min(earliest_backoff_, *w->requeue_at);
      continue;
    }
    w->requeue_at.reset();
    enqueue(*w, true);
  }
}

std::optional<Time> Engine::next_requeue_time() const {
  // earliest_backoff_ is a lower bound kept up to date on every apply and made exact by
  // the next cycle's release_expired_backoffs: waking at it is at worst a little early,
  // and it costs nothing per round (a scan of every workload did, every round).
  if (earliest_backoff_ == Time::max()) return std::nullopt;
  return earliest_backoff_;
}

}  // namespace kueuepp::core
