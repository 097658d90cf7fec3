#pragma once

// Which shards this replica should hold, from what it observes: the live members and
// who holds every shard's lease. Pure; every replica computes the same answer from the
// same input.
//
// The target holder of every shard (target_holders) spreads N shards over M live
// members as evenly as whole shards allow, moving as few as possible:
//   - every member gets a quota of N / M shards, and the N % M members holding the most
//     (ties: by identity) one more;
//   - a member keeps the shards it holds, lowest first, up to its quota;
//   - the other shards (free, held by non-members, or over a quota) go round-robin, in
//     shard order, to the members below their quota, in identity order.
// With nothing held this is members[i % M]. Unlike a fixed members[i % M], a shard
// stays with its holder when moving it would not even out the spread (one shard, two
// replicas: the leader keeps the lease when the other comes back).
//
// A replica
//   - wants every shard it is the target of (its election takes it once free or
//     expired, or once the current holder hands it over);
//   - wants any shard nobody has held for longer than one lease duration, so every shard
//     gets held even while replicas disagree about who is a member;
//   - gives a held shard up when its target is another live member that has been a
//     member for at least one retry period (a joining replica gets its share, but a
//     member that flickers in and out does not make shards bounce).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/leader/election_timing.hpp"

namespace kueuepp::kube::leader {

struct Member {
  std::string identity;
  /// When this replica first saw it live (without interruption since).
  LocalTime member_since{};
};

/// One shard as this replica sees it.
struct ShardView {
  /// Who holds it (held and seen renewing), "" when nobody does.
  std::string holder;
  /// Nobody holds it (missing, released, or expired, as observed here) since then.
  std::optional<LocalTime> free_since;
};

struct AssignmentInput {
  std::string_view me;
  /// The live members (this replica included when its own membership is live).
  std::vector<Member> members;
  /// One entry per shard.
  std::vector<ShardView> shards;
  ElectionTiming timing;
  LocalTime now{};
};

/// The target holder of every shard (see above); nullopt without members.
std::vector<std::optional<std::string>> target_holders(std::vector<std::string> members,
                                                       const std::vector<std::string>& holders);

/// For every shard: whether this replica should hold it (acquire, or keep renewing).
std::vector<bool> wanted_shards(const AssignmentInput& input);

}  // namespace kueuepp::kube::leader
