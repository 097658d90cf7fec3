#pragma once

// One page of a ClusterQueue's pending workloads with their positions, as Kueue's
// visibility API answers it (pkg/visibility/storage): the position in the ClusterQueue
// is the index in queue order, the position in the LocalQueue counts only that queue's
// workloads before it. The order itself is the PendingQueue's (PendingQueue::ordered,
// through Engine::pending_workloads), so the page and the scheduler cannot disagree.
// Pure: the caller hands in the order and gets indexes into it back.

#include <cstdint>
#include <string_view>
#include <vector>

namespace kueuepp::core {

/// Kueue's limits on a page (pkg/constants): 1000 when no limit is asked for (or 0),
/// never more than 100,000.
inline constexpr std::int64_t kDefaultPendingWorkloadsLimit = 1000;
inline constexpr std::int64_t kMaxPendingWorkloadsLimit = 100'000;

/// A page request as Kueue bounds it: negative values are 0, the limit at most the maximum.
struct PageBounds {
  std::int64_t limit = kDefaultPendingWorkloadsLimit;
  std::int64_t offset = 0;
};
PageBounds bounded_page(std::int64_t limit, std::int64_t offset);

/// A pending workload's LocalQueue, in queue order; views valid during the call.
struct QueuedWorkloadRef {
  std::string_view ns;
  std::string_view local_queue;
};

/// One item of a page: `index` into the order, and its two positions (0-based).
struct PagePosition {
  std::size_t index = 0;
  std::int32_t in_cluster_queue = 0;
  std::int32_t in_local_queue = 0;
};

/// The ClusterQueue's page: items offset .. offset+limit-1 of the order. Needs only the
/// first offset+limit workloads of the order.
std::vector<PagePosition> cluster_queue_page(const std::vector<QueuedWorkloadRef>& order, PageBounds page);

/// The page of one LocalQueue (namespace `ns`, name `local_queue`): its own workloads
/// offset .. offset+limit-1, each with its position in the whole ClusterQueue.
std::vector<PagePosition> local_queue_page(const std::vector<QueuedWorkloadRef>& order, std::string_view ns,
                                           std::string_view local_queue, PageBounds page);

}  // namespace kueuepp::core
