#pragma once

// The quota arithmetic of one cohort tree, exactly as Kueue defines it
// (pkg/cache/scheduler/resource_node.go): nominal quota, borrowing and lending limits,
// subtree quota, usage bubbling up past each node's local (non-lendable) quota, and the
// dominant resource share used by fair sharing.
//
// Nodes are ClusterQueues (leaves) and Cohorts. Quantities are milli-units. All state is
// plain data, so a tree can be copied for a what-if simulation.

#include <cstdint>
#include <array>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/engine/ids.hpp"

namespace kueuepp::core {

/// Dominant resource share of a node (fair_sharing.go).
struct DominantResourceShare {
  double fair_weight = 1.0;
  double unweighted_ratio = 0;
  int dominant_resource = -1;  ///< ResourceId, -1 when not borrowing
  bool borrowing = false;
  std::vector<FlavorResource> borrowed;

  static DominantResourceShare negative() {
    DominantResourceShare d;
    d.unweighted_ratio = -1;
    return d;
  }
  bool is_zero() const { return unweighted_ratio == 0; }
  bool zero_weight_borrows() const { return fair_weight == 0 && !is_zero(); }
  /// ratio / weight; +inf for a zero weight that borrows.
  double weighted() const;
  /// `ceil(weighted)` as Kueue publishes it in status.fairSharing.weightedShare.
  std::int64_t rounded_weighted() const;
  bool borrowing_on(const Amounts& requested) const;
};

/// Kueue's CompareDRS: -1, 0, 1.
int compare_drs(const DominantResourceShare& a, const DominantResourceShare& b);

class QuotaTree {
 public:
  static constexpr std::int64_t kUnset = std::numeric_limits<std::int64_t>::min();
  static constexpr int kNoParent = -1;

  struct Quota {
    std::int64_t nominal = 0;
    std::int64_t borrowing_limit = kUnset;
    std::int64_t lending_limit = kUnset;
  };

  // -- structure ------------------------------------------------------------------
  /// Adds a node; the parent must already exist (or be kNoParent).
  int add_node(std::string name, bool is_cluster_queue, int parent, double fair_weight);
  /// Declares the quota of `node` for `fr` (ClusterQueue or Cohort resource groups).
  void set_quota(int node, FlavorResource fr, Quota q);
  /// Computes subtree quotas and heights. Call after the structure and quotas are set and
  /// before usage is added.
  void finalize();

  int size() const { return static_cast<int>(nodes().size()); }
  int parent(int node) const { return nodes()[node].parent; }
  bool has_parent(int node) const { return nodes()[node].parent != kNoParent; }
  bool is_cluster_queue(int node) const { return nodes()[node].is_cq; }
  const std::string& name(int node) const { return nodes()[node].name; }
  double fair_weight(int node) const { return nodes()[node].fair_weight; }
  int root() const { return 0; }
  const std::vector<int>& child_cohorts(int node) const { return nodes()[node].child_cohorts; }
  const std::vector<int>& child_cluster_queues(int node) const { return nodes()[node].child_cqs; }
  /// Longest path to a leaf (Kueue's getNodeHeight), for borrowing levels.
  int height(int node) const { return nodes()[node].height; }
  /// The FRs any node of the tree has quota for (or usage of).
  const std::vector<FlavorResource>& flavor_resources() const { return frs_; }

  // -- quantities -----------------------------------------------------------------
  Quota quota(int node, FlavorResource fr) const;
  bool has_quota(int node, FlavorResource fr) const;
  std::int64_t subtree_quota(int node, FlavorResource fr) const;
  std::int64_t usage(int node, FlavorResource fr) const;

  std::int64_t local_quota(int node, FlavorResource fr) const;
  std::int64_t local_available(int node, FlavorResource fr) const;
  /// May be negative after over-admission (a quota lowered under usage).
  std::int64_t available_raw(int node, FlavorResource fr) const;
  /// max(0, available_raw): what fits now.
  std::int64_t available(int node, FlavorResource fr) const;
  /// What would fit in an otherwise empty tree.
  std::int64_t potential_available(int node, FlavorResource fr) const;

  void add_usage(int node, FlavorResource fr, std::int64_t v);
  void remove_usage(int node, FlavorResource fr, std::int64_t v);
  void add_usage(int node, const Amounts& amounts);
  void remove_usage(int node, const Amounts& amounts);

