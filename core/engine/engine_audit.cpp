#include <algorithm>
#include <string>
#include <vector>

#include "core/engine/engine.hpp"

namespace kueuepp::core {

namespace {

std::string describe(const QuotaTree& q, int node, FlavorResource fr, std::int64_t kept, std::int64_t expected) {
  return std::string(q.is_cluster_queue(node) ? "ClusterQueue " : "cohort ") + q.name(node) + ": usage " +
         std::to_string(kept) + "m of flavor-resource " + std::to_string(fr.packed()) + ", its holders add up to " +
         std::to_string(expected) + "m";
}

}  // namespace

Status Engine::audit_quota() const {
  if (topology_dirty_) return {};  // rebuilt from the holders before the next use
  for (const Tree& tree : trees_) {
    const QuotaTree& q = tree.quota;
    // Every node's expected usage, from the leaves up: a ClusterQueue's is its holders',
    // a cohort's the sum of what its children store in it.
    std::vector<Amounts> expected(static_cast<std::size_t>(q.size()));
    for (int cq : tree.cqs) {
      const ClusterQueueState& state = cqs_[static_cast<std::size_t>(cq)];
      if (state.node < 0) continue;
      for (int id : state.holding) expected[static_cast<std::size_t>(state.node)].add_all(workloads_[static_cast<std::size_t>(id)]->usage);
    }
    std::vector<int> order;  // children before parents
    for (int n = 0; n < q.size(); ++n) order.push_back(n);
    std::sort(order.begin(), order.end(), [&](int a, int b) { return q.height(a) < q.height(b); });
    for (int n : order) {
      const Amounts& mine = expected[static_cast<std::size_t>(n)];
      for (FlavorResource fr : q.flavor_resources()) {
        const std::int64_t kept = q.usage(n, fr);
        if (kept != mine.get(fr)) return fail(describe(q, n, fr, kept, mine.get(fr)));
      }
      if (!q.has_parent(n)) continue;
      for (const auto& [fr, v] : mine) {
        const std::int64_t stored = v - q.local_quota(n, fr);
        if (stored > 0) expected[static_cast<std::size_t>(q.parent(n))].add(fr, stored);
      }
    }
  }
  return {};
}

}  // namespace kueuepp::core
