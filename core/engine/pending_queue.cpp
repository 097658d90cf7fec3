#include "core/engine/pending_queue.hpp"

#include <algorithm>

namespace kueuepp::core {

void PendingQueue::insert_active(const Item& item) {
  if (preemptor_sticky_ && item.key.workload == preemptor_) {
    sticky_active_ = item;
  } else {
    active_.emplace(item.key, item.hash);
  }
  index_[item.key.workload] = {Where::Active, item};
}

void PendingQueue::insert_inadmissible(const Item& item) {
  inadmissible_[item.key.workload] = item;
  index_[item.key.workload] = {Where::Inadmissible, item};
}

void PendingQueue::erase_everywhere(int workload) {
  auto it = index_.find(workload);
  if (it == index_.end()) return;
  const auto& [where, item] = it->second;
  switch (where) {
    case Where::Active:
      if (sticky_active_ && sticky_active_->key.workload == workload) {
        sticky_active_.reset();
      } else {
        active_.erase(item.key);
      }
      break;
    case Where::Inadmissible:
      inadmissible_.erase(workload);
      break;
    case Where::Inflight:
      inflight_.erase(workload);
      break;
    case Where::None:
      break;
  }
  index_.erase(it);
}

PendingQueue::Where PendingQueue::where(int workload) const {
  auto it = index_.find(workload);
  return it == index_.end() ? Where::None : it->second.first;
}

void PendingQueue::push_or_update(const Item& item, bool may_have_become_admissible,
                                  bool backoff_expired) {
  int wl = item.key.workload;
  Where w = where(wl);
  if (w == Where::Inflight) {
    // The scheduler is processing it; its requeue places the latest version.
    inflight_[wl] = item;
    index_[wl].second = item;
    return;
  }
  if (w == Where::Inadmissible) {
    if (!may_have_become_admissible) {
      insert_inadmissible(item);  // refresh in place
      return;
    }
    inadmissible_.erase(wl);
    index_.erase(wl);
    w = Where::None;
  }
  if (w == Where::None && !backoff_expired) {
    insert_inadmissible(item);
    return;
  }
  if (w == Where::None && strategy_ == QueueingStrategy::BestEffortFIFO && item.hash != 0 &&
      bulk_moved_hashes_.contains(item.hash)) {
    insert_inadmissible(item);
    return;
  }
  if (w == Where::Active) erase_everywhere(wl);
  insert_active(item);
}

std::optional<int> PendingQueue::pop() {
  ++pop_cycle_;
  Item item;
  if (sticky_active_) {
    item = *sticky_active_;
    sticky_active_.reset();
  } else if (!active_.empty()) {
    auto it = active_.begin();
    item = Item{it->first, it->second};
    active_.erase(it);
  } else {
    return std::nullopt;
  }
  inflight_[item.key.workload] = item;
  index_[item.key.workload] = {Where::Inflight, item};
  return item.key.workload;
}

void PendingQueue::set_preemptor(int workload, bool sticky) {
  int old = preemptor_;
  bool old_sticky = preemptor_sticky_;
  preemptor_ = workload;
  preemptor_sticky_ = sticky;
  // The previous sticky workload loses its place at the head.
  if (old_sticky && old != workload && sticky_active_ && sticky_active_->key.workload == old) {
    Item moved = *sticky_active_;
    sticky_active_.reset();
    active_.emplace(moved.key, moved.hash);
  }
}

int PendingQueue::bulk_move_hash(std::uint64_t hash) {
  if (strategy_ != QueueingStrategy::BestEffortFIFO) return 0;
  bulk_moved_hashes_.insert(hash);
  std::vector<Item> moving;
  for (const auto& [key, h] : active_) {
    if (h == hash) moving.push_back(Item{key, h});
  }
  if (sticky_active_ && sticky_active_->hash == hash) moving.push_back(*sticky_active_);
  for (const auto& item : moving) {
    erase_everywhere(item.key.workload);
    insert_inadmissible(item);
  }
  return static_cast<int>(moving.size());
}

bool PendingQueue::requeue(const Item& item, RequeueReason reason, bool backoff_expired,
                           bool pending_flavors) {
  int wl = item.key.workload;
  if (reason == RequeueReason::PendingPreemption) {
    set_preemptor(wl, strategy_ == QueueingStrategy::BestEffortFIFO);
  }
  inflight_.erase(wl);
  if (index_.contains(wl) && index_[wl].first == Where::Inflight) index_.erase(wl);

  bool immediate = false;
  if (strategy_ == QueueingStrategy::StrictFIFO) {
    immediate = reason != RequeueReason::NamespaceMismatch;
  } else {
    immediate = reason == RequeueReason::FailedAfterNomination ||
                reason == RequeueReason::PendingPreemption ||
                reason == RequeueReason::PreemptionFailed;
  }
  Where w = where(wl);
  if (backoff_expired &&
      (immediate || inadmissible_flush_cycle_ >= pop_cycle_ || pending_flavors)) {
    if (w == Where::Inadmissible) {
      inadmissible_.erase(wl);
      index_.erase(wl);
      insert_active(item);
      return true;
    }
    if (w == Where::None) {
      insert_active(item);
      return true;
    }
    return false;
  }
  if (w != Where::None) return false;
  insert_inadmissible(item);
  if (item.hash != 0 &&
      (reason == RequeueReason::NoFit || reason == RequeueReason::PreemptionNoCandidates)) {
    bulk_move_hash(item.hash);
  }
  return false;
}

void PendingQueue::remove(int workload) {
  erase_everywhere(workload);
  if (preemptor_ == workload) {
    preemptor_ = -1;
    preemptor_sticky_ = false;
  }
}

std::vector<int> PendingQueue::ordered() const {
  std::vector<std::pair<QueueOrderKey, bool>> all;  // (key, sticky)
  all.reserve(index_.size());
  for (const auto& [wl, entry] : index_) {
    bool sticky = preemptor_sticky_ && wl == preemptor_;
    all.emplace_back(entry.second.key, sticky);
  }
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
    if (a.second != b.second) return a.second;
    return a.first < b.first;
  });
  std::vector<int> out;
  out.reserve(all.size());
  for (const auto& [key, sticky] : all) out.push_back(key.workload);
  return out;
}

}  // namespace kueuepp::core
