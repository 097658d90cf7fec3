#pragma once

// The pending workloads of one ClusterQueue, with Kueue's queueing semantics
// (pkg/cache/queue/cluster_queue.go): the active heap, the inadmissible set of workloads
// parked until something changes, the workloads in flight in the current cycle, the
// sticky preemptor, and scheduling-equivalence bulk moves.
//
// Kueue moves workloads between its heap and its inadmissible map one by one, so a
// single released workload makes it touch every parked workload of the cohort tree.
// Here parking is lazy: a workload is parked when it was parked (individually or
// through its equivalence class) during the current flush epoch. A flush is then
// O(classes) (a new epoch), and a bulk move is O(1) (the class's park marker). Queued
// workloads are kept per equivalence class, each class in queue order, and the queue
// keeps every class's first unparked workload in one ordered set of heads: a pop takes
// the first head and never walks over the members of a parked class (walking the whole
// queue after every flush was most of the engine's time on deep queues). The observable
// behaviour is Kueue's.

#include <cstdint>
#include <functional>
#include <set>
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

/// A workload's place in a PendingQueue; embedded in the workload's record so that the
/// queue allocates nothing per workload beyond its ordered-set node.
struct QueueSlot {
  enum class Where : std::uint8_t { None, Queued, Held, Inflight };
  QueueOrderKey key;
  std::uint64_t hash = 0;  ///< scheduling equivalence hash (0: unknown)
  Where where = Where::None;
  bool parked = false;           ///< parked individually in epoch `parked_epoch`
  std::int64_t parked_epoch = -1;
  std::uint64_t activated_seq = 0;  ///< when it last became active (for bulk moves)
};

class PendingQueue {
 public:
  explicit PendingQueue(QueueingStrategy strategy = QueueingStrategy::BestEffortFIFO)
      : strategy_(strategy) {}
  /// Names, for a slot of the queue copied from, the slot it becomes in the copy.
  using SlotRebind = std::function<QueueSlot*(const QueueSlot*)>;
  /// A copy of `other` holding, for each of its slots, the slot `rebind` names: the
  /// queue of a copied engine, whose workload records (and so their slots) are copies
  /// too. The copies must carry the same order keys and classes.
  PendingQueue(const PendingQueue& other, const SlotRebind& rebind);
  PendingQueue(const PendingQueue&) = delete;
  PendingQueue& operator=(const PendingQueue&) = delete;
  PendingQueue(PendingQueue&&) noexcept = default;
  PendingQueue& operator=(PendingQueue&&) noexcept = default;

  /// Parking by class holds under BestEffortFIFO only: a change re-derives every head.
  void set_strategy(QueueingStrategy s);
  QueueingStrategy strategy() const { return strategy_; }

  /// A new or updated pending workload (Kueue's PushOrUpdate). `key`/`hash` are its
  /// current order key and class. `may_have_become_admissible` is false when only status
  /// details irrelevant to admission changed, in which case a parked workload stays
  /// parked. `backoff_expired` is false while a requeue backoff holds it.
  void push_or_update(QueueSlot& slot, const QueueOrderKey& key, std::uint64_t hash,
                      bool may_have_become_admissible, bool backoff_expired);

  /// A workload's class changed while the scheduler held it (in flight).
  void set_class(QueueSlot& slot, std::uint64_t hash) {
    join_class(slot, hash);
    slot.hash = hash;
  }

  /// Pops the head (the sticky preemptor first), marking it in flight; nullptr if none.
  QueueSlot* pop();

  /// Puts a workload the scheduler could not admit back (Kueue's RequeueIfNotPresent).
  /// Returns true when it went to the active set.
  bool requeue(QueueSlot& slot, RequeueReason reason, bool backoff_expired, bool pending_flavors);

  /// Returns every parked workload to the active set (Kueue's QueueInadmissibleWorkloads)
  /// and forgets bulk-moved classes. Workloads held for reasons a flush must re-check
  /// (namespace mismatch, backoff) move only when `eligible(workload)` holds.
  template <class Eligible>
  void flush(Eligible eligible);

  /// Forgets a workload (admitted, finished, deleted or moved to another queue).
  void remove(QueueSlot& slot);

  bool is_parked(const QueueSlot& slot) const;
  /// Whether `slot` waits parked with its class (queued, not held or in flight): those
  /// for_each_parked_in_class visits.
  bool parked_with_class(const QueueSlot& slot) const {
    return slot.where == QueueSlot::Where::Queued && is_parked(slot);
  }
  /// Calls `f(slot)` for every workload of equivalence class `hash` that waits parked
  /// with its class (not held, not in flight) until `f` returns false. The engine gives
  /// them the explanation the class was parked with: they are never evaluated on their
  /// own while it holds.
  template <class F>
  void for_each_parked_in_class(std::uint64_t hash, F f) const;
  bool is_preemptor(const QueueSlot& slot) const { return preemptor_ == &slot; }
  /// How many times a workload joined an equivalence class here (a counter).
  std::uint64_t joins() const { return joins_; }
  bool has_class(std::uint64_t hash) const { return classes_.count(hash) != 0; }
  std::size_t class_count() const { return classes_.size(); }
  std::size_t size() const { return queued_ + held_.size() + inflight_ + (sticky_ ? 1 : 0); }
  /// Counts by state (O(size): for status and metrics, not the hot path).
  std::size_t active_size() const;
  std::size_t inadmissible_size() const { return size() - active_size() - inflight_; }
  bool has_active() const;

