#pragma once

// Which shards this replica should hold, from what it observes: the live members and
// the state of every shard's lease. Pure; every replica computes the same answer from
// the same input.
//
// The preferred holder of shard i is members[i % M] (members sorted by identity), which
// spreads N shards over M replicas as evenly as whole shards allow. A replica
//   - wants a shard it is the preferred holder of (its election takes it once free or
//     expired, or once the current holder hands it over);
//   - wants any shard nobody has held for longer than one lease duration, so every shard
//     gets held even while replicas disagree about who is a member;
//   - gives a held shard up when its preferred holder is another live member that has
//     been a member for at least one retry period (so a joining replica gets its share,
//     but a member that flickers in and out does not make shards bounce).

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
  /// This replica holds it now.
  bool mine = false;
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

/// members[shard % M] of the members sorted by identity; nullopt without members.
std::optional<std::string> preferred_holder(std::vector<std::string> members, std::uint32_t shard);

/// For every shard: whether this replica should hold it (acquire, or keep renewing).
std::vector<bool> wanted_shards(const AssignmentInput& input);

}  // namespace kueuepp::kube::leader
