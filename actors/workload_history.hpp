#pragma once

// What the controller said about each workload, kept for the web view's workload page
// ("created, pending, admitted, preempted by whom and why, finished"): the event
// recorder notes every Event it is asked to record about a Workload, before rate
// limiting, so a dropped or aggregated Event still shows, and the trees' notes of the
// pending reasons they write (RecordEvent::history_only). Bounded: the most recently
// noted `max_workloads` workloads, the last `max_entries` entries of each; an entry that
// repeats the previous one (same reason and message) bumps its count instead.

#include <cstdint>
#include <deque>
#include <list>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/model/time.hpp"

namespace kueuepp::actors {

struct HistoryEntry {
  core::Time first{};
  core::Time last{};
  std::string reason;
  std::string message;
  bool warning = false;
  std::int32_t count = 1;
};

class WorkloadHistory {
 public:
  explicit WorkloadHistory(std::size_t max_workloads = 10000, std::size_t max_entries = 16)
      : max_workloads_(max_workloads), max_entries_(max_entries) {}

  void note(const std::string& key, core::Time at, std::string reason, std::string message, bool warning);

  /// The entries of workload `key` (ns/name), oldest first, or nullptr.
  const std::deque<HistoryEntry>* find(std::string_view key) const;
  std::size_t size() const { return entries_.size(); }

 private:
  struct Record {
    std::deque<HistoryEntry> entries;
    std::list<std::string>::iterator recency;
  };
  std::size_t max_workloads_;
  std::size_t max_entries_;
  std::unordered_map<std::string, Record> entries_;
  std::list<std::string> recency_;  ///< most recently noted first
};

}  // namespace kueuepp::actors
