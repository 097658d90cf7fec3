#pragma once

// The workloads holding a ClusterQueue's quota, and the lowest priority among them.
//
// The preemption search visits the preemptor's own queue first: with Kueue's usual
// withinClusterQueue LowerPriority, a queue that holds nothing of lower priority has no
// candidate, and on many queues most searches are of that kind (a small workload finding
// only its equals), each classifying every held workload to learn it (figures:
// docs/performance.md). The lowest priority answers at once. It is recomputed on demand after the set or a
// held workload's priority changed (the engine reports both).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_set>

namespace kueuepp::core {

class HeldWorkloads {
 public:
  using const_iterator = std::unordered_set<int>::const_iterator;

  void insert(int id) {
    ids_.insert(id);
    min_known_ = false;
  }
  void erase(int id) {
    ids_.erase(id);
    min_known_ = false;
  }
  /// The priority of a workload in the set changed.
  void priority_changed() { min_known_ = false; }

  std::size_t size() const { return ids_.size(); }
  bool empty() const { return ids_.empty(); }
  const_iterator begin() const { return ids_.begin(); }
  const_iterator end() const { return ids_.end(); }

  /// The lowest priority held (nullopt: none held); `priority_of(id)` reads one.
  template <class PriorityOf>
  std::optional<std::int64_t> min_priority(PriorityOf&& priority_of) const {
    if (!min_known_) {
      min_.reset();
      for (int id : ids_) {
        const std::int64_t p = priority_of(id);
        if (!min_ || p < *min_) min_ = p;
      }
      min_known_ = true;
    }
    return min_;
  }

 private:
  std::unordered_set<int> ids_;
  mutable bool min_known_ = false;
  mutable std::optional<std::int64_t> min_;
};

}  // namespace kueuepp::core
