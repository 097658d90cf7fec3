// Kueue's fair-sharing preemption on its own (kueue-semantics.md §2.6 and §2.7): which
// ClusterQueue gives up a workload (the one with the highest dominant resource share
// first) and when the strategies LessThanOrEqualToFinalShare and LessThanInitialShare let a
// borrowing preemptor take it, with fair weights.

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "core/engine/preemptor.hpp"
#include "tests/core/engine/scheduling_setup.hpp"

namespace kueuepp::core {
namespace {

using testing::cluster_queue;
using testing::flavor_quotas;
using testing::Held;
using testing::PerPod;
using testing::preemption_victims;
using testing::resource_group;
using testing::SchedulingSetup;

/// gtest prints a table case by its name.
template <class Case>
requires requires(const Case& c) { std::string(c.name); }
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

using Victims = std::vector<std::string>;
using Strategies = std::vector<FairSharingStrategy>;

constexpr auto kFinalShare = FairSharingStrategy::LessThanOrEqualToFinalShare;
constexpr auto kInitialShare = FairSharingStrategy::LessThanInitialShare;

/// Cohort "co" of ClusterQueues "a", "b" and "c", 10 cpu each (30 in all), under fair
/// sharing. "a" is the preemptor's queue: it reclaims anything from borrowing queues and
/// preempts within itself as `within` says.
struct FairCohort {
  double weight_a = 1.0;
  double weight_b = 1.0;
  double weight_c = 1.0;
  Strategies strategies = {kFinalShare, kInitialShare};
  PreemptionPolicy within = PreemptionPolicy::Never;
  PreemptionPolicy reclaim = PreemptionPolicy::Any;

