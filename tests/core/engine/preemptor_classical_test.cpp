// Kueue's classical preemption on its own (kueue-semantics.md §2.6): which workloads the
// Preemptor evicts, and with which reason, for withinClusterQueue, reclaimWithinCohort and
// borrowWithinCohort, and how it keeps the victim set minimal.

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

/// A workload holding cpu of flavor "default".
struct Holder {
  std::string name;
  std::string cq;
  std::int64_t cpu = 0;
  std::int32_t priority = 0;
  std::int64_t reserved_at = 1000;  ///< seconds; also its creation time
  bool evicted = false;
};

void hold_all(SchedulingSetup& s, const std::vector<Holder>& holders) {
  for (const auto& h : holders) {
    int id = s.hold(h.name, h.cq, {Held{"default", "cpu", h.cpu}}, h.priority, h.reserved_at);
    s.workload(id).evicted = h.evicted;
  }
}

// -- within one ClusterQueue ---------------------------------------------------------------

struct WithinQueueCase {
  std::string name;
  PreemptionPolicy within = PreemptionPolicy::LowerPriority;
  std::vector<Holder> holders;
  std::int64_t request = 0;
  Victims expected;
};

class WithinClusterQueue : public ::testing::TestWithParam<WithinQueueCase> {};

// "cq" has 4 cpu and no cohort. The preemptor has priority 100 and was created at 2000 s.
TEST_P(WithinClusterQueue, EvictsWhatThePolicyAllowsAndNoMore) {
  const WithinQueueCase& c = GetParam();
  SchedulingSetup s;
  s.add_flavors({"default"});
  ClusterQueue cq = cluster_queue("cq", "", {resource_group({"cpu"}, {flavor_quotas("default", {{"cpu", 4}})})});
  cq.preemption.within_cluster_queue = c.within;
  s.add_cluster_queue(cq);
  s.build();
  hold_all(s, c.holders);
  const WorkloadRecord& preemptor = s.pending("preemptor", "cq", {PerPod{"cpu", c.request}}, 100, 2000);
  EXPECT_EQ(preemption_victims(s, preemptor, {{"default", "cpu", c.request}}), c.expected);
}

constexpr auto kLower = PreemptionPolicy::LowerPriority;
constexpr auto kLowerOrNewer = PreemptionPolicy::LowerOrNewerEqualPriority;

INSTANTIATE_TEST_SUITE_P(
    Preemptor, WithinClusterQueue,
    ::testing::Values(
        WithinQueueCase{"LowerPriorityTakesTheLowerOne",
                        kLower,
                        {{"low", "cq", 2, 0}, {"high", "cq", 2, 200}},
                        2,
                        {"low:InClusterQueue"}},
        WithinQueueCase{"LowerPrioritySparesAnEqual", kLower, {{"equal", "cq", 4, 100}}, 2, {}},
        WithinQueueCase{"LowerOrNewerEqualTakesANewerEqual",
                        kLowerOrNewer,
                        {{"newer", "cq", 4, 100, 3000}},
                        2,
                        {"newer:InClusterQueue"}},
        WithinQueueCase{"LowerOrNewerEqualSparesAnOlderEqual", kLowerOrNewer, {{"older", "cq", 4, 100, 1000}}, 2, {}},
        WithinQueueCase{"NeverTakesNothing", PreemptionPolicy::Never, {{"low", "cq", 4, 0}}, 2, {}},
        // Evicting "low" frees 2 of the 4 needed; "high" may not be taken: nothing is.
        WithinQueueCase{
            "NothingWhenAllowedVictimsCannotFreeEnough", kLower, {{"low", "cq", 2, 0}, {"high", "cq", 2, 200}}, 4, {}},
        WithinQueueCase{
            "LowestPriorityFirst", kLower, {{"ten", "cq", 2, 10}, {"zero", "cq", 2, 0}}, 2, {"zero:InClusterQueue"}},
        WithinQueueCase{"MostRecentlyReservedFirstAmongEquals",
                        kLower,
                        {{"older", "cq", 2, 0, 1000}, {"newer", "cq", 2, 0, 1500}},
                        2,
                        {"newer:InClusterQueue"}},
        WithinQueueCase{"AlreadyEvictedFirst",
                        kLower,
                        {{"low", "cq", 2, 0}, {"evicted", "cq", 2, 50, 1000, true}},
                        2,
                        {"evicted:InClusterQueue"}},
        // "small" goes first (lowest priority) but "big" alone frees enough: fill-back puts
        // "small" back.
        WithinQueueCase{"FillBackDropsVictimsNotNeeded",
                        kLower,
                        {{"small", "cq", 1, 0}, {"big", "cq", 3, 10}},
                        3,
                        {"big:InClusterQueue"}},
        // The set is minimal (no victim can be put back), not the smallest: two of lower
        // priority go rather than one of higher priority.
        WithinQueueCase{"LowerPrioritiesGoBeforeFewerVictims",
                        kLower,
                        {{"a", "cq", 1, 0}, {"b", "cq", 1, 1}, {"c", "cq", 2, 2}},
                        2,
                        {"a:InClusterQueue", "b:InClusterQueue"}}),
    testing::CaseName{});

