#pragma once

// The pending workloads of one ClusterQueue, with Kueue's queueing semantics
// (pkg/cache/queue/cluster_queue.go): an ordered active set, the inadmissible set of
// workloads parked until something changes, the in-flight set popped by the current
// cycle, the sticky preemptor, and scheduling-equivalence bulk moves.

#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/model/cluster_queue.hpp"
#include "core/model/time.hpp"

namespace kueuepp::core {

/// Why the scheduler put a workload back (Kueue's RequeueReason).
enum class RequeueReason {
  Generic,
  NoFit,
  PreemptionNoCandidates,
  NamespaceMismatch,
  PendingPreemption,
  PreemptionFailed,
  FailedAfterNomination,
  PreemptionGated,
};

/// Queue order: higher priority first, then earlier queue-order timestamp, then UID.
struct QueueOrderKey {
  std::int64_t priority = 0;
  Time timestamp{};
  std::string_view uid;  ///< points into the workload record, which outlives the entry
  int workload = -1;

  friend bool operator<(const QueueOrderKey& a, const QueueOrderKey& b) {
    if (a.priority != b.priority) return a.priority > b.priority;
    if (a.timestamp != b.timestamp) return a.timestamp < b.timestamp;
    if (a.uid != b.uid) return a.uid < b.uid;
    return a.workload < b.workload;
  }
};

class PendingQueue {
 public:
  enum class Where { None, Active, Inadmissible, Inflight };

  struct Item {
    QueueOrderKey key;
    std::uint64_t hash = 0;  ///< scheduling equivalence hash (0: unknown)
  };

  explicit PendingQueue(QueueingStrategy strategy = QueueingStrategy::BestEffortFIFO)
      : strategy_(strategy) {}

  void set_strategy(QueueingStrategy s) { strategy_ = s; }
  QueueingStrategy strategy() const { return strategy_; }

  /// A new or updated pending workload (Kueue's PushOrUpdate). `may_have_become_admissible`
  /// is false when only status details irrelevant to admission changed, in which case an
  /// inadmissible workload stays parked. `backoff_expired` is false while a requeue
  /// backoff (Requeued=False, requeueAt in the future) holds the workload.
  void push_or_update(const Item& item, bool may_have_become_admissible, bool backoff_expired);

  /// Pops the head (the sticky preemptor first), marking it in flight.
  std::optional<int> pop();

  /// Puts a workload the scheduler could not admit back (Kueue's RequeueIfNotPresent).
  /// Returns true when it went to the active set.
  bool requeue(const Item& item, RequeueReason reason, bool backoff_expired, bool pending_flavors);

  /// Moves every parked workload for which `eligible(workload)` holds back to the active
  /// set (Kueue's QueueInadmissibleWorkloads) and forgets bulk-moved hashes.
  template <class Eligible>
  int flush(Eligible eligible);

  /// Forgets a workload (admitted, finished, deleted or moved to another queue).
  void remove(int workload);

  Where where(int workload) const;
  bool contains(int workload) const { return where(workload) != Where::None; }
  bool is_preemptor(int workload) const { return preemptor_ == workload; }
  std::size_t active_size() const { return active_.size() + (sticky_active_ ? 1 : 0); }
  std::size_t inadmissible_size() const { return inadmissible_.size(); }
  std::size_t size() const { return index_.size(); }
  bool has_active() const { return !active_.empty() || sticky_active_.has_value(); }

  /// Every pending workload in queue order (active, parked and in flight together), for
  /// positions and the visibility views.
  std::vector<int> ordered() const;

 private:
  void insert_active(const Item& item);
  void insert_inadmissible(const Item& item);
  void erase_everywhere(int workload);
  void set_preemptor(int workload, bool sticky);
  int bulk_move_hash(std::uint64_t hash);

  QueueingStrategy strategy_;
  std::map<QueueOrderKey, std::uint64_t> active_;  // key -> hash
  std::optional<Item> sticky_active_;  // the sticky preemptor, when it is in the active set
  std::unordered_map<int, Item> inadmissible_;
  std::unordered_map<int, Item> inflight_;
  std::unordered_map<int, std::pair<Where, Item>> index_;
  std::unordered_set<std::uint64_t> bulk_moved_hashes_;
  int preemptor_ = -1;
  bool preemptor_sticky_ = false;
  std::int64_t pop_cycle_ = 0;
  std::int64_t inadmissible_flush_cycle_ = -1;
};

template <class Eligible>
int PendingQueue::flush(Eligible eligible) {
  inadmissible_flush_cycle_ = pop_cycle_;
  bulk_moved_hashes_.clear();
  std::vector<int> moving;
  for (const auto& [wl, item] : inadmissible_) {
    if (eligible(wl)) moving.push_back(wl);
  }
  for (int wl : moving) {
    Item item = inadmissible_.at(wl);
    inadmissible_.erase(wl);
    insert_active(item);
  }
  return static_cast<int>(moving.size());
}

}  // namespace kueuepp::core
