// Which shards each replica wants, computed independently by every replica.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "kube/leader/shard_assignment.hpp"

namespace kueuepp::kube::leader {
namespace {

using namespace std::chrono_literals;

const LocalTime kNow = LocalTime{} + 1h;
const ElectionTiming kTiming{15000ms, 10000ms, 2000ms};

std::vector<Member> members(std::initializer_list<const char*> ids, LocalTime since = kNow - 1h) {
  std::vector<Member> out;
  for (const char* id : ids) out.push_back(Member{id, since});
  return out;
}

/// Every shard held (fresh) by its holder in `holders` ("" = free since `free_since`).
std::vector<ShardView> shards(const std::vector<std::string>& holders, LocalTime free_since = kNow) {
  std::vector<ShardView> out;
  for (const auto& h : holders) {
    ShardView v;
    v.holder = h;
    if (h.empty()) v.free_since = free_since;
    out.push_back(v);
  }
  return out;
}

std::set<std::uint32_t> wanted_by(const std::string& me, const std::vector<Member>& live,
                                  const std::vector<std::string>& holders, LocalTime now = kNow,
                                  LocalTime free_since = kNow) {
  AssignmentInput in{me, live, shards(holders, free_since), kTiming, now};
  std::set<std::uint32_t> out;
  auto w = wanted_shards(in);
  for (std::uint32_t i = 0; i < w.size(); ++i) {
    if (w[i]) out.insert(i);
  }
  return out;
}

std::vector<std::string> targets(std::vector<std::string> live, const std::vector<std::string>& holders) {
  std::vector<std::string> out;
  for (const auto& t : target_holders(std::move(live), holders)) out.push_back(t.value_or("?"));
  return out;
}

using Names = std::vector<std::string>;

TEST(ShardAssignment, ThreeMembersFourShardsSplitTwoOneOne) {
  auto live = members({"a", "b", "c"});
  std::vector<std::string> free(4, "");
  EXPECT_EQ(wanted_by("a", live, free), (std::set<std::uint32_t>{0, 3}));
  EXPECT_EQ(wanted_by("b", live, free), (std::set<std::uint32_t>{1}));
  EXPECT_EQ(wanted_by("c", live, free), (std::set<std::uint32_t>{2}));
}

TEST(ShardAssignment, WithNothingHeldTheTargetIsMembersIModuloM) {
  EXPECT_EQ(targets({"c", "a", "b"}, Names(7, "")), (Names{"a", "b", "c", "a", "b", "c", "a"}));
  EXPECT_EQ(targets({}, Names(2, "")), (Names{"?", "?"}));
}

TEST(ShardAssignment, EveryoneAgreesWhateverTheOrderTheySeeMembersIn) {
  std::vector<std::string> ids = {"pod-c_01", "pod-a_ff", "pod-b_10", "pod-d_00"};
  const Names holders = {"pod-b_10", "", "pod-b_10", "pod-x_99", "pod-b_10", "", "pod-a_ff"};
  std::optional<Names> first;
  std::sort(ids.begin(), ids.end());
  do {
    Names t = targets(ids, holders);
    if (!first) first = t;
    EXPECT_EQ(t, *first);
  } while (std::next_permutation(ids.begin(), ids.end()));
  // Each member's view of the same input: every shard wanted by exactly one member.
  std::vector<Member> live;
  for (const auto& id : ids) live.push_back(Member{id, kNow - 1h});
  std::map<std::uint32_t, int> wanted_count;
  for (const auto& id : ids) {
    std::vector<Member> shuffled = live;
    std::rotate(shuffled.begin(), shuffled.begin() + 1, shuffled.end());
    for (auto s : wanted_by(id, shuffled, holders)) ++wanted_count[s];
  }
  for (std::uint32_t s = 0; s < holders.size(); ++s) EXPECT_EQ(wanted_count[s], 1) << "shard " << s;
}

TEST(ShardAssignment, TheShardsOfAMemberThatLeftAreTaken) {
  // a: 0, 3; b: 1; c: 2. c is gone (its member Lease expired); its shard 2 is still held
  // as far as anyone can tell, but by no member: the others share it out.
  auto live = members({"a", "b"});
  Names holders = {"a", "b", "c", "a"};
  EXPECT_EQ(targets({"a", "b"}, holders), (Names{"a", "b", "b", "a"}));
  EXPECT_EQ(wanted_by("a", live, holders), (std::set<std::uint32_t>{0, 3}));
  EXPECT_EQ(wanted_by("b", live, holders), (std::set<std::uint32_t>{1, 2}));
}

TEST(ShardAssignment, AJoiningMemberGetsItsShareWithOneMoveOnceSettled) {
  // a and b hold everything; c joins at kNow.
  std::vector<Member> live = members({"a", "b"});
  live.push_back(Member{"c", kNow});
  Names holders = {"a", "b", "a", "b"};
  // Quotas 2/1/1: a keeps 0 and 2, b keeps 1, shard 3 goes to c.
  EXPECT_EQ(targets({"a", "b", "c"}, holders), (Names{"a", "b", "a", "c"}));
  // Before c has been a member for one retry period nobody gives anything up.
  EXPECT_EQ(wanted_by("b", live, holders, kNow + 1999ms), (std::set<std::uint32_t>{1, 3}));
  EXPECT_EQ(wanted_by("c", live, holders, kNow + 1999ms), (std::set<std::uint32_t>{3}));
  // Then b hands shard 3 over; nothing else moves.
  EXPECT_EQ(wanted_by("a", live, holders, kNow + 2s), (std::set<std::uint32_t>{0, 2}));
  EXPECT_EQ(wanted_by("b", live, holders, kNow + 2s), (std::set<std::uint32_t>{1}));
  EXPECT_EQ(wanted_by("c", live, holders, kNow + 2s), (std::set<std::uint32_t>{3}));
  // While shard 3 is free (released, not yet taken) the targets stay the same.
  Names handing_over = {"a", "b", "a", ""};
  EXPECT_EQ(targets({"a", "b", "c"}, handing_over), (Names{"a", "b", "a", "c"}));
  // Taken: balanced 2/1/1 and stable.
  Names after = {"a", "b", "a", "c"};
  EXPECT_EQ(targets({"a", "b", "c"}, after), after);
}

TEST(ShardAssignment, AShardStaysWithItsHolderWhenMovingItWouldNotEvenTheSpread) {
  // One shard, two replicas: b leads; a (first by name) comes back and does not get it.
  EXPECT_EQ(targets({"a", "b"}, {"b"}), (Names{"b"}));
  EXPECT_EQ(wanted_by("a", members({"a", "b"}), {"b"}), (std::set<std::uint32_t>{}));
  EXPECT_EQ(wanted_by("b", members({"a", "b"}), {"b"}), (std::set<std::uint32_t>{0}));
  // Five shards over two: 3/2 either way round, nothing moves.
  EXPECT_EQ(targets({"a", "b"}, {"b", "b", "a", "b", "a"}), (Names{"b", "b", "a", "b", "a"}));
  // But 4/1 becomes 3/2.
  EXPECT_EQ(targets({"a", "b"}, {"b", "b", "a", "b", "b"}), (Names{"b", "b", "a", "b", "a"}));
}

TEST(ShardAssignment, AShardFreeForLongerThanALeaseDurationIsWantedByAnyone) {
  // b does not know c yet (memberships disagree): c's target shard is not b's.
  const LocalTime freed = kNow;
  Names holders = {"a", "b", "", "a"};
  EXPECT_EQ(targets({"a", "b"}, holders)[2], "b");
  EXPECT_EQ(targets({"a", "b", "c"}, holders)[2], "c");
  auto with_c = members({"a", "b", "c"});
  EXPECT_EQ(wanted_by("b", with_c, holders, freed + 15s, freed).count(2), 0u);
  EXPECT_EQ(wanted_by("b", with_c, holders, freed + 15001ms, freed).count(2), 1u);
}

TEST(ShardAssignment, WithoutMembersAHolderKeepsItsShards) {
  // This replica's own membership lapsed (e.g. its member Lease could not be renewed):
  // it keeps what it holds rather than leaving shards unheld.
  EXPECT_EQ(wanted_by("a", {}, {"a", "", "a"}), (std::set<std::uint32_t>{0, 2}));
}

}  // namespace
}  // namespace kueuepp::kube::leader
