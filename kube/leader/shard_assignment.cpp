#include "kube/leader/shard_assignment.hpp"

#include <algorithm>

namespace kueuepp::kube::leader {

namespace {

std::vector<Member> sorted_members(std::vector<Member> members) {
  std::sort(members.begin(), members.end(),
            [](const Member& a, const Member& b) { return a.identity < b.identity; });
  members.erase(std::unique(members.begin(), members.end(),
                            [](const Member& a, const Member& b) { return a.identity == b.identity; }),
                members.end());
  return members;
}

const Member* preferred(const std::vector<Member>& sorted, std::uint32_t shard) {
  if (sorted.empty()) return nullptr;
  return &sorted[shard % sorted.size()];
}

bool settled_member(const Member& m, const AssignmentInput& in) {
  return in.now - m.member_since >= in.timing.retry_period;
}

bool wanted(const ShardView& shard, const Member* best, const AssignmentInput& in) {
  if (shard.mine) {
    // Hand over only to another member that has been around for a while.
    return best == nullptr || best->identity == in.me || !settled_member(*best, in);
  }
  if (best != nullptr && best->identity == in.me) return true;
  return shard.free_since && in.now - *shard.free_since > in.timing.lease_duration;
}

}  // namespace

std::optional<std::string> preferred_holder(std::vector<std::string> members, std::uint32_t shard) {
  if (members.empty()) return std::nullopt;
  std::sort(members.begin(), members.end());
  members.erase(std::unique(members.begin(), members.end()), members.end());
  return members[shard % members.size()];
}

std::vector<bool> wanted_shards(const AssignmentInput& in) {
  const std::vector<Member> members = sorted_members(in.members);
  std::vector<bool> out(in.shards.size(), false);
  for (std::uint32_t i = 0; i < in.shards.size(); ++i) out[i] = wanted(in.shards[i], preferred(members, i), in);
  return out;
}

}  // namespace kueuepp::kube::leader