// -- reclaimWithinCohort ---------------------------------------------------------------------

struct ReclaimCase {
  std::string name;
  PreemptionPolicy reclaim = PreemptionPolicy::Any;
  std::vector<Holder> holders;
  Victims expected;
  std::int64_t request = 4;
};

class ReclaimWithinCohort : public ::testing::TestWithParam<ReclaimCase> {};

// Cohort "co": "cq" and "other" have 4 cpu each. The preemptor in "cq" (priority 100, may
// preempt lower priorities within "cq") asks for cpu within its nominal quota (4 unless
// the case says otherwise).
TEST_P(ReclaimWithinCohort, TakesBackWhatOtherQueuesBorrow) {
  const ReclaimCase& c = GetParam();
  SchedulingSetup s;
  s.add_flavors({"default"});
  ClusterQueue cq = cluster_queue("cq", "co", {resource_group({"cpu"}, {flavor_quotas("default", {{"cpu", 4}})})});
  cq.preemption.within_cluster_queue = PreemptionPolicy::LowerPriority;
  cq.preemption.reclaim_within_cohort = c.reclaim;
  s.add_cluster_queue(cq);
  s.add_cluster_queue(
      cluster_queue("other", "co", {resource_group({"cpu"}, {flavor_quotas("default", {{"cpu", 4}})})}));
  s.build();
  hold_all(s, c.holders);
  const WorkloadRecord& preemptor = s.pending("preemptor", "cq", {PerPod{"cpu", c.request}}, 100);
  EXPECT_EQ(preemption_victims(s, preemptor, {{"default", "cpu", c.request}}), c.expected);
}

INSTANTIATE_TEST_SUITE_P(
    Preemptor, ReclaimWithinCohort,
    ::testing::Values(
        // "other" borrows 2; evicting its lower-priority workload brings it back within
        // its nominal quota and frees enough.
        ReclaimCase{"AnyTakesTheLowestPriorityBorrowerFirst",
                    PreemptionPolicy::Any,
                    {{"other-high", "other", 3, 200}, {"other-low", "other", 3, 0}},
                    {"other-low:InCohortReclamation"}},
        ReclaimCase{"AnyTakesAHigherPriority",
                    PreemptionPolicy::Any,
                    {{"other-high", "other", 6, 200}},
                    {"other-high:InCohortReclamation"}},
        ReclaimCase{"LowerPrioritySparesAHigherPriority", kLower, {{"other-high", "other", 6, 200}}, {}},
        ReclaimCase{"LowerPriorityTakesALowerPriority",
                    kLower,
                    {{"other-low", "other", 6, 0}},
                    {"other-low:InCohortReclamation"}},
        ReclaimCase{"NeverTakesNothing", PreemptionPolicy::Never, {{"other-low", "other", 6, 0}}, {}},
        // "other" uses no more than its nominal quota: nothing of it can be reclaimed, and
        // "own-high" in "cq" may not be preempted.
        ReclaimCase{"NothingFromAQueueWithinItsNominalQuota",
                    PreemptionPolicy::Any,
                    {{"own-high", "cq", 2, 200}, {"other-low", "other", 4, 0}},
                    {}},
        // Other ClusterQueues' workloads go before the preemptor's own, whatever their
        // priority.
        ReclaimCase{"OtherQueuesBeforeTheOwn",
                    PreemptionPolicy::Any,
                    {{"own-low", "cq", 2, 0}, {"other-higher", "other", 6, 50}},
                    {"other-higher:InCohortReclamation"},
                    2},
        // Asking for all of its nominal quota, the preemptor needs its own queue's
        // workload gone too (it may not borrow): fill-back keeps both.
        ReclaimCase{"ItsOwnQuotaBackFromBoth",
                    PreemptionPolicy::Any,
                    {{"own-low", "cq", 2, 0}, {"other-higher", "other", 6, 50}},
                    {"other-higher:InCohortReclamation", "own-low:InClusterQueue"},
                    4}),
    testing::CaseName{});

