#pragma once

// How long the workloads of each ClusterQueue ran (admitted to finished), remembered for
// the last few per queue: the average that a what-if answer's start estimate assumes for
// running workloads without a maximum execution time. Kept by the cohort tree that sees
// the workloads finish; only the tree's actor touches it.

#include <cstddef>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/engine/what_if.hpp"
#include "core/model/workload.hpp"

namespace kueuepp::actors {

class RuntimeAverages {
 public:
  /// Each queue's average is over its last `window` runtimes.
  explicit RuntimeAverages(std::size_t window = 64) : window_(window == 0 ? 1 : window) {}

  void record(std::string_view cluster_queue, core::Duration runtime);
  /// The average runtime of each queue that has one.
  std::map<std::string, core::Duration, std::less<>> averages() const;

 private:
  struct Queue {
    std::deque<core::Duration> last;
    core::Duration sum{0};
  };
  std::size_t window_;
  std::map<std::string, Queue, std::less<>> queues_;
};

/// How long a finished workload ran: from its Admitted condition's transition to True to
/// its Finished condition's (nullopt when it was never admitted, is not finished, or the
/// times are missing or out of order).
std::optional<core::Duration> runtime_of(const core::Workload& wl);

}  // namespace kueuepp::actors
