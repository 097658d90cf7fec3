#pragma once

// How often one workload's pending explanation (QuotaReserved=False with the engine's
// reason and message) is rewritten, when the operator asks for pacing
// (`--explanation-interval`; off by default). Kueue rewrites it whenever the words change,
// and they change with every cycle that touches the queue ("3 more needed", "pending the
// preemption of 1 workload(s)"): each is a status write plus the watch event it comes
// back as. Paced, the first explanation of a workload goes out at once and a later one at
// most once per interval: a change within the interval is deferred to its end and written
// then from the engine's view at that time (only the latest words). The live answer is
// always available from the introspection endpoint.
//
// Pure bookkeeping (the tree actor owns one and does the writing); times are the tree's.

#include <chrono>
#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/model/time.hpp"

namespace kueuepp::actors {

class ExplanationPacer {
 public:
  /// `interval` 0: every change is written at once.
  explicit ExplanationPacer(std::chrono::milliseconds interval = std::chrono::milliseconds(0)) : interval_(interval) {}

  /// Whether an explanation of `key` may be written at `now`. When it may not, the
  /// workload is remembered as due at the end of its interval (see take_due).
  bool may_write(const std::string& key, core::Time now);
  /// An explanation of `key` was sent at `now`: the next one waits for the interval.
  void wrote(const std::string& key, core::Time now);
  /// The workloads whose deferred explanation is due at `now`, earliest first; they are
  /// no longer deferred (the caller writes them, or finds nothing left to write).
  std::vector<std::string> take_due(core::Time now);
  /// When the earliest deferred explanation is due.
  std::optional<core::Time> next_due() const;
  /// The workload left the tree.
  void forget(const std::string& key);

  std::size_t deferred() const { return due_.size(); }
  std::size_t tracked() const { return last_write_.size(); }

 private:
  void defer(const std::string& key, core::Time at);
  /// Drops the write times whose interval has passed (they no longer hold anything back),
  /// so that memory follows the workloads explained recently, not all ever explained.
  void prune(core::Time now);

  std::chrono::milliseconds interval_;
  std::unordered_map<std::string, core::Time> last_write_;
  std::unordered_map<std::string, core::Time> due_at_;
  std::set<std::pair<core::Time, std::string>> due_;
  std::size_t prune_above_ = 1024;
};

}  // namespace kueuepp::actors
