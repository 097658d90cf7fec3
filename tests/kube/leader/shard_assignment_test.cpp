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

/// Every shard as held (fresh) by its holder in `holders` ("" = free since `free_since`).
std::vector<ShardView> shards_seen_by(const std::string& me, const std::vector<std::string>& holders,
                                      LocalTime free_since = kNow) {
  std::vector<ShardView> out;
  for (const auto& h : holders) {
    ShardView v;
    v.mine = h == me;
    if (h.empty()) v.free_since = free_since;
    out.push_back(v);
  }
  return out;
}

std::set<std::uint32_t> wanted_by(const std::string& me, const std::vector<Member>& live,
                                  const std::vector<std::string>& holders, LocalTime now = kNow,
                                  LocalTime free_since = kNow) {
  AssignmentInput in{me, live, shards_seen_by(me, holders, free_since), kTiming, now};
  std::set<std::uint32_t> out;
  auto w = wanted_shards(in);
  for (std::uint32_t i = 0; i < w.size(); ++i) {
    if (w[i]) out.insert(i);
  }
  return out;
}

TEST(ShardAssignment, ThreeMembersFourShardsSplitTwoOneOne) {
  auto live = members({"a", "b", "c"});
  std::vector<std::string> free(4, "");
  EXPECT_EQ(wanted_by("a", live, free), (std::set<std::uint32_t>{0, 3}));
  EXPECT_EQ(wanted_by("b", live, free), (std::set<std::uint32_t>{1}));
  EXPECT_EQ(wanted_by("c", live, free), (std::set<std::uint32_t>{2}));
}

TEST(ShardAssignment, EveryoneAgreesWhateverTheOrderTheySeeMembersIn) {
  std::vector<std::string> ids = {"pod-c_01", "pod-a_ff", "pod-b_10", "pod-d_00"};
  std::map<std::uint32_t, std::string> first;
  std::sort(ids.begin(), ids.end());
  do {
    for (std::uint32_t shard = 0; shard < 7; ++shard) {
      auto p = preferred_holder(ids, shard);
      ASSERT_TRUE(p);
      auto [it, inserted] = first.emplace(shard, *p);
      EXPECT_EQ(it->second, *p) << "shard " << shard;
    }
  } while (std::next_permutation(ids.begin(), ids.end()));
  EXPECT_FALSE(preferred_holder({}, 0));
  // Each member's view, with the same input: every shard wanted by exactly one member.
  std::vector<Member> live;
  for (const auto& id : ids) live.push_back(Member{id, kNow - 1h});
  std::map<std::uint32_t, int> wanted_count;
  for (const auto& id : ids) {
    std::vector<Member> shuffled = live;
    std::rotate(shuffled.begin(), shuffled.begin() + 1, shuffled.end());
    for (auto s : wanted_by(id, shuffled, std::vector<std::string>(7, ""))) ++wanted_count[s];
  }
  for (std::uint32_t s = 0; s < 7; ++s) EXPECT_EQ(wanted_count[s], 1) << "shard " << s;
}

TEST(ShardAssignment, TheShardsOfAMemberThatLeftAreTaken) {
  // a: 0, 3; b: 1; c: 2. c is gone (its member lease expired); its shard 2 is still
  // held as far as anyone can tell, but the remaining members now prefer a for it.
  auto live = members({"a", "b"});
  std::vector<std::string> holders = {"a", "b", "c", "a"};
  EXPECT_EQ(wanted_by("a", live, holders), (std::set<std::uint32_t>{0, 2}));
  // a hands shard 3 over to b (b has been a member for long) and b wants it.
  EXPECT_EQ(wanted_by("b", live, holders), (std::set<std::uint32_t>{1, 3}));
}

TEST(ShardAssignment, AJoiningMemberGetsItsShareOnceSettled) {
  // a and b hold everything; c joins at kNow.
  std::vector<Member> live = members({"a", "b"});
  live.push_back(Member{"c", kNow});
  std::vector<std::string> holders = {"a", "b", "a", "b"};
  // With three members shard 3's preferred holder is a (settled): b hands it over at
  // once. Shard 2 goes to c, but not before c has been a member for one retry period.
  EXPECT_EQ(wanted_by("a", live, holders, kNow + 1999ms), (std::set<std::uint32_t>{0, 2, 3}));
  EXPECT_EQ(wanted_by("b", live, holders, kNow + 1999ms), (std::set<std::uint32_t>{1}));
  EXPECT_EQ(wanted_by("a", live, holders, kNow + 2s), (std::set<std::uint32_t>{0, 3}));
  EXPECT_EQ(wanted_by("b", live, holders, kNow + 2s), (std::set<std::uint32_t>{1}));
  EXPECT_EQ(wanted_by("c", live, holders, kNow + 2s), (std::set<std::uint32_t>{2}));
  // Once handed over: balanced 2/1/1 and stable.
  std::vector<std::string> after = {"a", "b", "c", "a"};
  EXPECT_EQ(wanted_by("a", live, after, kNow + 10s), (std::set<std::uint32_t>{0, 3}));
  EXPECT_EQ(wanted_by("b", live, after, kNow + 10s), (std::set<std::uint32_t>{1}));
  EXPECT_EQ(wanted_by("c", live, after, kNow + 10s), (std::set<std::uint32_t>{2}));
}

TEST(ShardAssignment, AShardFreeForLongerThanALeaseDurationIsWantedByAnyone) {
  // b does not know c yet (memberships disagree): c's shard 2 is not b's to prefer.
  auto live = members({"a", "b"});
  std::vector<std::string> holders = {"a", "b", "", "a"};
  const LocalTime freed = kNow;
  EXPECT_EQ(wanted_by("b", members({"b"}), holders, freed + 15s, freed).count(2), 1u);  // b alone: preferred
  EXPECT_EQ(wanted_by("b", live, holders, freed + 15s, freed).count(2), 0u);
  EXPECT_EQ(wanted_by("b", live, holders, freed + 15001ms, freed).count(2), 1u);
}

TEST(ShardAssignment, WithoutMembersAHolderKeepsItsShards) {
  // This replica's own membership lapsed (e.g. its member lease could not be renewed):
  // it keeps what it holds rather than leaving shards unheld.
  EXPECT_EQ(wanted_by("a", {}, {"a", "", "a"}), (std::set<std::uint32_t>{0, 2}));
}

}  // namespace
}  // namespace kueuepp::kube::leader