  /// The first `limit` pending workloads in queue order (active, parked and held
  /// together), for positions and the visibility views. In-flight workloads are not
  /// included. A limit sorts only what it returns.
  std::vector<int> ordered(std::size_t limit = static_cast<std::size_t>(-1)) const;
  /// Calls `f(workload)` for every pending workload, in no particular order (for counts
  /// that need no order). In-flight workloads are not included.
  template <class F>
  void for_each_pending(F f) const;

 private:
  struct ByKey {
    bool operator()(const QueueSlot* a, const QueueSlot* b) const { return a->key < b->key; }
  };
  using Set = std::set<QueueSlot*, ByKey>;
  /// The queued (not held, not in flight, not sticky) workloads of one equivalence class
  /// (class 0: workloads without one, never parked as a class).
  struct ClassQueue {
    Set members;
    /// Members activated after the class was parked in this epoch: the only ones of a
    /// parked class that may be popped.
    Set fresh;
    /// The first member that is not parked, as entered in heads_; null if none.
    QueueSlot* head = nullptr;
  };

  void insert_active(QueueSlot& slot);
  void insert_parked(QueueSlot& slot, bool hold);
  /// Adds a Queued slot to its class (its parked state already set).
  void insert_queued(QueueSlot& slot);
  void erase(QueueSlot& slot);
  /// Removes a Queued slot from its class; `was_head`: pop() already took it out of heads_.
  void erase_queued(QueueSlot& slot, bool was_head = false);
  void bulk_park(std::uint64_t hash);
  bool hash_parked(const QueueSlot& slot) const;
  bool class_parked(std::uint64_t hash) const;
  /// Makes `candidate` the head of its class when it comes before the current one.
  void offer_head(ClassQueue& q, QueueSlot* candidate);
  void set_head(ClassQueue& q, QueueSlot* head);
  /// The first member of `q` from `from` on that is not parked.
  QueueSlot* first_unparked(std::uint64_t hash, const ClassQueue& q, Set::const_iterator from) const;
  /// Recomputes every class's fresh members and head (O(queue): strategy changes only).
  void rebuild_heads();
  void join_class(QueueSlot& slot, std::uint64_t hash);
  void leave_class(QueueSlot& slot);

  QueueingStrategy strategy_;
  std::unordered_map<std::uint64_t, ClassQueue> queued_by_class_;
  Set heads_;  ///< every class's head, in queue order
  std::size_t queued_ = 0;
  std::unordered_set<QueueSlot*> held_;
  QueueSlot* sticky_ = nullptr;     ///< the sticky preemptor, when it is active
  const QueueSlot* preemptor_ = nullptr;
  bool preemptor_sticky_ = false;
  std::size_t inflight_ = 0;
  std::int64_t epoch_ = 0;
  std::uint64_t seq_ = 0;
  std::unordered_map<std::uint64_t, std::uint64_t> hash_parked_seq_;  ///< class -> when parked (this epoch)
  /// Every workload in the queue (in flight included) by equivalence class.
  std::unordered_map<std::uint64_t, std::unordered_set<QueueSlot*>> classes_;
  std::int64_t pop_cycle_ = 0;
  std::int64_t flush_pop_cycle_ = -1;
  std::uint64_t joins_ = 0;
};

template <class F>
void PendingQueue::for_each_parked_in_class(std::uint64_t hash, F f) const {
  if (hash == 0) return;
  auto it = classes_.find(hash);
  if (it == classes_.end()) return;
  for (QueueSlot* s : it->second) {
    if (parked_with_class(*s) && !f(*s)) return;
  }
}

template <class F>
void PendingQueue::for_each_pending(F f) const {
  if (sticky_ != nullptr) f(sticky_->key.workload);
  for (const auto& [hash, q] : queued_by_class_) {
    for (const QueueSlot* s : q.members) f(s->key.workload);
  }
  for (const QueueSlot* s : held_) f(s->key.workload);
}

template <class Eligible>
void PendingQueue::flush(Eligible eligible) {
  ++epoch_;
  flush_pop_cycle_ = pop_cycle_;
  hash_parked_seq_.clear();
  // A new epoch unparks every queued workload: each class's first member is its head.
  heads_.clear();
  for (auto& [hash, q] : queued_by_class_) {
    q.fresh.clear();
    q.head = *q.members.begin();
    heads_.insert(q.head);
  }
  std::vector<QueueSlot*> moving;
  for (QueueSlot* s : held_) {
    if (eligible(s->key.workload)) moving.push_back(s);
  }
  for (QueueSlot* s : moving) {
    held_.erase(s);
    s->where = QueueSlot::Where::None;
    insert_active(*s);
  }
}

}  // namespace kueuepp::core
