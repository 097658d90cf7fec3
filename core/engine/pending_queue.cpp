#include "core/engine/pending_queue.hpp"

#include <algorithm>

namespace kueuepp::core {

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

void PendingQueue::insert_active(QueueSlot& slot) {
  slot.parked = false;
  slot.activated_seq = ++seq_;
  slot.where = QueueSlot::Where::Queued;
  if (preemptor_sticky_ && preemptor_ == &slot) {
    sticky_ = &slot;
    return;
  }
  auto [it, inserted] = ordered_.insert(&slot);
  // Keep "everything before the cursor is parked": an active entry ahead of the
  // cursor becomes the new cursor.
  if (cursor_ == ordered_.end() || ByKey{}(&slot, *cursor_)) cursor_ = it;
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
  ordered_.insert(&slot);  // parked: the cursor invariant still holds
}

void PendingQueue::erase(QueueSlot& slot) {
  switch (slot.where) {
    case QueueSlot::Where::Queued:
      if (sticky_ == &slot) {
        sticky_ = nullptr;
      } else {
        auto it = ordered_.find(&slot);
        if (it != ordered_.end()) {
          if (it == cursor_) ++cursor_;
          ordered_.erase(it);
        }
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
  skip_parked();
  if (cursor_ == ordered_.end()) return nullptr;
  QueueSlot* s = *cursor_;
  cursor_ = ordered_.erase(cursor_);
  s->where = QueueSlot::Where::Inflight;
  ++inflight_;
  return s;
}

void PendingQueue::skip_parked() {
  // is_parked() for each entry, with the class's park marker looked up once per run of
  // one class: the members of a class share a priority, so they mostly sit together in
  // queue order, and after every flush the cursor walks the whole queue again.
  const bool by_class = strategy_ == QueueingStrategy::BestEffortFIFO && !hash_parked_seq_.empty();
  std::uint64_t run_hash = 0;
  std::uint64_t run_parked_seq = 0;
  for (; cursor_ != ordered_.end(); ++cursor_) {
    const QueueSlot& s = **cursor_;
    if (s.parked && s.parked_epoch == epoch_) continue;
    if (!by_class || s.hash == 0) return;
    if (s.hash != run_hash) {
      run_hash = s.hash;
      auto it = hash_parked_seq_.find(s.hash);
      run_parked_seq = it == hash_parked_seq_.end() ? 0 : it->second;
    }
    if (run_parked_seq <= s.activated_seq) return;
  }
}

void PendingQueue::bulk_park(std::uint64_t hash) {
  if (strategy_ != QueueingStrategy::BestEffortFIFO || hash == 0) return;
  hash_parked_seq_[hash] = ++seq_;
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
      moved->where = QueueSlot::Where::None;
      auto [it, inserted] = ordered_.insert(moved);
      if (cursor_ == ordered_.end() || ByKey{}(moved, *cursor_)) cursor_ = it;
      moved->where = QueueSlot::Where::Queued;
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
  for (const QueueSlot* s : ordered_) n += is_parked(*s) ? 0 : 1;
  return n;
}

bool PendingQueue::has_active() const {
  if (sticky_ != nullptr && !hash_parked(*sticky_)) return true;
  for (auto it = cursor_; it != ordered_.end(); ++it) {
    if (!is_parked(**it)) return true;
  }
  return false;
}

std::vector<int> PendingQueue::ordered(std::size_t limit) const {
  if (limit == 0) return {};
  std::vector<const QueueSlot*> all;
  all.reserve(size());
  if (sticky_ != nullptr) all.push_back(sticky_);
  all.insert(all.end(), ordered_.begin(), ordered_.end());
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
