#pragma once

// What one admission cycle of one cohort tree works on: the snapshot of the tree's
// quota (which the cycle mutates as it admits), the ClusterQueues and workloads, and
// the set of workloads whose usage a preemption simulation has taken out.

#include <memory>
#include <unordered_set>
#include <vector>

#include "core/engine/cluster_queue_state.hpp"
#include "core/engine/engine_config.hpp"
#include "core/engine/ids.hpp"
#include "core/engine/quota_tree.hpp"
#include "core/engine/workload_record.hpp"
#include "core/model/resource_flavor.hpp"

namespace kueuepp::core {

struct SchedulingContext {
  const EngineConfig& config;
  const SymbolTable& resource_names;
  const SymbolTable& flavor_names;
  /// By FlavorId; nullptr when the flavor does not exist.
  const std::vector<const ResourceFlavor*>& flavors;
  std::vector<ClusterQueueState>& cqs;
  std::vector<std::unique_ptr<WorkloadRecord>>& workloads;
  /// Tree node -> ClusterQueue index (-1 for cohorts).
  const std::vector<int>& node_to_cq;
  QuotaTree& snapshot;
  std::int64_t cycle = 0;
  Time now{};
  /// Workloads whose usage is currently removed from the snapshot by a simulation.
  std::unordered_set<int> removed;

  WorkloadRecord& wl(int id) { return *workloads[static_cast<std::size_t>(id)]; }
  const WorkloadRecord& wl(int id) const { return *workloads[static_cast<std::size_t>(id)]; }
  ClusterQueueState& cq(int index) { return cqs[static_cast<std::size_t>(index)]; }

  /// A holding workload's usage out of the snapshot and back, nothing else (a what-if
  /// over many workloads at once, put back before anything else looks).
  void take_usage(int id) {
    const WorkloadRecord& w = wl(id);
    snapshot.remove_usage(cqs[static_cast<std::size_t>(w.cq)].node, w.usage);
  }
  void give_back_usage(int id) {
    const WorkloadRecord& w = wl(id);
    snapshot.add_usage(cqs[static_cast<std::size_t>(w.cq)].node, w.usage);
  }
  /// Takes a holding workload's usage out of the snapshot (preemption simulation).
  void remove_workload(int id) {
    take_usage(id);
    removed.insert(id);
  }
  void restore_workload(int id) {
    give_back_usage(id);
    removed.erase(id);
  }
  /// A workload the snapshot counts as holding quota in its ClusterQueue: not removed by
  /// a simulation and not admitted during this very cycle (Kueue's snapshot is taken at
  /// the start of the cycle).
  bool candidate_visible(int id) const {
    const WorkloadRecord& w = wl(id);
    return !removed.contains(id) && w.reserved_cycle != cycle;
  }
  /// A victim already evicted for another preemptor: its quota is that workload's, and
  /// comes free for the others only once the victim has stopped. Claimed again by
  /// `preemptor`, the same space would be counted free twice (and, through the fit of the
  /// entries after it in a cycle, for workloads that preempt nothing), and the cohort
  /// would hold more than its quota with nothing its victims' Evicted conditions explain.
  bool evicted_for_another(int id, const WorkloadRecord& preemptor) const {
    const WorkloadRecord& w = wl(id);
    if (!w.evicted || !w.extras || !w.extras->preempted) return false;
    return w.extras->preempted->preemptor_key != preemptor.key;
  }
};


}  // namespace kueuepp::core
