#include "core/engine/quota_tree.hpp"

#include <algorithm>
#include <cmath>

namespace kueuepp::core {

// -- DominantResourceShare ------------------------------------------------------------

double DominantResourceShare::weighted() const {
  if (is_zero()) return 0.0;
  if (fair_weight == 0) return std::numeric_limits<double>::infinity();
  return unweighted_ratio / fair_weight;
}

std::int64_t DominantResourceShare::rounded_weighted() const {
  if (zero_weight_borrows()) return std::numeric_limits<std::int64_t>::max();
  return static_cast<std::int64_t>(std::ceil(weighted()));
}

bool DominantResourceShare::borrowing_on(const Amounts& requested) const {
  for (FlavorResource fr : borrowed) {
    if (requested.get(fr) > 0) return true;
  }
  return false;
}

int compare_drs(const DominantResourceShare& a, const DominantResourceShare& b) {
  auto cmp = [](double x, double y) { return x < y ? -1 : (x > y ? 1 : 0); };
  bool az = a.zero_weight_borrows();
  bool bz = b.zero_weight_borrows();
  if (az && bz) return cmp(a.unweighted_ratio, b.unweighted_ratio);
  if (az) return 1;
  if (bz) return -1;
  return cmp(a.weighted(), b.weighted());
}

// -- structure ------------------------------------------------------------------------

std::vector<QuotaTree::Node>& QuotaTree::mutable_nodes() {
  // Copy-on-write: a copy made for a cycle's snapshot must not see structural edits.
  if (nodes_.use_count() > 1) nodes_ = std::make_shared<std::vector<Node>>(*nodes_);
  return *nodes_;
}

int QuotaTree::add_node(std::string name, bool is_cluster_queue, int parent, double fair_weight) {
  auto& nodes = mutable_nodes();
  int id = static_cast<int>(nodes.size());
  Node n;
  n.name = std::move(name);
  n.is_cq = is_cluster_queue;
  n.parent = parent;
  n.fair_weight = fair_weight;
  nodes.push_back(std::move(n));
  if (parent != kNoParent) {
    auto& p = nodes[static_cast<std::size_t>(parent)];
    (is_cluster_queue ? p.child_cqs : p.child_cohorts).push_back(id);
  }
  slots_.resize(nodes.size() * frs_.size());
  return id;
}

int QuotaTree::fr_index(FlavorResource fr) const {
  auto it = std::lower_bound(fr_keys_.begin(), fr_keys_.end(), fr.packed());
  if (it == fr_keys_.end() || *it != fr.packed()) return -1;
  return fr_pos_[static_cast<std::size_t>(it - fr_keys_.begin())];
}

int QuotaTree::ensure_fr(FlavorResource fr) {
  int existing = fr_index(fr);
  if (existing >= 0) return existing;
  // Re-layout the node-major slot array with one more column.
  std::size_t old_f = frs_.size();
  std::size_t new_f = old_f + 1;
  std::vector<Slot> grown(nodes().size() * new_f);
  for (std::size_t n = 0; n < nodes().size(); ++n) {
    for (std::size_t f = 0; f < old_f; ++f) grown[n * new_f + f] = slots_[n * old_f + f];
  }
  slots_ = std::move(grown);
  frs_.push_back(fr);
  auto it = std::lower_bound(fr_keys_.begin(), fr_keys_.end(), fr.packed());
  auto pos = it - fr_keys_.begin();
  fr_keys_.insert(it, fr.packed());
  fr_pos_.insert(fr_pos_.begin() + pos, static_cast<int>(old_f));
  return static_cast<int>(old_f);
}

void QuotaTree::set_quota(int node, FlavorResource fr, Quota q) {
  int f = ensure_fr(fr);
  Slot& s = slot(node, f);
  s.quota = q;
  s.has_quota = true;
}

int QuotaTree::compute_height(int node) {
  Node& n = mutable_nodes()[static_cast<std::size_t>(node)];
  if (n.is_cq) {
    n.height = 0;
    return 0;
  }
  int h = std::min<int>(static_cast<int>(n.child_cohorts.size() + n.child_cqs.size()), 1);
  for (int c : std::vector<int>(n.child_cohorts)) h = std::max(h, compute_height(c) + 1);
  mutable_nodes()[static_cast<std::size_t>(node)].height = h;
  return h;
}

void QuotaTree::accumulate_subtree_quota(int node) {
  const Node& n = nodes()[static_cast<std::size_t>(node)];
  const std::size_t nf = frs_.size();
  for (std::size_t f = 0; f < nf; ++f) {
    Slot& s = slot(node, static_cast<int>(f));
    s.subtree_quota = s.has_quota ? s.quota.nominal : 0;
  }
  if (n.is_cq) return;
  auto children = n.child_cohorts;
  children.insert(children.end(), n.child_cqs.begin(), n.child_cqs.end());
  for (int c : children) {
    accumulate_subtree_quota(c);
    for (std::size_t f = 0; f < nf; ++f) {
      const Slot& cs = slot(c, static_cast<int>(f));
      if (!cs.has_quota) continue;
      Slot& s = slot(node, static_cast<int>(f));
      s.has_quota = true;
      s.subtree_quota = sat_add(s.subtree_quota,
                                sat_sub(cs.subtree_quota, local_quota_at(c, static_cast<int>(f))));
    }
  }
}

void QuotaTree::finalize() {
  if (nodes().empty()) return;
  // Children in name order, so that every iteration over them is deterministic.
  auto& all = mutable_nodes();
  for (auto& n : all) {
    auto by_name = [&all](int a, int b) { return all[static_cast<std::size_t>(a)].name < all[static_cast<std::size_t>(b)].name; };
    std::sort(n.child_cohorts.begin(), n.child_cohorts.end(), by_name);
    std::sort(n.child_cqs.begin(), n.child_cqs.end(), by_name);
  }
  compute_height(root());
  accumulate_subtree_quota(root());
}

// -- quantities -----------------------------------------------------------------------

QuotaTree::Quota QuotaTree::quota(int node, FlavorResource fr) const {
  int f = fr_index(fr);
  if (f < 0) return {};
  const Slot& s = slot(node, f);
  return s.has_quota || nodes()[static_cast<std::size_t>(node)].is_cq ? s.quota : Quota{};
}

bool QuotaTree::has_quota(int node, FlavorResource fr) const {
  int f = fr_index(fr);
  return f >= 0 && slot(node, f).has_quota;
}

std::int64_t QuotaTree::subtree_quota(int node, FlavorResource fr) const {
  int f = fr_index(fr);
  return f < 0 ? 0 : slot(node, f).subtree_quota;
}

std::int64_t QuotaTree::usage(int node, FlavorResource fr) const {
  int f = fr_index(fr);
  return f < 0 ? 0 : slot(node, f).usage;
}

std::int64_t QuotaTree::local_quota_at(int node, int f) const {
  const Slot& s = slot(node, f);
  if (s.quota.lending_limit == kUnset) return 0;
  return std::max<std::int64_t>(0, sat_sub(s.subtree_quota, s.quota.lending_limit));
}

std::int64_t QuotaTree::local_available_at(int node, int f) const {
  return std::max<std::int64_t>(0, sat_sub(local_quota_at(node, f), slot(node, f).usage));
}

std::int64_t QuotaTree::available_at(int node, int f) const {
  const Slot& s = slot(node, f);
  const Node& n = nodes()[static_cast<std::size_t>(node)];
  if (n.parent == kNoParent) return sat_sub(s.subtree_quota, s.usage);
  std::int64_t parent_available = available_at(n.parent, f);
  if (s.quota.borrowing_limit != kUnset) {
    std::int64_t lq = local_quota_at(node, f);
    std::int64_t stored_in_parent = sat_sub(s.subtree_quota, lq);
    std::int64_t used_in_parent = std::max<std::int64_t>(0, sat_sub(s.usage, lq));
    std::int64_t with_max = sat_add(sat_sub(stored_in_parent, used_in_parent), s.quota.borrowing_limit);
    parent_available = std::min(with_max, parent_available);
  }
  return sat_add(local_available_at(node, f), parent_available);
}

std::int64_t QuotaTree::potential_available_at(int node, int f) const {
  const Slot& s = slot(node, f);
  const Node& n = nodes()[static_cast<std::size_t>(node)];
  if (n.parent == kNoParent) return s.subtree_quota;
  std::int64_t avail = sat_add(local_quota_at(node, f), potential_available_at(n.parent, f));
  if (s.quota.borrowing_limit != kUnset) {
    avail = std::min(sat_add(s.subtree_quota, s.quota.borrowing_limit), avail);
  }
  return avail;
}

std::int64_t QuotaTree::local_quota(int node, FlavorResource fr) const {
  int f = fr_index(fr);
  return f < 0 ? 0 : local_quota_at(node, f);
}
std::int64_t QuotaTree::local_available(int node, FlavorResource fr) const {
  int f = fr_index(fr);
  return f < 0 ? 0 : local_available_at(node, f);
}
std::int64_t QuotaTree::available_raw(int node, FlavorResource fr) const {
  int f = fr_index(fr);
  return f < 0 ? 0 : available_at(node, f);
}
std::int64_t QuotaTree::available(int node, FlavorResource fr) const {
  return std::max<std::int64_t>(0, available_raw(node, fr));
}
std::int64_t QuotaTree::potential_available(int node, FlavorResource fr) const {
  int f = fr_index(fr);
  return f < 0 ? 0 : potential_available_at(node, f);
}

void QuotaTree::track_borrowing(int cq_node, int f, std::int64_t before, std::int64_t after) {
  std::int64_t sq = slot(cq_node, f).subtree_quota;
  bool was = before > sq;
  bool is = after > sq;
  if (was == is) return;
  for (int n = cq_node; n != kNoParent; n = nodes()[static_cast<std::size_t>(n)].parent) {
    slot(n, f).over_nominal_cqs += is ? 1 : -1;
  }
}

void QuotaTree::add_usage_at(int node, int f, std::int64_t v) {
  std::int64_t la = local_available_at(node, f);
  Slot& s = slot(node, f);
  std::int64_t before = s.usage;
  s.usage = sat_add(s.usage, v);
  if (nodes()[static_cast<std::size_t>(node)].is_cq) track_borrowing(node, f, before, s.usage);
  const Node& n = nodes()[static_cast<std::size_t>(node)];
  if (n.parent != kNoParent && v > la) add_usage_at(n.parent, f, sat_sub(v, la));
}

void QuotaTree::remove_usage_at(int node, int f, std::int64_t v) {
  Slot& s = slot(node, f);
  std::int64_t stored_in_parent = sat_sub(s.usage, local_quota_at(node, f));
  std::int64_t before = s.usage;
  s.usage = sat_sub(s.usage, v);
  if (nodes()[static_cast<std::size_t>(node)].is_cq) track_borrowing(node, f, before, s.usage);
  const Node& n = nodes()[static_cast<std::size_t>(node)];
  if (stored_in_parent <= 0 || n.parent == kNoParent) return;
  remove_usage_at(n.parent, f, std::min(v, stored_in_parent));
}

void QuotaTree::add_usage(int node, FlavorResource fr, std::int64_t v) {
  add_usage_at(node, ensure_fr(fr), v);
}
void QuotaTree::remove_usage(int node, FlavorResource fr, std::int64_t v) {
  remove_usage_at(node, ensure_fr(fr), v);
}
void QuotaTree::add_usage(int node, const Amounts& amounts) {
  for (const auto& [fr, v] : amounts) add_usage(node, fr, v);
}
void QuotaTree::remove_usage(int node, const Amounts& amounts) {
  for (const auto& [fr, v] : amounts) remove_usage(node, fr, v);
}

bool QuotaTree::borrowing_with(int node, FlavorResource fr, std::int64_t v) const {
  int f = fr_index(fr);
  if (f < 0) return v > 0;
  const Slot& s = slot(node, f);
  return s.subtree_quota < sat_add(s.usage, v);
}

bool QuotaTree::within_nominal(int node, const std::vector<FlavorResource>& frs) const {
  for (FlavorResource fr : frs) {
    int f = fr_index(fr);
    if (f < 0) continue;
    const Slot& s = slot(node, f);
    if (s.subtree_quota < s.usage) return false;
  }
  return true;
}

QuotaTree::DenseIndexes QuotaTree::dense_indexes(const std::vector<FlavorResource>& frs) const {
  DenseIndexes out;
  for (FlavorResource fr : frs) out.push_back(fr_index(fr));
  return out;
}

bool QuotaTree::quantities_fit_in_quota(int node, const Amounts& requests, Amounts* remaining) const {
  bool fits = true;
  Amounts rest;
  for (const auto& [fr, v] : requests) {
    if (subtree_quota(node, fr) < sat_add(usage(node, fr), v)) fits = false;
    rest.set(fr, std::max<std::int64_t>(0, sat_sub(v, local_available(node, fr))));
  }
  if (remaining != nullptr) *remaining = std::move(rest);
  return fits;
}

std::pair<int, bool> QuotaTree::lowest_subtree_that_fits(int cq_node, FlavorResource fr,
                                                         std::int64_t v) const {
  bool cq_has_parent = has_parent(cq_node);
  if (!borrowing_with(cq_node, fr, v) || !cq_has_parent) return {0, cq_has_parent};
  std::int64_t remaining = sat_sub(v, local_available(cq_node, fr));
  for (int n = parent(cq_node); n != kNoParent; n = parent(n)) {
    if (!borrowing_with(n, fr, remaining)) return {height(n), has_parent(n)};
    remaining = sat_sub(remaining, local_available(n, fr));
  }
  return {height(root()), false};
}

DominantResourceShare QuotaTree::dominant_resource_share(int node, const Amounts* extra,
                                                         const SymbolTable& resources) const {
  DominantResourceShare drs;
  drs.fair_weight = nodes()[static_cast<std::size_t>(node)].fair_weight;
  if (!has_parent(node)) return drs;

  // Borrowed amount per resource, summed over flavors.
  std::vector<std::pair<ResourceId, std::int64_t>> borrowed;
  const std::size_t nf = frs_.size();
  for (std::size_t f = 0; f < nf; ++f) {
    const Slot& s = slot(node, static_cast<int>(f));
    if (!s.has_quota) continue;
    std::int64_t req = extra != nullptr ? extra->get(frs_[f]) : 0;
    std::int64_t b = sat_sub(sat_add(req, s.usage), s.subtree_quota);
    if (b <= 0) continue;
    drs.borrowed.push_back(frs_[f]);
    ResourceId r = frs_[f].resource;
    auto it = std::find_if(borrowed.begin(), borrowed.end(), [r](auto& p) { return p.first == r; });
    if (it == borrowed.end()) {
      borrowed.emplace_back(r, b);
    } else {
      it->second = sat_add(it->second, b);
    }
  }
  if (borrowed.empty()) return drs;
  drs.borrowing = true;

  // What the parent could lend, per resource, over the FRs the root knows.
  int parent_node = parent(node);
  for (const auto& [r, b] : borrowed) {
    std::int64_t lendable = 0;
    for (std::size_t f = 0; f < nf; ++f) {
      if (frs_[f].resource != r || !slot(root(), static_cast<int>(f)).has_quota) continue;
      lendable = sat_add(lendable, potential_available_at(parent_node, static_cast<int>(f)));
    }
    if (lendable <= 0) continue;
    double ratio = static_cast<double>(b) * 1000.0 / static_cast<double>(lendable);
    if (ratio > drs.unweighted_ratio ||
        (ratio == drs.unweighted_ratio &&
         (drs.dominant_resource < 0 || resources.name(r) < resources.name(static_cast<ResourceId>(drs.dominant_resource))))) {
      drs.unweighted_ratio = ratio;
      drs.dominant_resource = r;
    }
  }
  return drs;
}

}  // namespace kueuepp::core
