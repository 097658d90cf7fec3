#include "actors/workload_history.hpp"

namespace kueuepp::actors {

void WorkloadHistory::note(const std::string& key, core::Time at, std::string reason, std::string message,
                           bool warning) {
  if (max_workloads_ == 0 || max_entries_ == 0) return;
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    recency_.push_front(key);
    it = entries_.emplace(key, Record{{}, recency_.begin()}).first;
  } else {
    recency_.splice(recency_.begin(), recency_, it->second.recency);
  }
  auto& entries = it->second.entries;
  if (!entries.empty() && entries.back().reason == reason && entries.back().message == message) {
    ++entries.back().count;
    entries.back().last = at;
  } else {
    entries.push_back(HistoryEntry{at, at, std::move(reason), std::move(message), warning, 1});
    if (entries.size() > max_entries_) entries.pop_front();
  }
  while (entries_.size() > max_workloads_) {
    entries_.erase(recency_.back());
    recency_.pop_back();
  }
}

const std::deque<HistoryEntry>* WorkloadHistory::find(std::string_view key) const {
  auto it = entries_.find(std::string(key));
  return it == entries_.end() ? nullptr : &it->second.entries;
}

}  // namespace kueuepp::actors
