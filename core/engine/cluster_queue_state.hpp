#pragma once

// A ClusterQueue as the engine keeps it: the spec compiled to interned ids, its place in
// a cohort tree, its pending queue and the workloads holding its quota.

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/engine/held_workloads.hpp"
#include "core/engine/ids.hpp"
#include "core/engine/pending_queue.hpp"
#include "core/model/cluster_queue.hpp"

namespace kueuepp::core {

struct PendingExplanation;

struct CompiledResourceGroup {
  std::vector<ResourceId> covered;  ///< in spec order
  std::vector<FlavorId> flavors;    ///< in spec order
};

struct ClusterQueueState {
  ClusterQueue spec;
  std::vector<CompiledResourceGroup> resource_groups;

  int tree = -1;  ///< index of its cohort tree
  int node = -1;  ///< its node in the tree's QuotaTree

  bool active = false;
  std::string inactive_reason;   ///< Kueue's Active=False reason (Stopped, FlavorNotFound, ...)
  std::string inactive_message;  ///< "Can't admit new workloads: ..."
  bool in_cohort_cycle = false;  ///< its cohort chain has a cycle: never scheduled

  /// Bumped when quota changes or a workload stops holding quota here (Kueue's
  /// AllocatableResourceGeneration); a flavor scan recorded under an older generation
  /// starts over.
  std::int64_t generation = 1;

  PendingQueue queue;
  HeldWorkloads holding;  ///< workloads holding quota here (reserved)

  /// What the members of a parked class were last told, so that evaluating its head
  /// again with the same outcome does not walk the class (thousands of members, every
  /// cycle). A member whose words change outside a class broadcast (its own evaluation
  /// said something else, or it joined with other words) is noted as a stray, and the
  /// next broadcast of the class's words tells the strays alone. A note is forgotten
  /// when strays pile up (a walk is cheaper then) and where a workload's words change
  /// outside a cycle (a stopped queue, a misconfigured workload).
  struct ClassExplained {
    std::uint64_t stamp = 0;  ///< PendingExplanation::stamp broadcast to the class
    std::shared_ptr<const PendingExplanation> words;  ///< what was broadcast
    std::vector<int> strays;  ///< workload ids whose words may differ since
  };
  static constexpr std::size_t kMaxClassStrays = 32;
  std::unordered_map<std::uint64_t, ClassExplained> explained_classes;
  void forget_class_note(std::uint64_t hash) {
    if (hash != 0) explained_classes.erase(hash);
  }
  /// The words of `workload`, a member of class `hash` (or about to be), may no longer
  /// be the class's.
  void note_class_stray(std::uint64_t hash, int workload) {
    auto note = explained_classes.find(hash);
    if (note == explained_classes.end()) return;
    if (note->second.strays.size() >= kMaxClassStrays) {
      explained_classes.erase(note);
      return;
    }
    note->second.strays.push_back(workload);
  }

  /// The resource group index covering a resource, or -1.
  int group_of(ResourceId r) const {
    for (std::size_t i = 0; i < resource_groups.size(); ++i) {
      for (ResourceId c : resource_groups[i].covered) {
        if (c == r) return static_cast<int>(i);
      }
    }
    return -1;
  }
  bool schedulable() const { return active && !in_cohort_cycle; }
};

}  // namespace kueuepp::core
