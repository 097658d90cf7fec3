#include "kube/leader/shard_assignment.hpp"

#include <algorithm>
#include <map>

namespace kueuepp::kube::leader {

namespace {

struct Share {
  std::string identity;
  std::size_t held = 0;   ///< shards it holds now
  std::size_t quota = 0;  ///< shards it should hold
  std::size_t kept = 0;   ///< shards assigned to it so far
};

/// Members sorted by identity, with quotas: N / M each, one more for the N % M members
/// holding the most (ties by identity) so that those keep what they have.
std::vector<Share> shares(std::vector<std::string> members, const std::vector<std::string>& holders) {
  std::sort(members.begin(), members.end());
  members.erase(std::unique(members.begin(), members.end()), members.end());
  std::vector<Share> out;
  for (auto& m : members) out.push_back(Share{std::move(m)});
  for (const auto& h : holders) {
    auto it = std::lower_bound(out.begin(), out.end(), h, [](const Share& s, const std::string& id) { return s.identity < id; });
    if (it != out.end() && it->identity == h) ++it->held;
  }
  std::vector<Share*> by_held;
  for (auto& s : out) by_held.push_back(&s);
  std::stable_sort(by_held.begin(), by_held.end(), [](const Share* a, const Share* b) { return a->held > b->held; });
  const std::size_t base = holders.size() / out.size();
  const std::size_t extra = holders.size() % out.size();
  for (std::size_t i = 0; i < by_held.size(); ++i) by_held[i]->quota = base + (i < extra ? 1 : 0);
  return out;
}

bool settled_member(const Member& m, const AssignmentInput& in) {
  return in.now - m.member_since >= in.timing.retry_period;
}

const Member* find_member(const AssignmentInput& in, const std::optional<std::string>& identity) {
  if (!identity) return nullptr;
  for (const auto& m : in.members) {
    if (m.identity == *identity) return &m;
  }
  return nullptr;
}

bool wanted(const ShardView& shard, const std::optional<std::string>& target, const AssignmentInput& in) {
  if (target && *target == in.me) return true;
  if (shard.holder == in.me) {
    // Hand over only to another member that has been around for a while.
    const Member* next = find_member(in, target);
    return next == nullptr || !settled_member(*next, in);
  }
  return shard.free_since && in.now - *shard.free_since > in.timing.lease_duration;
}

}  // namespace

std::vector<std::optional<std::string>> target_holders(std::vector<std::string> members,
                                                       const std::vector<std::string>& holders) {
  std::vector<std::optional<std::string>> target(holders.size());
  if (members.empty()) return target;
  std::vector<Share> share = shares(std::move(members), holders);
  std::map<std::string_view, Share*> by_id;
  for (auto& s : share) by_id.emplace(s.identity, &s);
  // Holders keep what they hold, lowest shards first, up to their quota.
  for (std::size_t i = 0; i < holders.size(); ++i) {
    auto it = by_id.find(holders[i]);
    if (it == by_id.end() || it->second->kept >= it->second->quota) continue;
    ++it->second->kept;
    target[i] = it->second->identity;
  }
  // The rest round-robin to the members still below their quota.
  std::size_t next = 0;
  for (std::size_t i = 0; i < holders.size(); ++i) {
    if (target[i]) continue;
    while (share[next % share.size()].kept >= share[next % share.size()].quota) ++next;
    Share& s = share[next++ % share.size()];
    ++s.kept;
    target[i] = s.identity;
  }
  return target;
}

std::vector<bool> wanted_shards(const AssignmentInput& in) {
  std::vector<std::string> members;
  for (const auto& m : in.members) members.push_back(m.identity);
  std::vector<std::string> holders;
  for (const auto& s : in.shards) holders.push_back(s.holder);
  const auto target = target_holders(std::move(members), holders);
  std::vector<bool> out(in.shards.size(), false);
  for (std::size_t i = 0; i < in.shards.size(); ++i) out[i] = wanted(in.shards[i], target[i], in);
  return out;
}

}  // namespace kueuepp::kube::leader
