// Engine: objects, the ClusterQueue/cohort topology and queries.

#include "core/engine/engine.hpp"

#include <algorithm>
#include <functional>
#include <set>

namespace kueuepp::core {

Engine::Engine(EngineConfig config)
    : config_(std::move(config)) {}

void Engine::set_config(EngineConfig config) {
  config_ = std::move(config);
  mark_topology_dirty();
}

int Engine::cq_index(std::string_view name) const {
  auto it = cq_by_name_.find(name);
  return it == cq_by_name_.end() ? -1 : it->second;
}

ClusterQueueState* Engine::find_cq(std::string_view name) {
  int i = cq_index(name);
  return i < 0 ? nullptr : &cqs_[static_cast<std::size_t>(i)];
}

// -- objects ----------------------------------------------------------------------------

void Engine::apply(const ResourceFlavor& flavor) {
  flavor_specs_[flavor.name] = flavor;
  mark_topology_dirty();
}

void Engine::remove_resource_flavor(std::string_view name) {
  if (auto it = flavor_specs_.find(name); it != flavor_specs_.end()) flavor_specs_.erase(it);
  mark_topology_dirty();
}

void Engine::apply(const ClusterQueue& cq) {
  int i = cq_index(cq.name);
  if (i >= 0 && cq_exists_[static_cast<std::size_t>(i)] && cqs_[static_cast<std::size_t>(i)].spec == cq) {
    // The same spec again (our own status writes come back this way): nothing to do.
    // Kueue requeues inadmissible workloads only when the spec changed (specUpdated in
    // queue.Manager.UpdateClusterQueue). Rebuilding the topology here would re-route every
    // pending workload, and even a flush of the tree would re-evaluate every parked
    // workload, once per status write (docs/performance.md).
    return;
  }
  if (i < 0) {
    i = static_cast<int>(cqs_.size());
    cqs_.emplace_back();
    cq_exists_.push_back(true);
    cq_by_name_[cq.name] = i;
  }
  cq_exists_[static_cast<std::size_t>(i)] = true;
  auto& state = cqs_[static_cast<std::size_t>(i)];
  state.spec = cq;
  state.queue.set_strategy(cq.queueing_strategy);
  mark_topology_dirty();
}

void Engine::remove_cluster_queue(std::string_view name) {
  int i = cq_index(name);
  if (i < 0) return;
  auto& state = cqs_[static_cast<std::size_t>(i)];
  // Pending workloads wait until a queue of that name exists again; workloads holding
  // quota keep it (Kueue keeps a terminating ClusterQueue until they finish).
  for (int id : state.queue.ordered()) {
    WorkloadRecord& w = *workloads_[static_cast<std::size_t>(id)];
    state.queue.remove(w.slot);
    w.cq = -1;
    retally(w);
  }
  cq_exists_[static_cast<std::size_t>(i)] = false;
  state.spec.resource_groups.clear();
  mark_topology_dirty();
}

void Engine::apply(const Cohort& cohort) {
  cohorts_[cohort.name] = cohort;
  mark_topology_dirty();
}

void Engine::remove_cohort(std::string_view name) {
  if (auto it = cohorts_.find(name); it != cohorts_.end()) cohorts_.erase(it);
  mark_topology_dirty();
}

void Engine::apply(const LocalQueue& lq) {
  auto [it, inserted] = local_queues_.try_emplace(lq.ns + "/" + lq.name, lq);
  if (!inserted && it->second == lq) return;  // unchanged (a status echo): see apply(ClusterQueue)
  it->second = lq;
  mark_topology_dirty();
}

void Engine::remove_local_queue(std::string_view ns, std::string_view name) {
  std::string key = std::string(ns) + "/" + std::string(name);
  local_queues_.erase(key);
  mark_topology_dirty();
}

void Engine::apply(const Namespace& ns) {
  namespaces_[ns.name] = ns;
  mark_topology_dirty();  // namespace selectors may now match: flush
}

void Engine::remove_namespace(std::string_view name) {
  if (auto it = namespaces_.find(name); it != namespaces_.end()) namespaces_.erase(it);
}

void Engine::apply(const PriorityClass& pc) { priority_classes_[pc.name] = pc; }

void Engine::remove_priority_class(std::string_view name) {
  if (auto it = priority_classes_.find(name); it != priority_classes_.end()) priority_classes_.erase(it);
}

void Engine::apply(const WorkloadPriorityClass& wpc) {
  auto it = workload_priority_classes_.find(wpc.name);
  bool changed = it == workload_priority_classes_.end() || it->second.value != wpc.value;
  workload_priority_classes_[wpc.name] = wpc;
  if (changed) reprioritize(wpc.name, wpc.value);
}

void Engine::remove_workload_priority_class(std::string_view name) {
  if (auto it = workload_priority_classes_.find(name); it != workload_priority_classes_.end()) {
    workload_priority_classes_.erase(it);
  }
}

void Engine::apply(const AdmissionCheck& ac) {
  admission_checks_[ac.name] = ac;
  mark_topology_dirty();
}

void Engine::remove_admission_check(std::string_view name) {
  if (auto it = admission_checks_.find(name); it != admission_checks_.end()) admission_checks_.erase(it);
  mark_topology_dirty();
}

// -- topology -----------------------------------------------------------------------------

void Engine::ensure_topology() {
  if (topology_dirty_) rebuild_topology();
}

void Engine::compile_cluster_queue(ClusterQueueState& cq) {
  cq.resource_groups.clear();
  for (const auto& rg : cq.spec.resource_groups) {
    CompiledResourceGroup compiled;
    for (const auto& r : rg.covered_resources) compiled.covered.push_back(resources_.intern(r));
    for (const auto& f : rg.flavors) compiled.flavors.push_back(flavors_.intern(f.name));
    cq.resource_groups.push_back(std::move(compiled));
  }
}

void Engine::compute_activity(ClusterQueueState& cq) {
  std::vector<std::string> reasons;
  std::vector<std::string> messages;
  if (cq.spec.stop_policy != StopPolicy::None) {
    reasons.push_back("Stopped");
    messages.push_back("is stopped");
  }
  std::vector<std::string> missing;
  for (const auto& rg : cq.spec.resource_groups) {
    for (const auto& f : rg.flavors) {
      if (!flavor_specs_.contains(f.name) &&
          std::find(missing.begin(), missing.end(), f.name) == missing.end()) {
        missing.push_back(f.name);
      }
    }
  }
  auto join = [](const std::vector<std::string>& v) {
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + v[i];
    return out + "]";
  };
  if (!missing.empty()) {
    reasons.push_back("FlavorNotFound");
    messages.push_back("references missing ResourceFlavor(s): " + join(missing));
  }
  std::vector<std::string> topology_flavors;
  for (const auto& rg : cq.spec.resource_groups) {
    for (const auto& f : rg.flavors) {
      auto spec = flavor_specs_.find(f.name);
      if (spec != flavor_specs_.end() && spec->second.topology_name &&
          std::find(topology_flavors.begin(), topology_flavors.end(), f.name) == topology_flavors.end()) {
        topology_flavors.push_back(f.name);
      }
    }
  }
  // What the queue asks for and kueuepp does not do: inactive, never admitting on quota
  // alone as if it had not been asked.
  if (!topology_flavors.empty()) {
    reasons.push_back("NotSupported");
    messages.push_back("uses ResourceFlavor(s) with a topologyName " + join(topology_flavors) +
                       ", and kueuepp does not implement topology-aware scheduling");
  }
  for (const auto& what : cq.spec.unsupported) {
    reasons.push_back("NotSupported");
    messages.push_back(what);
  }
  std::vector<std::string> missing_checks;
  std::vector<std::string> inactive_checks;
  for (const auto& ref : cq.spec.admission_checks) {
    auto it = admission_checks_.find(ref.name);
    if (it == admission_checks_.end()) {
      missing_checks.push_back(ref.name);
    } else if (!it->second.active) {
      inactive_checks.push_back(ref.name);
    }
  }
  if (!missing_checks.empty()) {
    reasons.push_back("AdmissionCheckNotFound");
    messages.push_back("references missing AdmissionCheck(s): " + join(missing_checks));
  }
  if (!inactive_checks.empty()) {
    reasons.push_back("AdmissionCheckInactive");
    messages.push_back("references inactive AdmissionCheck(s): " + join(inactive_checks));
  }
  if (cq.spec.terminating) {
    reasons = {"Terminating"};
    messages = {"is terminating"};
  }
  cq.active = reasons.empty();
  if (cq.active) {
    cq.inactive_reason.clear();
    cq.inactive_message.clear();
    return;
  }
  cq.inactive_reason = reasons.front();
  std::string msg = "Can't admit new workloads: ";
  for (std::size_t i = 0; i < messages.size(); ++i) msg += (i ? ", " : "") + messages[i];
  cq.inactive_message = msg + ".";
}

void Engine::build_trees() {
  trees_.clear();
  // Every cohort name in play: Cohort objects, parents they name and cohortName of
  // ClusterQueues (a Cohort object need not exist).
  auto parent_of = [this](const std::string& cohort) -> std::string {
    auto it = cohorts_.find(cohort);
    return it == cohorts_.end() ? std::string() : it->second.parent;
  };
  // Root of a cohort, or "" when its parent chain has a cycle.
  std::map<std::string, std::string> root_cache;
  auto root_of = [&](const std::string& cohort) {
    if (auto it = root_cache.find(cohort); it != root_cache.end()) return it->second;
    std::vector<std::string> path;
    std::set<std::string> seen;
    std::string cur = cohort;
    std::string root;
    while (true) {
      if (seen.contains(cur)) {
        root.clear();
        break;
      }
      seen.insert(cur);
      path.push_back(cur);
      std::string p = parent_of(cur);
      if (p.empty()) {
        root = cur;
        break;
      }
      cur = p;
    }
    for (const auto& c : path) root_cache[c] = root;
    return root;
  };

  std::map<std::string, std::vector<int>> cqs_by_root;  // root cohort -> CQs
  std::vector<int> standalone;
  for (std::size_t i = 0; i < cqs_.size(); ++i) {
    if (!cq_exists_[i]) continue;
    auto& cq = cqs_[i];
    cq.tree = -1;
    cq.node = -1;
    cq.in_cohort_cycle = false;
    if (cq.spec.cohort.empty()) {
      standalone.push_back(static_cast<int>(i));
      continue;
    }
    std::string root = root_of(cq.spec.cohort);
    if (root.empty()) {
      cq.in_cohort_cycle = true;
      continue;
    }
    cqs_by_root[root].push_back(static_cast<int>(i));
  }
  // Cohort objects whose tree has quota but no ClusterQueue still form a tree; they
  // cannot admit anything, so they are left out.

  auto set_quotas = [this](QuotaTree& q, int node, const std::vector<ResourceGroup>& rgs) {
    for (const auto& rg : rgs) {
      for (const auto& f : rg.flavors) {
        FlavorId fid = flavors_.intern(f.name);
        for (const auto& r : f.resources) {
          QuotaTree::Quota quota;
          quota.nominal = r.nominal.milli();
          if (r.borrowing_limit) quota.borrowing_limit = r.borrowing_limit->milli();
          if (r.lending_limit) quota.lending_limit = r.lending_limit->milli();
          q.set_quota(node, FlavorResource{fid, resources_.intern(r.name)}, quota);
        }
      }
    }
  };

  auto new_tree = [this](std::string root) {
    trees_.emplace_back();
    trees_.back().root = std::move(root);
    return static_cast<int>(trees_.size() - 1);
  };

  for (int i : standalone) {
    int t = new_tree(cqs_[static_cast<std::size_t>(i)].spec.name);
    Tree& tree = trees_[static_cast<std::size_t>(t)];
    auto& cq = cqs_[static_cast<std::size_t>(i)];
    int node = tree.quota.add_node(cq.spec.name, true, QuotaTree::kNoParent, cq.spec.fair_weight);
    set_quotas(tree.quota, node, cq.spec.resource_groups);
    tree.node_to_cq.push_back(i);
    tree.cqs.push_back(i);
    cq.tree = t;
    cq.node = node;
  }

  // Children of each cohort (cohorts by parent name).
  std::map<std::string, std::vector<std::string>> child_cohorts;
  for (const auto& [name, c] : cohorts_) {
    if (!c.parent.empty()) child_cohorts[c.parent].push_back(name);
  }
  for (const auto& [root, members] : cqs_by_root) {
    int t = new_tree(root);
    Tree& tree = trees_[static_cast<std::size_t>(t)];
    std::map<std::string, int> cohort_node;
    std::function<void(const std::string&, int)> add_cohort = [&](const std::string& name, int parent) {
      auto it = cohorts_.find(name);
      double weight = it == cohorts_.end() ? 1.0 : it->second.fair_weight;
      int node = tree.quota.add_node(name, false, parent, weight);
      tree.node_to_cq.push_back(-1);
      cohort_node[name] = node;
      if (it != cohorts_.end()) set_quotas(tree.quota, node, it->second.resource_groups);
      for (const auto& child : child_cohorts[name]) add_cohort(child, node);
    };
    add_cohort(root, QuotaTree::kNoParent);
    // Implicit cohorts (named by a ClusterQueue, no object) hang off the root only if
    // they are the root; otherwise they were created above through their parents.
    std::vector<int> sorted = members;
    std::sort(sorted.begin(), sorted.end(), [this](int a, int b) {
      return cqs_[static_cast<std::size_t>(a)].spec.name < cqs_[static_cast<std::size_t>(b)].spec.name;
    });
    for (int i : sorted) {
      auto& cq = cqs_[static_cast<std::size_t>(i)];
      auto it = cohort_node.find(cq.spec.cohort);
      if (it == cohort_node.end()) {
        // A cohort referenced only by ClusterQueues, below an existing parent chain that
        // does not list it: attach it to the root.
        int node = tree.quota.add_node(cq.spec.cohort, false, tree.quota.root(), 1.0);
        tree.node_to_cq.push_back(-1);
        it = cohort_node.emplace(cq.spec.cohort, node).first;
      }
      int node = tree.quota.add_node(cq.spec.name, true, it->second, cq.spec.fair_weight);
      tree.node_to_cq.push_back(i);
      set_quotas(tree.quota, node, cq.spec.resource_groups);
      tree.cqs.push_back(i);
      cq.tree = t;
      cq.node = node;
    }
  }
  for (auto& tree : trees_) {
    tree.quota.finalize();
  }
  // Usage of every workload holding quota.
  for (auto& w : workloads_) {
    if (!w || !w->reserved || w->cq < 0) continue;
    auto& cq = cqs_[static_cast<std::size_t>(w->cq)];
    if (cq.tree < 0) continue;
    trees_[static_cast<std::size_t>(cq.tree)].quota.add_usage(cq.node, w->usage);
  }
}

void Engine::rebuild_topology() {
  topology_dirty_ = false;
  flavor_by_id_.assign(flavors_.size(), nullptr);
  for (auto& [name, spec] : flavor_specs_) {
    FlavorId id = flavors_.intern(name);
    if (flavor_by_id_.size() <= id) flavor_by_id_.resize(id + 1u, nullptr);
    flavor_by_id_[id] = &spec;
  }
  for (std::size_t i = 0; i < cqs_.size(); ++i) {
    if (!cq_exists_[i]) continue;
    compile_cluster_queue(cqs_[i]);
    compute_activity(cqs_[i]);
    ++cqs_[i].generation;
  }
  // Interning may have added flavors.
  if (flavor_by_id_.size() < flavors_.size()) flavor_by_id_.resize(flavors_.size(), nullptr);
  // Workloads holding quota belong to the queue named in their admission, which may
  // have appeared (or gone) since.
  for (auto& w : workloads_) {
    if (!w || !w->reserved) continue;
    int target = cq_index(w->reserved_cq_name);
    if (target >= 0 && !cq_exists_[static_cast<std::size_t>(target)]) target = -1;
    if (target == w->cq) continue;
    if (w->cq >= 0) cqs_[static_cast<std::size_t>(w->cq)].holding.erase(w->id);
    w->cq = target;
    if (target >= 0) cqs_[static_cast<std::size_t>(target)].holding.insert(w->id);
    retally(*w);
  }
  build_trees();
  for (auto& w : workloads_) {
    if (w && !w->reserved && !w->finished) route(*w);
  }
  apply_stop_policies();
  review_checks_of_cluster_queues();
  flush_all();
}

void Engine::apply_stop_policies() {
  for (std::size_t i = 0; i < cqs_.size(); ++i) {
    if (!cq_exists_[i]) continue;
    auto& cq = cqs_[i];
    if (cq.spec.stop_policy == StopPolicy::None) continue;
    std::vector<int> holding(cq.holding.begin(), cq.holding.end());
    std::sort(holding.begin(), holding.end());
    for (int id : holding) {
      WorkloadRecord& w = *workloads_[static_cast<std::size_t>(id)];
      if (w.evicted) continue;
      // Hold keeps admitted workloads running but takes back reservations that are
      // not admitted yet; HoldAndDrain evicts everything.
      if (cq.spec.stop_policy == StopPolicy::HoldAndDrain || !w.admitted) {
        evict(w, "ClusterQueueStopped", "The ClusterQueue is stopped");
      }
    }
  }
  // Restarted queues take back the workloads their stop policy evicted.
  for (auto& w : workloads_) {
    if (w) restart_if_queue_runs(*w);
  }
  for (auto& w : workloads_) {
    if (!w || !w->reserved || w->evicted) continue;
    auto it = local_queues_.find(std::string(w->ns()) + "/" + w->queue_name);
    if (it == local_queues_.end() || it->second.stop_policy == StopPolicy::None) continue;
    if (it->second.stop_policy == StopPolicy::HoldAndDrain || !w->admitted) {
      evict(*w, "LocalQueueStopped", "The LocalQueue is stopped");
    }
  }
}

void Engine::restart_if_queue_runs(WorkloadRecord& w) {
  if (w.reserved || !w.requeued_false) return;
  bool cq_stop = w.eviction_reason() == "ClusterQueueStopped";
  bool lq_stop = w.eviction_reason() == "LocalQueueStopped";
  if (!cq_stop && !lq_stop) return;
  auto lq = local_queues_.find(std::string(w.ns()) + "/" + w.queue_name);
  if (lq == local_queues_.end()) return;
  bool restarted = lq_stop && lq->second.stop_policy == StopPolicy::None;
  if (cq_stop) {
    int cq = cq_index(lq->second.cluster_queue);
    restarted = cq >= 0 && cq_exists_[static_cast<std::size_t>(cq)] &&
                cqs_[static_cast<std::size_t>(cq)].spec.stop_policy == StopPolicy::None;
  }
  if (!restarted) return;
  w.requeued_false = false;
  w.extra().eviction_reason.clear();
  route(w);
  PendingDecision d;
  d.workload = w.key;
  d.requeued_reason = cq_stop ? "ClusterQueueRestarted" : "LocalQueueRestarted";
  d.requeued_message = cq_stop ? "The ClusterQueue was restarted after being stopped"
                               : "The LocalQueue was restarted after being stopped";
  outbox_.pending.push_back(std::move(d));
}

// -- queries ----------------------------------------------------------------------------

std::vector<std::string> Engine::cluster_queue_names() const {
  std::vector<std::string> out;
  for (const auto& [name, i] : cq_by_name_) {
    if (cq_exists_[static_cast<std::size_t>(i)]) out.push_back(name);
  }
  return out;
}

std::optional<ClusterQueueView> Engine::cluster_queue(std::string_view name) const {
  const_cast<Engine*>(this)->ensure_topology();
  int i = cq_index(name);
  if (i < 0 || !cq_exists_[static_cast<std::size_t>(i)]) return std::nullopt;
  const auto& cq = cqs_[static_cast<std::size_t>(i)];
  ClusterQueueView v;
  v.name = cq.spec.name;
  // Like Kueue, a queue whose cohort tree has a cycle keeps Active=True (its own
  // configuration is fine); it is only skipped by scheduling.
  v.active = cq.active;
  v.inactive_reason = cq.inactive_reason;
  v.inactive_message = cq.inactive_message;
  v.pending = cq.queue.size();
  v.pending_active = cq.queue.active_size();
  v.pending_inadmissible = cq.queue.inadmissible_size();
  v.reserving = cq.holding.size();
  Amounts reserved;
  Amounts used;
  for (int id : cq.holding) {
    const auto& w = *workloads_[static_cast<std::size_t>(id)];
    reserved.add_all(w.usage);
    if (w.admitted) {
      ++v.admitted;
      used.add_all(w.usage);
    }
  }
  // Every flavor-resource of the queue's resource groups, in spec order.
  for (const auto& rg : cq.spec.resource_groups) {
    for (const auto& f : rg.flavors) {
      for (const auto& r : f.resources) {
        int fid = flavors_.find(f.name);
        int rid = resources_.find(r.name);
        if (fid < 0 || rid < 0) continue;
        FlavorResource fr{static_cast<FlavorId>(fid), static_cast<ResourceId>(rid)};
        std::int64_t nominal = r.nominal.milli();
        auto make = [&](const Amounts& a) {
          std::int64_t total = a.get(fr);
          return ClusterQueueView::Usage{f.name, r.name, total, std::max<std::int64_t>(0, total - nominal)};
        };
        v.reservation.push_back(make(reserved));
        v.usage.push_back(make(used));
      }
    }
  }
  if (config_.fair_sharing && cq.tree >= 0) {
    const auto& tree = trees_[static_cast<std::size_t>(cq.tree)];
    v.weighted_share = tree.quota.dominant_resource_share(cq.node, nullptr, resources_).rounded_weighted();
  }
  return v;
}

std::vector<std::string> Engine::pending_in_order(std::string_view name, std::size_t limit) const {
  const_cast<Engine*>(this)->ensure_topology();
  std::vector<std::string> out;
  int i = cq_index(name);
  if (i < 0) return out;
  for (int id : cqs_[static_cast<std::size_t>(i)].queue.ordered(limit)) {
    out.push_back(workloads_[static_cast<std::size_t>(id)]->key);
  }
  return out;
}

std::optional<std::vector<PendingWorkloadRef>> Engine::pending_workloads(std::string_view name,
                                                                          std::size_t limit) const {
  const_cast<Engine*>(this)->ensure_topology();
  int i = cq_index(name);
  if (i < 0 || !cq_exists_[static_cast<std::size_t>(i)]) return std::nullopt;
  std::vector<PendingWorkloadRef> out;
  for (int id : cqs_[static_cast<std::size_t>(i)].queue.ordered(limit)) {
    const WorkloadRecord& w = *workloads_[static_cast<std::size_t>(id)];
    out.push_back(PendingWorkloadRef{w.key, w.queue_name, w.base_priority});
  }
  return out;
}

std::optional<std::string> Engine::cluster_queue_of_local_queue(std::string_view ns, std::string_view name) const {
  auto it = local_queues_.find(std::string(ns) + "/" + std::string(name));
  if (it == local_queues_.end()) return std::nullopt;
  return it->second.cluster_queue;
}

std::optional<std::int32_t> Engine::workload_priority_class_value(std::string_view name) const {
  auto it = workload_priority_classes_.find(name);
  if (it == workload_priority_classes_.end()) return std::nullopt;
  return it->second.value;
}

std::optional<std::int32_t> Engine::priority_class_value(std::string_view name) const {
  auto it = priority_classes_.find(name);
  if (it == priority_classes_.end()) return std::nullopt;
  return it->second.value;
}

std::optional<std::pair<std::string, std::int32_t>> Engine::default_priority_class() const {
  std::optional<std::pair<std::string, std::int32_t>> out;
  for (const auto& [name, pc] : priority_classes_) {
    if (pc.global_default && (!out || pc.value < out->second)) out = std::make_pair(name, pc.value);
  }
  return out;
}

std::map<std::string, std::int64_t> Engine::pending_reasons(std::string_view name) const {
  const_cast<Engine*>(this)->ensure_topology();
  std::map<std::string, std::int64_t> out;
  int i = cq_index(name);
  if (i < 0) return out;
  cqs_[static_cast<std::size_t>(i)].queue.for_each_pending([&](int id) {
    const std::string& reason = workloads_[static_cast<std::size_t>(id)]->pending.reason;
    if (!reason.empty()) ++out[reason];
  });
  return out;
}

bool Engine::has_heads() const {
  for (std::size_t i = 0; i < cqs_.size(); ++i) {
    if (cq_exists_[i] && cqs_[i].schedulable() && cqs_[i].queue.has_active()) return true;
  }
  return false;
}

bool Engine::has_work(Time now) const {
  if (topology_dirty_ || now >= earliest_backoff_) return true;
  if (!outbox_.admissions.empty() || !outbox_.evictions.empty() || !outbox_.checks.empty()) return true;
  for (int id : checks_due_) {
    if (id < 0 || static_cast<std::size_t>(id) >= workloads_.size()) continue;
    const auto& rec = workloads_[static_cast<std::size_t>(id)];
    if (rec && check_review_can_act(*rec)) return true;
  }
  return has_heads();
}

std::optional<WorkloadView> Engine::workload(std::string_view key, bool with_position) const {
  const_cast<Engine*>(this)->ensure_topology();
  auto it = by_key_.find(key);
  if (it == by_key_.end()) return std::nullopt;
  const WorkloadRecord& w = *workloads_[static_cast<std::size_t>(it->second)];
  WorkloadView v;
  v.key = w.key;
  if (w.cq >= 0) v.cluster_queue = cqs_[static_cast<std::size_t>(w.cq)].spec.name;
  v.reserved = w.reserved;
  v.admitted = w.admitted;
  v.evicted = w.evicted;
  v.finished = w.finished;
  if (w.reserved) v.admission = admission_of(w);
  v.pending = render(w.pending, w);
  if (w.extras) v.preempted = w.extras->preempted;
  for (const auto& ps : w.pod_sets) v.pod_set_counts.emplace_back(ps.name, ps.count);
  if (with_position && !w.reserved && w.cq >= 0) {
    auto order = cqs_[static_cast<std::size_t>(w.cq)].queue.ordered();
    auto pos = std::find(order.begin(), order.end(), w.id);
    if (pos != order.end()) v.position = static_cast<int>(pos - order.begin());
  }
  return v;
}

void Engine::for_each_local_queue_tally(const std::function<void(const LocalQueueTally&)>& f) const {
  const_cast<Engine*>(this)->ensure_topology();
  auto named = [this](const std::vector<LocalQueueTallies::Sum>& sums, std::vector<UsageItem>& out) {
    out.clear();
    for (const auto& s : sums) {
      out.push_back({flavors_.name(s.fr.flavor), resources_.name(s.fr.resource), LocalQueueTallies::saturated(s.milli)});
    }
  };
  LocalQueueTally t;  // its vectors reused from group to group
  lq_tallies_.for_each([&](const LocalQueueTallies::Group& g) {
    t.cluster_queue = cqs_[static_cast<std::size_t>(g.cq)].spec.name;
    t.ns = g.ns;
    t.local_queue = g.local_queue;
    t.pending = g.pending;
    t.reserving = g.reserving;
    t.admitted = g.admitted;
    named(g.reserved, t.reserved);
    named(g.used, t.used);
    f(t);
  });
}

void Engine::for_each_finished_tally(const std::function<void(const FinishedTally&)>& f) const {
  for (const auto& [queues, count] : finished_counts_) {
    f(FinishedTally{std::get<0>(queues), std::get<1>(queues), std::get<2>(queues), count});
  }
}

PendingStatus Engine::pending_status(std::string_view key) const {
  const_cast<Engine*>(this)->ensure_topology();
  auto it = by_key_.find(key);
  if (it == by_key_.end()) return {};
  const WorkloadRecord& w = *workloads_[static_cast<std::size_t>(it->second)];
  return render(w.pending, w);
}

std::vector<WorkloadView> Engine::workloads() const {
  std::vector<std::string> keys;
  for (const auto& [k, id] : by_key_) keys.emplace_back(k);
  std::sort(keys.begin(), keys.end());
  std::vector<WorkloadView> out;
  for (const auto& k : keys) {
    if (auto v = workload(k, false)) out.push_back(std::move(*v));
  }
  return out;
}

PendingStatus Engine::render(const PendingExplanation& e, const WorkloadRecord& rec) const {
  PendingStatus out;
  out.reason = e.reason;
  if (!e.details.empty()) {
    std::vector<std::string> names;
    names.reserve(rec.pod_sets.size());
    for (const auto& ps : rec.pod_sets) names.push_back(ps.name);
    out.message = render_message(e.details, names, resources_, flavors_, flavor_by_id_);
  }
  out.message += e.text;
  return out;
}

Decisions Engine::take_decisions() {
  Decisions out = std::move(outbox_);
  outbox_ = Decisions{};
  return out;
}

}  // namespace kueuepp::core