  /// subtree quota < usage + v
  bool borrowing_with(int node, FlavorResource fr, std::int64_t v) const;
  bool within_nominal(int node, const std::vector<FlavorResource>& frs) const;
  /// Dense indexes of flavor-resource pairs (-1 for pairs the tree does not know), for
  /// repeated checks; inline storage for the usual handful.
  class DenseIndexes {
   public:
    void push_back(int i) {
      if (n_ < inline_.size()) {
        inline_[n_++] = i;
      } else {
        overflow_.push_back(i);
      }
    }
    template <class F>
    bool any_of(F&& f) const {
      for (std::size_t k = 0; k < n_; ++k) {
        if (f(inline_[k])) return true;
      }
      for (int i : overflow_) {
        if (f(i)) return true;
      }
      return false;
    }

   private:
    std::array<int, 8> inline_{};
    std::size_t n_ = 0;
    std::vector<int> overflow_;
  };
  DenseIndexes dense_indexes(const std::vector<FlavorResource>& frs) const;
  /// Whether some ClusterQueue below `node` (or `node` itself) uses more than its
  /// nominal quota of one of the pairs.
  bool any_borrowing_cq_below(int node, const DenseIndexes& dense) const {
    return dense.any_of([&](int f) { return f >= 0 && slot(node, f).over_nominal_cqs > 0; });
  }
  /// within_nominal() over dense indexes.
  bool within_nominal_dense(int node, const DenseIndexes& dense) const {
    return !dense.any_of([&](int f) { return f >= 0 && slot(node, f).subtree_quota < slot(node, f).usage; });
  }
  /// Kueue's QuantitiesFitInQuota: whether `requests` fit in the node's own subtree quota,
  /// and what remains to be found higher up.
  bool quantities_fit_in_quota(int node, const Amounts& requests, Amounts* remaining) const;
  /// Kueue's FindHeightOfLowestSubtreeThatFits: the borrowing level of `v` more of `fr`
  /// for a ClusterQueue, and whether reclaiming in the hierarchy may help.
  std::pair<int, bool> lowest_subtree_that_fits(int cq_node, FlavorResource fr,
                                                std::int64_t v) const;

  DominantResourceShare dominant_resource_share(int node, const Amounts* extra,
                                                const SymbolTable& resources) const;

 private:
  struct Slot {
    Quota quota;
    bool has_quota = false;  ///< present in the node's SubtreeQuota map
    std::int64_t subtree_quota = 0;
    std::int64_t usage = 0;
    /// ClusterQueues in this subtree using more than their nominal quota of this pair,
    /// kept up to date by add/remove_usage so that preemption can skip subtrees where
    /// nobody borrows.
    std::int32_t over_nominal_cqs = 0;
  };
  struct Node {
    std::string name;
    bool is_cq = false;
    int parent = kNoParent;
    double fair_weight = 1.0;
    std::vector<int> child_cohorts;
    std::vector<int> child_cqs;
    int height = 0;
  };

  int fr_index(FlavorResource fr) const;
  int ensure_fr(FlavorResource fr);
  Slot& slot(int node, int f) { return slots_[static_cast<std::size_t>(node) * frs_.size() + f]; }
  const Slot& slot(int node, int f) const {
    return slots_[static_cast<std::size_t>(node) * frs_.size() + f];
  }
  std::int64_t local_quota_at(int node, int f) const;
  std::int64_t local_available_at(int node, int f) const;
  std::int64_t available_at(int node, int f) const;
  std::int64_t potential_available_at(int node, int f) const;
  void add_usage_at(int node, int f, std::int64_t v);
  void track_borrowing(int cq_node, int f, std::int64_t before, std::int64_t after);
  void remove_usage_at(int node, int f, std::int64_t v);
  int compute_height(int node);
  void accumulate_subtree_quota(int node);

  // The structure is shared between copies (a cycle's snapshot copies only quantities).
  const std::vector<Node>& nodes() const { return *nodes_; }
  std::vector<Node>& mutable_nodes();

  std::shared_ptr<std::vector<Node>> nodes_ = std::make_shared<std::vector<Node>>();
  std::vector<FlavorResource> frs_;     // dense index -> FR
  std::vector<std::uint32_t> fr_keys_;  // sorted packed FRs
  std::vector<int> fr_pos_;             // parallel to fr_keys_: dense index
  std::vector<Slot> slots_;             // node-major
};

}  // namespace kueuepp::core