TEST(Preemptor, ReclaimSparesQueuesWithinTheirNominalQuotaWhileAnotherBorrows) {
  // Cohort "co": "cq", "other" and "third" have 4 cpu each. "other" holds its 4 (priority
  // 0), "third" borrows 2 with a workload of priority 200; 2 cpu are free. The preemptor in
  // "cq" (priority 100, reclaimWithinCohort LowerPriority) asks for 4: "other"'s workload
  // would do, but "other" does not borrow, and "third"'s is of higher priority.
  SchedulingSetup s;
  s.add_flavors({"default"});
  ClusterQueue cq = cluster_queue("cq", "co", {resource_group({"cpu"}, {flavor_quotas("default", {{"cpu", 4}})})});
  cq.preemption.reclaim_within_cohort = PreemptionPolicy::LowerPriority;
  s.add_cluster_queue(cq);
  s.add_cluster_queue(
      cluster_queue("other", "co", {resource_group({"cpu"}, {flavor_quotas("default", {{"cpu", 4}})})}));
  s.add_cluster_queue(
      cluster_queue("third", "co", {resource_group({"cpu"}, {flavor_quotas("default", {{"cpu", 4}})})}));
  s.build();
  s.hold("other-low", "other", {Held{"default", "cpu", 4}}, 0);
  s.hold("third-high", "third", {Held{"default", "cpu", 6}}, 200);
  const WorkloadRecord& preemptor = s.pending("preemptor", "cq", {PerPod{"cpu", 4}}, 100);
  EXPECT_EQ(preemption_victims(s, preemptor, {{"default", "cpu", 4}}), Victims{});
}

// -- borrowWithinCohort ----------------------------------------------------------------------

struct BorrowCase {
  std::string name;
  PreemptionPolicy reclaim = PreemptionPolicy::LowerPriority;
  std::optional<BorrowWithinCohort> borrow;
  std::int32_t lender_priority = 0;
  std::int64_t request = 3;
  Victims expected;
};

class BorrowWithinCohortPolicy : public ::testing::TestWithParam<BorrowCase> {};

// Cohort "co": "cq" and "lender" have 2 cpu each; "lender" holds 4 (it borrows 2). The
// preemptor in "cq" has priority 100; asking for 3 it would borrow 1 once admitted.
TEST_P(BorrowWithinCohortPolicy, DecidesWhetherAPreemptorMayBorrowAfterPreempting) {
  const BorrowCase& c = GetParam();
  SchedulingSetup s;
  s.add_flavors({"default"});
  ClusterQueue cq = cluster_queue("cq", "co", {resource_group({"cpu"}, {flavor_quotas("default", {{"cpu", 2}})})});
  cq.preemption.reclaim_within_cohort = c.reclaim;
  cq.preemption.borrow_within_cohort = c.borrow;
  s.add_cluster_queue(cq);
  s.add_cluster_queue(
      cluster_queue("lender", "co", {resource_group({"cpu"}, {flavor_quotas("default", {{"cpu", 2}})})}));
  s.build();
  s.hold("lender-wl", "lender", {Held{"default", "cpu", 4}}, c.lender_priority);
  const WorkloadRecord& preemptor = s.pending("preemptor", "cq", {PerPod{"cpu", c.request}}, 100);
  EXPECT_EQ(preemption_victims(s, preemptor, {{"default", "cpu", c.request}}), c.expected);
}

