#include "core/engine/local_queue_tallies.hpp"

#include <algorithm>
#include <limits>

namespace kueuepp::core {

namespace {

using Sums = std::vector<LocalQueueTallies::Sum>;

void add_amounts(Sums& sums, const Amounts& amounts, int sign) {
  for (const auto& [fr, milli] : amounts) {
    auto it = std::lower_bound(sums.begin(), sums.end(), fr,
                               [](const LocalQueueTallies::Sum& e, FlavorResource k) { return e.fr < k; });
    if (it == sums.end() || !(it->fr == fr)) it = sums.insert(it, LocalQueueTallies::Sum{fr, 0, 0});
    it->milli += static_cast<WideMilli>(milli) * sign;
    it->holders += sign;
    if (it->holders <= 0) sums.erase(it);
  }
}

}  // namespace

std::string LocalQueueTallies::key(int cq, std::string_view ns, std::string_view local_queue) {
  std::string k = std::to_string(cq);
  k += '\0';
  k += ns;
  k += '\0';
  k += local_queue;
  return k;
}

int LocalQueueTallies::group_of(int cq, std::string_view ns, std::string_view local_queue, int hint) {
  if (hint >= 0 && static_cast<std::size_t>(hint) < groups_.size()) {
    const Group& g = groups_[static_cast<std::size_t>(hint)];
    if (g.members > 0 && g.cq == cq && g.ns == ns && g.local_queue == local_queue) return hint;
  }
  std::string k = key(cq, ns, local_queue);
  auto it = ids_.find(k);
  if (it != ids_.end()) return it->second;
  int id;
  if (!free_.empty()) {
    id = free_.back();
    free_.pop_back();
  } else {
    id = static_cast<int>(groups_.size());
    groups_.emplace_back();
  }
  Group& g = groups_[static_cast<std::size_t>(id)];
  g = Group{};
  g.cq = cq;
  g.ns = std::string(ns);
  g.local_queue = std::string(local_queue);
  ids_.emplace(std::move(k), id);
  return id;
}

void LocalQueueTallies::move(const TallyShare& from, const TallyShare& to) {
  // The new share first: a group both count in must not be dropped in between.
  add(to, +1);
  add(from, -1);
}

void LocalQueueTallies::add(const TallyShare& share, int sign) {
  if (share.group < 0 || static_cast<std::size_t>(share.group) >= groups_.size()) return;
  Group& g = groups_[static_cast<std::size_t>(share.group)];
  g.members += sign;
  if (share.reserved) {
    g.reserving += sign;
    add_amounts(g.reserved, share.usage, sign);
    if (share.admitted) {
      g.admitted += sign;
      add_amounts(g.used, share.usage, sign);
    }
  } else {
    g.pending += sign;
  }
  if (g.members <= 0) {
    ids_.erase(key(g.cq, g.ns, g.local_queue));
    free_.push_back(share.group);
    g = Group{};
  }
}

std::int64_t LocalQueueTallies::saturated(WideMilli v) {
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
  if (v > kMax) return kMax;
  if (v < kMin) return kMin;
  return static_cast<std::int64_t>(v);
}

}  // namespace kueuepp::core
