#include "core/engine/pending_page.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace kueuepp::core {

PageBounds bounded_page(std::int64_t limit, std::int64_t offset) {
  return PageBounds{std::clamp<std::int64_t>(limit, 0, kMaxPendingWorkloadsLimit), std::max<std::int64_t>(offset, 0)};
}

std::vector<PagePosition> cluster_queue_page(const std::vector<QueuedWorkloadRef>& order, PageBounds page) {
  std::vector<PagePosition> out;
  const auto offset = static_cast<std::size_t>(std::max<std::int64_t>(page.offset, 0));
  const auto limit = static_cast<std::size_t>(std::max<std::int64_t>(page.limit, 0));
  const std::size_t end = std::min(order.size(), offset + limit);
  if (offset >= end) return out;
  out.reserve(end - offset);
  // Positions in each LocalQueue count from the head of the ClusterQueue, so the
  // workloads before the page are counted too.
  std::map<std::pair<std::string_view, std::string_view>, std::int32_t> seen;
  for (std::size_t i = 0; i < end; ++i) {
    std::int32_t& in_lq = seen[{order[i].ns, order[i].local_queue}];
    if (i >= offset) out.push_back(PagePosition{i, static_cast<std::int32_t>(i), in_lq});
    ++in_lq;
  }
  return out;
}

std::vector<PagePosition> local_queue_page(const std::vector<QueuedWorkloadRef>& order, std::string_view ns,
                                           std::string_view local_queue, PageBounds page) {
  std::vector<PagePosition> out;
  const auto offset = static_cast<std::size_t>(std::max<std::int64_t>(page.offset, 0));
  const auto limit = static_cast<std::size_t>(std::max<std::int64_t>(page.limit, 0));
  std::size_t in_lq = 0;
  for (std::size_t i = 0; i < order.size() && out.size() < limit; ++i) {
    if (order[i].ns != ns || order[i].local_queue != local_queue) continue;
    if (in_lq >= offset) {
      out.push_back(PagePosition{i, static_cast<std::int32_t>(i), static_cast<std::int32_t>(in_lq)});
    }
    ++in_lq;
  }
  return out;
}

}  // namespace kueuepp::core