BorrowWithinCohort borrow_lower_priority(std::optional<std::int32_t> max_priority_threshold = std::nullopt) {
  return BorrowWithinCohort{true, max_priority_threshold};
}

INSTANTIATE_TEST_SUITE_P(
    Preemptor, BorrowWithinCohortPolicy,
    ::testing::Values(
        BorrowCase{"UnsetForbidsPreemptingWhileBorrowing", kLower, std::nullopt, 0, 3, {}},
        BorrowCase{"NeverForbidsPreemptingWhileBorrowing", kLower, BorrowWithinCohort{false, {}}, 0, 3, {}},
        BorrowCase{"LowerPriorityAllowsIt",
                   kLower,
                   borrow_lower_priority(),
                   0,
                   3,
                   {"lender-wl:InCohortReclaimWhileBorrowing"}},
        BorrowCase{
            "AtTheThreshold", kLower, borrow_lower_priority(0), 0, 3, {"lender-wl:InCohortReclaimWhileBorrowing"}},
        BorrowCase{"AboveTheThreshold", kLower, borrow_lower_priority(-1), 0, 3, {}},
        // Even with reclaimWithinCohort Any, borrowing allows only lower priorities.
        BorrowCase{"EqualPriorityIsNotTakenWhileBorrowing", PreemptionPolicy::Any, borrow_lower_priority(), 100, 3, {}},
        BorrowCase{
            "HigherPriorityIsNotTakenWhileBorrowing", PreemptionPolicy::Any, borrow_lower_priority(), 150, 3, {}},
        // Within its nominal quota the preemptor reclaims, whatever borrowWithinCohort says.
        BorrowCase{"WithinNominalReclaimsWithoutIt",
                   PreemptionPolicy::Any,
                   std::nullopt,
                   150,
                   2,
                   {"lender-wl:InCohortReclamation"}}),
    testing::CaseName{});

// -- the flavor assigner's oracle ------------------------------------------------------------

TEST(Preemptor, SimulateSaysWhetherVictimsAreInTheOwnQueueOrOthers) {
  // Cohort "co": "cq" and "other" have 4 cpu each; "cq" holds 2 of priority 0 and "other"
  // borrows 2.
  SchedulingSetup s;
  s.add_flavors({"default"});
  ClusterQueue cq = cluster_queue("cq", "co", {resource_group({"cpu"}, {flavor_quotas("default", {{"cpu", 4}})})});
  cq.preemption.within_cluster_queue = PreemptionPolicy::LowerPriority;
  cq.preemption.reclaim_within_cohort = PreemptionPolicy::Any;
  s.add_cluster_queue(cq);
  s.add_cluster_queue(
      cluster_queue("other", "co", {resource_group({"cpu"}, {flavor_quotas("default", {{"cpu", 4}})})}));
  s.build();
  s.hold("own-low", "cq", {Held{"default", "cpu", 2}}, 0);
  s.hold("other-borrowing", "other", {Held{"default", "cpu", 6}}, 0);
  const FlavorResource cpu = s.fr("default", "cpu");
  const WorkloadRecord& preemptor = s.pending("preemptor", "cq", {PerPod{"cpu", 2}}, 100);
  const WorkloadRecord& low_preemptor = s.pending("low-preemptor", "cq", {PerPod{"cpu", 2}}, -10);
  Preemptor oracle(s.context());
  // Reclaiming the 2 "other" borrows makes room: victims only in other queues.
  EXPECT_EQ(oracle.simulate(preemptor, s.cq("cq"), cpu, 2 * testing::kMilliPerUnit),
            std::make_pair(PreemptionPossibility::Reclaim, 0));
  // 4 of its own with "cq" holding 2: "other" gives back 2, "own-low" the rest.
  EXPECT_EQ(oracle.simulate(preemptor, s.cq("cq"), cpu, 4 * testing::kMilliPerUnit),
            std::make_pair(PreemptionPossibility::Preempt, 0));
  // 6 would borrow 2 after preempting, which borrowWithinCohort (unset) forbids.
  EXPECT_EQ(oracle.simulate(preemptor, s.cq("cq"), cpu, 6 * testing::kMilliPerUnit).first,
            PreemptionPossibility::NoCandidates);
  // Below every holder's priority only reclaimWithinCohort Any finds a victim.
  EXPECT_EQ(oracle.simulate(low_preemptor, s.cq("cq"), cpu, 2 * testing::kMilliPerUnit).first,
            PreemptionPossibility::Reclaim);
  EXPECT_EQ(oracle.simulate(low_preemptor, s.cq("cq"), cpu, 4 * testing::kMilliPerUnit).first,
            PreemptionPossibility::NoCandidates);
}