  void build(SchedulingSetup& s) const {
    s.config().fair_sharing = true;
    s.config().fair_sharing_strategies = strategies;
    s.add_flavors({"default"});
    auto queue = [](const std::string& name, double weight) {
      ClusterQueue cq = cluster_queue(name, "co", {resource_group({"cpu"}, {flavor_quotas("default", {{"cpu", 10}})})});
      cq.fair_weight = weight;
      return cq;
    };
    ClusterQueue a = queue("a", weight_a);
    a.preemption.within_cluster_queue = within;
    a.preemption.reclaim_within_cohort = reclaim;
    s.add_cluster_queue(a);
    s.add_cluster_queue(queue("b", weight_b));
    s.add_cluster_queue(queue("c", weight_c));
    s.build();
  }
};

/// `count` workloads of `cpu` each in `cq`, named <prefix>1.., priority 0, each reserved a
/// second after the previous one (so the last is the newest, the first candidate).
void hold_many(SchedulingSetup& s, const std::string& cq, const std::string& prefix, int count, std::int64_t cpu,
               std::int64_t first_reserved_at) {
  for (int i = 1; i <= count; ++i) {
    s.hold(prefix + std::to_string(i), cq, {Held{"default", "cpu", cpu}}, 0, first_reserved_at + i);
  }
}

// -- strategies and weights ------------------------------------------------------------------

struct StrategyCase {
  std::string name;
  std::int64_t b_workload_cpu = 0;  ///< "b" holds 14 cpu (borrows 4) in workloads of this size
  std::int64_t request = 3;
  FairCohort cohort;
  Victims expected;
};

class FairSharingStrategies : public ::testing::TestWithParam<StrategyCase> {};

// "a" holds its 10 cpu, "b" holds 14 (a share of 4/30), "c" holds 4; 2 cpu are free. The
// preemptor (priority 100) asks for 3 and would borrow 3 (a share of 3/30, 100 per mille).
// Taking a 2-cpu workload leaves "b" a share of 2/30, a 1-cpu one 3/30.
TEST_P(FairSharingStrategies, TakeFromABorrowerOnlyWhileThePreemptorStaysTheFairer) {
  const StrategyCase& c = GetParam();
  SchedulingSetup s;
  c.cohort.build(s);
  s.hold("a-run", "a", {Held{"default", "cpu", 10}}, 0);
  hold_many(s, "b", "b", static_cast<int>(14 / c.b_workload_cpu), c.b_workload_cpu, 1000);
  s.hold("c-run", "c", {Held{"default", "cpu", 4}}, 0);
  const WorkloadRecord& preemptor = s.pending("preemptor", "a", {PerPod{"cpu", c.request}}, 100);
  EXPECT_EQ(preemption_victims(s, preemptor, {{"default", "cpu", c.request}}), c.expected);
}

FairCohort with_strategies(Strategies strategies) {
  FairCohort f;
  f.strategies = std::move(strategies);
  return f;
}

FairCohort with_weights(double a, double b, Strategies strategies = {kFinalShare, kInitialShare}) {
  FairCohort f;
  f.weight_a = a;
  f.weight_b = b;
  f.strategies = std::move(strategies);
  return f;
}

INSTANTIATE_TEST_SUITE_P(
    Preemptor, FairSharingStrategies,
    ::testing::Values(
        // 3/30 after admission against 3/30 left to "b": equal final shares are allowed.
        StrategyCase{"FinalShareAllowsEqualShares", 1, 3, with_strategies({kFinalShare}), {"b14:InCohortFairSharing"}},
        // 3/30 against 2/30: "b" would end below the preemptor.
        StrategyCase{"FinalShareSparesAVictimLeftBelow", 2, 3, with_strategies({kFinalShare}), {}},
        // 3/30 against "b"'s 4/30 before the preemption.
        StrategyCase{
            "InitialShareTakesFromALargerShare", 2, 3, with_strategies({kInitialShare}), {"b7:InCohortFairSharing"}},
        // The default: what the first strategy spared, the second may take.
        StrategyCase{"InitialShareSecondTakesWhatFinalShareSpared", 2, 3, FairCohort{}, {"b7:InCohortFairSharing"}},
        // Asking for 4 the preemptor would hold 4/30, as much as "b" holds now.
        StrategyCase{"EqualInitialSharesAreSpared", 2, 4, FairCohort{}, {}},
        StrategyCase{"InitialShareAloneSparesEqualShares", 2, 4, with_strategies({kInitialShare}), {}},
        // Weights divide shares: "a" at weight 2 would hold 50 per mille, under "b"'s 66.
        StrategyCase{
            "APreemptorQueueOfMoreWeightTakes", 2, 3, with_weights(2, 1, {kFinalShare}), {"b7:InCohortFairSharing"}},
        // "b" at weight 0.5 would be left 133 per mille, above the preemptor's 100.
        StrategyCase{
            "ATargetQueueOfLessWeightGives", 2, 3, with_weights(1, 0.5, {kFinalShare}), {"b7:InCohortFairSharing"}},
        // "b" at weight 2 holds 66 per mille before the preemption, under the preemptor's 100.
        StrategyCase{"ATargetQueueOfMoreWeightIsSpared", 2, 3, with_weights(1, 2), {}},
        // A zero-weight queue that would borrow ranks above everything: it preempts nobody.
        StrategyCase{"AZeroWeightQueueDoesNotPreemptWhileBorrowing", 1, 3, with_weights(0, 1), {}},
        StrategyCase{"ReclaimNeverTakesNothing",
                     1,
                     3,
                     [] {
                       FairCohort f;
                       f.reclaim = PreemptionPolicy::Never;
                       return f;
                     }(),
                     {}}),
    testing::CaseName{});

// -- which queue gives first -------------------------------------------------------------------

struct TargetOrderCase {
  std::string name;
  double weight_b = 1.0;
  double weight_c = 1.0;
  Victims expected;
};

class FairSharingTargetOrder : public ::testing::TestWithParam<TargetOrderCase> {};

// "a" holds 2, "b" holds 14 (borrows 4), "c" holds 12 (borrows 2); 2 cpu are free. The
// preemptor asks for 4: within "a"'s nominal quota, so it reclaims without comparing
// shares, from the queue with the highest weighted share first.
TEST_P(FairSharingTargetOrder, ReclaimsFromTheHighestWeightedShareFirst) {
  const TargetOrderCase& c = GetParam();
  FairCohort cohort;
  cohort.weight_b = c.weight_b;
  cohort.weight_c = c.weight_c;
  SchedulingSetup s;
  cohort.build(s);
  s.hold("a-run", "a", {Held{"default", "cpu", 2}}, 0);
  hold_many(s, "b", "b", 7, 2, 1000);
  hold_many(s, "c", "c", 6, 2, 1000);
  const WorkloadRecord& preemptor = s.pending("preemptor", "a", {PerPod{"cpu", 4}}, 100);
  EXPECT_EQ(preemption_victims(s, preemptor, {{"default", "cpu", 4}}), c.expected);
}

INSTANTIATE_TEST_SUITE_P(
    Preemptor, FairSharingTargetOrder,
    ::testing::Values(TargetOrderCase{"EqualWeightsTheLargerBorrower", 1, 1, {"b7:InCohortReclamation"}},
                      TargetOrderCase{"ALightQueueBorrowingLess", 1, 0.25, {"c6:InCohortReclamation"}},
                      TargetOrderCase{"AHeavyQueueBorrowingMoreGoesLater", 4, 1, {"c6:InCohortReclamation"}}),
    testing::CaseName{});

// -- the preemptor's own queue ---------------------------------------------------------------

struct OwnQueueCase {
  std::string name;
  std::int32_t own_priority = 0;
  Victims expected;
};

class FairSharingOwnQueue : public ::testing::TestWithParam<OwnQueueCase> {};

// Every queue holds its 10 cpu; nobody borrows. The preemptor (priority 100) in "a", which
// preempts lower priorities within itself, asks for 2.
TEST_P(FairSharingOwnQueue, PreemptsWithinItsQueueByPriority) {
  const OwnQueueCase& c = GetParam();
  FairCohort cohort;
  cohort.within = PreemptionPolicy::LowerPriority;
  SchedulingSetup s;
  cohort.build(s);
  s.hold("a-run", "a", {Held{"default", "cpu", 10}}, c.own_priority);
  s.hold("b-run", "b", {Held{"default", "cpu", 10}}, 0);
  s.hold("c-run", "c", {Held{"default", "cpu", 10}}, 0);
  const WorkloadRecord& preemptor = s.pending("preemptor", "a", {PerPod{"cpu", 2}}, 100);
  EXPECT_EQ(preemption_victims(s, preemptor, {{"default", "cpu", 2}}), c.expected);
}

INSTANTIATE_TEST_SUITE_P(Preemptor, FairSharingOwnQueue,
                         ::testing::Values(OwnQueueCase{"ALowerPriority", 0, {"a-run:InClusterQueue"}},
                                           OwnQueueCase{"NotAHigherPriority", 200, {}}),
                         testing::CaseName{});

TEST(Preemptor, FairSharingPreemptsWithinItsQueueWhileOthersBorrowOutOfReach) {
  // "a" holds 6 of priority 0, "b" borrows 4 with a workload of priority 200 (which
  // reclaimWithinCohort LowerPriority does not reach), "c" holds its 10: nothing is free.
  // The preemptor asks for 4, which "a" would hold within its nominal quota: its own queue
  // is a target although it does not borrow, and "b" is none.
  FairCohort cohort;
  cohort.within = PreemptionPolicy::LowerPriority;
  cohort.reclaim = PreemptionPolicy::LowerPriority;
  SchedulingSetup s;
  cohort.build(s);
  s.hold("a-low", "a", {Held{"default", "cpu", 6}}, 0);
  s.hold("b-high", "b", {Held{"default", "cpu", 14}}, 200);
  s.hold("c-run", "c", {Held{"default", "cpu", 10}}, 0);
  const WorkloadRecord& preemptor = s.pending("preemptor", "a", {PerPod{"cpu", 4}}, 100);
  EXPECT_EQ(preemption_victims(s, preemptor, {{"default", "cpu", 4}}), Victims{"a-low:InClusterQueue"});
}


// As in classical preemption (Preemptor/PromisedVictim): a victim evicted for another
// preemptor is that preemptor's, and is not claimed again; its own preemptor still
// takes it first.
TEST(Preemptor, FairSharingLeavesAVictimEvictedForAnotherPreemptorToIt) {
  for (const std::string evicted_for : {"someone-else", "preemptor"}) {
    FairCohort cohort;
    cohort.within = PreemptionPolicy::LowerPriority;
    SchedulingSetup s;
    cohort.build(s);
    const int evicted = s.hold("a-evicted", "a", {Held{"default", "cpu", 2}}, 0);
    s.workload(evicted).evicted = true;
    s.workload(evicted).extra().preempted =
        PreemptionRecord{"default/" + evicted_for, "uid-" + evicted_for, "InClusterQueue", "", {}};
    s.hold("a-run", "a", {Held{"default", "cpu", 8}}, 0);
    s.hold("b-run", "b", {Held{"default", "cpu", 10}}, 0);
    s.hold("c-run", "c", {Held{"default", "cpu", 10}}, 0);
    const WorkloadRecord& preemptor = s.pending("preemptor", "a", {PerPod{"cpu", 2}}, 100);
    const Victims expected =
        evicted_for == "preemptor" ? Victims{"a-evicted:InClusterQueue"} : Victims{"a-run:InClusterQueue"};
    EXPECT_EQ(preemption_victims(s, preemptor, {{"default", "cpu", 2}}), expected) << "evicted for " << evicted_for;
  }
}

}  // namespace
}  // namespace kueuepp::core
