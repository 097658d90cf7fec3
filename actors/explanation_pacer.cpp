#include "actors/explanation_pacer.hpp"

#include <algorithm>

namespace kueuepp::actors {

bool ExplanationPacer::may_write(const std::string& key, core::Time now) {
  if (interval_.count() <= 0) return true;
  if (auto d = due_at_.find(key); d != due_at_.end()) {
    if (d->second > now) return false;  // already deferred: written when due
    due_.erase({d->second, key});
    due_at_.erase(d);
    return true;
  }
  auto last = last_write_.find(key);
  if (last == last_write_.end() || last->second + interval_ <= now) return true;
  defer(key, last->second + interval_);
  return false;
}

void ExplanationPacer::wrote(const std::string& key, core::Time now) {
  if (interval_.count() <= 0) return;
  last_write_[key] = now;
  if (last_write_.size() > prune_above_) prune(now);
}

void ExplanationPacer::defer(const std::string& key, core::Time at) {
  due_at_.emplace(key, at);
  due_.emplace(at, key);
}

std::vector<std::string> ExplanationPacer::take_due(core::Time now) {
  std::vector<std::string> out;
  auto it = due_.begin();
  for (; it != due_.end() && it->first <= now; ++it) {
    due_at_.erase(it->second);
    out.push_back(it->second);
  }
  due_.erase(due_.begin(), it);
  return out;
}

std::optional<core::Time> ExplanationPacer::next_due() const {
  if (due_.empty()) return std::nullopt;
  return due_.begin()->first;
}

void ExplanationPacer::forget(const std::string& key) {
  last_write_.erase(key);
  if (auto d = due_at_.find(key); d != due_at_.end()) {
    due_.erase({d->second, key});
    due_at_.erase(d);
  }
}

void ExplanationPacer::prune(core::Time now) {
  std::erase_if(last_write_, [&](const auto& entry) { return entry.second + interval_ <= now; });
  // Sweep again only once the table has doubled: pruning stays amortized O(1) per write.
  prune_above_ = std::max<std::size_t>(1024, 2 * last_write_.size());
}

}  // namespace kueuepp::actors