// A victim already evicted for one preemptor is that preemptor's until it has stopped: a
// second preemptor claiming it would count the same quota free twice (and the entries
// after it in the cycle would fit into it too), leaving the cohort over its quota with
// nothing the victim's Evicted condition explains, even once the first preemptor was
// admitted elsewhere or went away. Its own preemptor still claims it first.
struct PromisedVictimCase {
  std::string name;
  bool p1_exists = true;
  bool p1_admitted = false;
  std::string evicted_for = "p1";
  Victims expected;
};

class PromisedVictim : public ::testing::TestWithParam<PromisedVictimCase> {};

// "cq" has 4 cpu: "victim" (3 cpu) was evicted for `evicted_for`, "other" (1 cpu) runs.
// "p2" (priority 100) needs 1 cpu.
TEST_P(PromisedVictim, IsClaimedOnlyByThePreemptorItWasEvictedFor) {
  const PromisedVictimCase& c = GetParam();
  SchedulingSetup s;
  s.add_flavors({"default"});
  ClusterQueue cq = cluster_queue("cq", "", {resource_group({"cpu"}, {flavor_quotas("default", {{"cpu", 4}})})});
  cq.preemption.within_cluster_queue = PreemptionPolicy::LowerPriority;
  s.add_cluster_queue(cq);
  s.build();
  const int victim = s.hold("victim", "cq", {Held{"default", "cpu", 3}}, 0, 1000);
  s.hold("other", "cq", {Held{"default", "cpu", 1}}, 0, 1500);
  s.workload(victim).evicted = true;
  s.workload(victim).extra().preempted = PreemptionRecord{"default/" + c.evicted_for, "uid-" + c.evicted_for,
                                                          "InClusterQueue", "", {}};
  if (c.p1_exists) {
    WorkloadRecord& p1 = s.pending("p1", "cq", {PerPod{"cpu", 3}}, 100, 1800);
    p1.reserved = c.p1_admitted;
  }
  const WorkloadRecord& p2 = s.pending("p2", "cq", {PerPod{"cpu", 1}}, 100, 2000);
  EXPECT_EQ(preemption_victims(s, p2, {{"default", "cpu", 1}}), c.expected);
}

INSTANTIATE_TEST_SUITE_P(
    Preemptor, PromisedVictim,
    ::testing::Values(PromisedVictimCase{"EvictedForAnotherWaitingPreemptor", true, false, "p1", {"other:InClusterQueue"}},
                      PromisedVictimCase{"EvictedForThisPreemptor", true, false, "p2", {"victim:InClusterQueue"}},
                      PromisedVictimCase{"ItsPreemptorHoldsQuotaNow", true, true, "p1", {"other:InClusterQueue"}},
                      PromisedVictimCase{"ItsPreemptorIsGone", false, false, "p1", {"other:InClusterQueue"}}),
    testing::CaseName{});

}  // namespace
}  // namespace kueuepp::core
