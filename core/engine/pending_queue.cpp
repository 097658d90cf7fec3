#include "core/engine/pending_queue.hpp"

#include <algorithm>

namespace kueuepp::core {

PendingQueue::PendingQueue(const PendingQueue& other, const SlotRebind& rebind)
    : strategy_(other.strategy_),
      queued_(other.queued_),
      preemptor_sticky_(other.preemptor_sticky_),
      inflight_(other.inflight_),
      epoch_(other.epoch_),
      seq_(other.seq_),
      hash_parked_seq_(other.hash_parked_seq_),
      pop_cycle_(other.pop_cycle_),
      flush_pop_cycle_(other.flush_pop_cycle_),
      joins_(other.joins_) {
  auto copy_set = [&](const Set& from, Set& to) {
    for (const QueueSlot* s : from) to.insert(to.end(), rebind(s));
  };
  for (const auto& [hash, q] : other.queued_by_class_) {
    ClassQueue& c = queued_by_class_[hash];
    copy_set(q.members, c.members);
    copy_set(q.fresh, c.fresh);
    c.head = q.head == nullptr ? nullptr : rebind(q.head);
  }
  copy_set(other.heads_, heads_);
  for (const QueueSlot* s : other.held_) held_.insert(rebind(s));
  sticky_ = other.sticky_ == nullptr ? nullptr : rebind(other.sticky_);
  preemptor_ = other.preemptor_ == nullptr ? nullptr : rebind(other.preemptor_);
  for (const auto& [hash, members] : other.classes_) {
    auto& to = classes_[hash];
    for (const QueueSlot* s : members) to.insert(rebind(s));
  }
}

bool PendingQueue::hash_parked(const QueueSlot& slot) const {
  if (strategy_ != QueueingStrategy::BestEffortFIFO || slot.hash == 0 || hash_parked_seq_.empty()) {
    return false;
  }
  auto it = hash_parked_seq_.find(slot.hash);
  return it != hash_parked_seq_.end() && it->second > slot.activated_seq;
}

bool PendingQueue::is_parked(const QueueSlot& slot) const {
  switch (slot.where) {
    case QueueSlot::Where::Held:
      return true;
    case QueueSlot::Where::Queued:
      if (&slot == sticky_) return hash_parked(slot);
      // A slot parked individually in an earlier epoch is active again (the flush was
      // lazy) and, like any active entry, goes with its class when the class is parked.
      return (slot.parked && slot.parked_epoch == epoch_) || hash_parked(slot);
    default:
      return false;
  }
}

bool PendingQueue::class_parked(std::uint64_t hash) const {
  return strategy_ == QueueingStrategy::BestEffortFIFO && hash != 0 && hash_parked_seq_.count(hash) != 0;
}

void PendingQueue::set_head(ClassQueue& q, QueueSlot* head) {
  if (q.head == head) return;
  if (q.head != nullptr) heads_.erase(q.head);
  q.head = head;
  // Hinted at the front: a popped head's successor in its class is usually the next
  // head of the whole queue (a class's members mostly sit together in queue order).
  if (head != nullptr) heads_.insert(heads_.begin(), head);
}

void PendingQueue::offer_head(ClassQueue& q, QueueSlot* candidate) {
  if (q.head == nullptr || ByKey{}(candidate, q.head)) set_head(q, candidate);
}

QueueSlot* PendingQueue::first_unparked(std::uint64_t hash, const ClassQueue& q, Set::const_iterator from) const {
  // In a parked class only the members activated since are unparked, and they are kept
  // apart: no walk over the parked ones.
  if (class_parked(hash)) return q.fresh.empty() ? nullptr : *q.fresh.begin();
  for (; from != q.members.end(); ++from) {
    if (!is_parked(**from)) return *from;
  }
  return nullptr;
}

void PendingQueue::set_strategy(QueueingStrategy s) {
  if (s == strategy_) return;
  strategy_ = s;
  rebuild_heads();
}

void PendingQueue::rebuild_heads() {
  heads_.clear();
  for (auto& [hash, q] : queued_by_class_) {
    q.fresh.clear();
    q.head = nullptr;
    for (QueueSlot* s : q.members) {
      if (is_parked(*s)) continue;
      if (class_parked(hash)) q.fresh.insert(s);
      if (q.head == nullptr) q.head = s;
    }
    if (q.head != nullptr) heads_.insert(q.head);
  }
}

void PendingQueue::insert_active(QueueSlot& slot) {
  slot.parked = false;
  slot.activated_seq = ++seq_;
  slot.where = QueueSlot::Where::Queued;
  if (preemptor_sticky_ && preemptor_ == &slot) {
    sticky_ = &slot;
    return;
  }
  insert_queued(slot);
}

void PendingQueue::insert_parked(QueueSlot& slot, bool hold) {
  slot.parked = true;
  slot.parked_epoch = epoch_;
  if (hold) {
    slot.where = QueueSlot::Where::Held;
    held_.insert(&slot);
    return;
  }
  slot.where = QueueSlot::Where::Queued;
  insert_queued(slot);
}

void PendingQueue::insert_queued(QueueSlot& slot) {
  ClassQueue& q = queued_by_class_[slot.hash];
  q.members.insert(&slot);
  ++queued_;
  if (is_parked(slot)) return;
  if (class_parked(slot.hash)) q.fresh.insert(&slot);
  offer_head(q, &slot);
}

void PendingQueue::erase_queued(QueueSlot& slot, bool was_head) {
  auto qit = queued_by_class_.find(slot.hash);
  if (qit == queued_by_class_.end()) return;
  ClassQueue& q = qit->second;
  auto it = q.members.find(&slot);
  if (it == q.members.end()) return;
  it = q.members.erase(it);
  --queued_;
  q.fresh.erase(&slot);
  if (q.members.empty()) {
    set_head(q, nullptr);
    queued_by_class_.erase(qit);
    return;
  }
  // Everything before the head is parked: the next head comes after it.
  if (was_head || q.head == &slot) set_head(q, first_unparked(slot.hash, q, it));
}

void PendingQueue::erase(QueueSlot& slot) {
  switch (slot.where) {
    case QueueSlot::Where::Queued:
      if (sticky_ == &slot) {
        sticky_ = nullptr;
      } else {
        erase_queued(slot);
      }
      break;
    case QueueSlot::Where::Held:
      held_.erase(&slot);
      break;
    case QueueSlot::Where::Inflight:
      --inflight_;
      break;
    case QueueSlot::Where::None:
      break;
  }
  slot.where = QueueSlot::Where::None;
}

void PendingQueue::join_class(QueueSlot& slot, std::uint64_t hash) {
  if (slot.where != QueueSlot::Where::None) {
    if (slot.hash == hash) return;
    leave_class(slot);
  }
  if (hash != 0 && classes_[hash].insert(&slot).second) ++joins_;
}

void PendingQueue::leave_class(QueueSlot& slot) {
  if (slot.hash == 0) return;
  auto it = classes_.find(slot.hash);
  if (it == classes_.end()) return;
  it->second.erase(&slot);
  if (it->second.empty()) classes_.erase(it);
}

void PendingQueue::push_or_update(QueueSlot& slot, const QueueOrderKey& key, std::uint64_t hash,
                                  bool may_have_become_admissible, bool backoff_expired) {
  join_class(slot, hash);
  if (slot.where == QueueSlot::Where::Inflight) {
    // The scheduler is processing it; its requeue places the latest version.
    slot.key = key;
    slot.hash = hash;
    return;
  }
  bool parked = is_parked(slot);
  if (parked && !may_have_become_admissible) {
    bool hold = slot.where == QueueSlot::Where::Held;
    erase(slot);
    slot.key = key;
    slot.hash = hash;
    insert_parked(slot, hold);
    return;
  }
  bool was_active = slot.where == QueueSlot::Where::Queued && !parked;
  erase(slot);
  slot.key = key;
  slot.hash = hash;
  if (!was_active && !backoff_expired) {
    insert_parked(slot, true);
    return;
  }
  if (!was_active && hash_parked(slot)) {
    // A new member of a class already found unadmissible waits with it.
    insert_parked(slot, false);
    return;
  }
  insert_active(slot);
}

QueueSlot* PendingQueue::pop() {
  ++pop_cycle_;
  if (sticky_ != nullptr) {
    QueueSlot* s = sticky_;
    if (!hash_parked(*s)) {
      sticky_ = nullptr;
      s->where = QueueSlot::Where::Inflight;
      ++inflight_;
      return s;
    }
    // Its equivalence class was parked: it waits like the others.
    sticky_ = nullptr;
    s->where = QueueSlot::Where::None;
    insert_parked(*s, false);
    s->parked = false;  // parked through its class, not individually
  }
  if (heads_.empty()) return nullptr;
  QueueSlot* s = *heads_.begin();
  // Out of heads_ by position, not by another search: erase_queued then finds no head
  // to replace and offers the class's next one.
  heads_.erase(heads_.begin());
  queued_by_class_.find(s->hash)->second.head = nullptr;
  erase_queued(*s, true);
  s->where = QueueSlot::Where::Inflight;
  ++inflight_;
  return s;
}

void PendingQueue::bulk_park(std::uint64_t hash) {
  if (strategy_ != QueueingStrategy::BestEffortFIFO || hash == 0) return;
  hash_parked_seq_[hash] = ++seq_;
  // Every member queued now is parked with the class; later activations are fresh.
  auto it = queued_by_class_.find(hash);
  if (it == queued_by_class_.end()) return;
  it->second.fresh.clear();
  set_head(it->second, nullptr);
}

bool PendingQueue::requeue(QueueSlot& slot, RequeueReason reason, bool backoff_expired,
                           bool pending_flavors) {
  if (reason == RequeueReason::PendingPreemption) {
    const QueueSlot* old = preemptor_;
    preemptor_ = &slot;
    bool old_sticky = preemptor_sticky_;
    preemptor_sticky_ = strategy_ == QueueingStrategy::BestEffortFIFO;
    // A previous sticky preemptor loses its place at the head.
    if (old_sticky && old != &slot && sticky_ != nullptr && sticky_ == old) {
      QueueSlot* moved = sticky_;
      sticky_ = nullptr;
      moved->where = QueueSlot::Where::Queued;
      insert_queued(*moved);
    }
  }
  if (slot.where == QueueSlot::Where::Inflight) {
    --inflight_;
    slot.where = QueueSlot::Where::None;
  }
  bool immediate = false;
  if (strategy_ == QueueingStrategy::StrictFIFO) {
    immediate = reason != RequeueReason::NamespaceMismatch;
  } else {
    immediate = reason == RequeueReason::FailedAfterNomination ||
                reason == RequeueReason::PendingPreemption ||
                reason == RequeueReason::PreemptionFailed;
  }
  if (slot.where != QueueSlot::Where::None) {
    // Already re-added meanwhile (an update arrived): leave it where it is.
    return slot.where == QueueSlot::Where::Queued && !is_parked(slot);
  }
  if (backoff_expired && (immediate || flush_pop_cycle_ >= pop_cycle_ || pending_flavors)) {
    insert_active(slot);
    return true;
  }
  // A namespace mismatch or a running backoff must be re-checked by the next flush.
  bool hold = reason == RequeueReason::NamespaceMismatch || !backoff_expired;
  insert_parked(slot, hold);
  if (reason == RequeueReason::NoFit || reason == RequeueReason::PreemptionNoCandidates) {
    bulk_park(slot.hash);
  }
  return false;
}

void PendingQueue::remove(QueueSlot& slot) {
  if (slot.where != QueueSlot::Where::None) leave_class(slot);
  erase(slot);
  if (preemptor_ == &slot) {
    preemptor_ = nullptr;
    preemptor_sticky_ = false;
  }
}

std::size_t PendingQueue::active_size() const {
  std::size_t n = sticky_ != nullptr && !hash_parked(*sticky_) ? 1 : 0;
  for (const auto& [hash, q] : queued_by_class_) {
    // is_parked() for a queued member, with its class's park marker looked up once per
    // class instead of once per member (this runs at every status publish).
    std::uint64_t class_parked_seq = 0;  // members activated before it are parked with the class
    if (class_parked(hash)) class_parked_seq = hash_parked_seq_.find(hash)->second;
    for (const QueueSlot* s : q.members) {
      const bool parked = (s->parked && s->parked_epoch == epoch_) || class_parked_seq > s->activated_seq;
      n += parked ? 0 : 1;
    }
  }
  return n;
}

bool PendingQueue::has_active() const {
  if (sticky_ != nullptr && !hash_parked(*sticky_)) return true;
  return !heads_.empty();
}

std::vector<int> PendingQueue::ordered(std::size_t limit) const {
  if (limit == 0) return {};
  std::vector<const QueueSlot*> all;
  all.reserve(size());
  if (sticky_ != nullptr) all.push_back(sticky_);
  for (const auto& [hash, q] : queued_by_class_) all.insert(all.end(), q.members.begin(), q.members.end());
  all.insert(all.end(), held_.begin(), held_.end());
  auto begin = all.begin() + (sticky_ != nullptr ? 1 : 0);
  if (limit < all.size()) {
    std::partial_sort(begin, all.begin() + static_cast<std::ptrdiff_t>(limit), all.end(), ByKey{});
    all.resize(limit);
  } else {
    std::sort(begin, all.end(), ByKey{});
  }
  std::vector<int> out;
  out.reserve(all.size());
  for (const QueueSlot* s : all) out.push_back(s->key.workload);
  return out;
}

}  // namespace kueuepp::core
