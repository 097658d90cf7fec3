// Engine: the deep copy the what-if question is answered on.
//
// Records are copied whole (WorkloadRecord's out-of-line parts copy themselves); what
// points into them is rebound: queue slots (the pending queues hold slot pointers),
// order keys (a view of the record's UID), the by-key index (views of the keys) and
// the flavor table (pointers into the flavor specs). Every member of Engine and
// ClusterQueueState is named here: a member added without its copy here changes the
// answers of what_if against a real cycle, which tests/core/engine/engine_what_if_test.cpp
// compares on a thousand generated clusters.

#include "core/engine/engine.hpp"

namespace kueuepp::core {

namespace {

ClusterQueueState copy_cluster_queue(const ClusterQueueState& o, const PendingQueue::SlotRebind& rebind) {
  ClusterQueueState c;
  c.spec = o.spec;
  c.resource_groups = o.resource_groups;
  c.tree = o.tree;
  c.node = o.node;
  c.active = o.active;
  c.inactive_reason = o.inactive_reason;
  c.inactive_message = o.inactive_message;
  c.in_cohort_cycle = o.in_cohort_cycle;
  c.generation = o.generation;
  c.queue = PendingQueue(o.queue, rebind);
  c.holding = o.holding;
  c.explained_classes = o.explained_classes;
  return c;
}

}  // namespace

Engine::Engine(const Engine& other, CopyTag)
    : config_(other.config_),
      resources_(other.resources_),
      flavors_(other.flavors_),
      flavor_specs_(other.flavor_specs_),
      cq_exists_(other.cq_exists_),
      cq_by_name_(other.cq_by_name_),
      cohorts_(other.cohorts_),
      local_queues_(other.local_queues_),
      namespaces_(other.namespaces_),
      implicit_namespaces_(other.implicit_namespaces_),
      priority_classes_(other.priority_classes_),
      workload_priority_classes_(other.workload_priority_classes_),
      admission_checks_(other.admission_checks_),
      lq_tallies_(other.lq_tallies_),
      free_ids_(other.free_ids_),
      finished_counts_(other.finished_counts_),
      class_walks_(other.class_walks_),
      class_members_walked_(other.class_members_walked_),
      pending_stamps_(other.pending_stamps_),
      placements_(other.placements_),
      trees_(other.trees_),
      topology_dirty_(other.topology_dirty_),
      cycle_(other.cycle_),
      now_(other.now_),
      earliest_backoff_(other.earliest_backoff_),
      outbox_(other.outbox_),
      checks_due_(other.checks_due_),
      blocked_(other.blocked_) {
  // The flavor table points into the specs: into the copy's.
  flavor_by_id_.reserve(other.flavor_by_id_.size());
  for (const ResourceFlavor* f : other.flavor_by_id_) {
    flavor_by_id_.push_back(f == nullptr ? nullptr : &flavor_specs_.find(f->name)->second);
  }
  workloads_.reserve(other.workloads_.size());
  for (const auto& w : other.workloads_) {
    if (!w) {
      workloads_.emplace_back();
      continue;
    }
    auto copy = std::make_unique<WorkloadRecord>(*w);
    // The order key views the record's UID: the copy's own.
    if (w->slot.key.uid.data() == w->uid.data()) copy->slot.key.uid = copy->uid;
    by_key_.emplace(std::string_view(copy->key), copy->id);
    workloads_.push_back(std::move(copy));
  }
  // A queue's slots are its records' (slot.key.workload is the record's id); a slot
  // that is no live record's is not in any queue (a queue forgets a slot when its
  // record leaves it), so it has no copy.
  const auto& originals = other.workloads_;
  PendingQueue::SlotRebind rebind = [&](const QueueSlot* s) -> QueueSlot* {
    // The usual case answers at once: the slot names its record.
    const auto probe = static_cast<std::size_t>(s->key.workload);
    if (probe < originals.size() && originals[probe] && &originals[probe]->slot == s) {
      return &workloads_[probe]->slot;
    }
    for (std::size_t id = 0; id < originals.size(); ++id) {
      if (originals[id] && &originals[id]->slot == s) return &workloads_[id]->slot;
    }
    return nullptr;
  };
  cqs_.reserve(other.cqs_.size());
  for (const auto& cq : other.cqs_) cqs_.push_back(copy_cluster_queue(cq, rebind));
}

}  // namespace kueuepp::core
