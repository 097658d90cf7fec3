// The flavor assigner on its own (Kueue's flavorassigner, kueue-semantics.md §2.5): which
// flavor each resource group of a pod set gets, in which mode, at which borrowing level,
// and why a workload does not fit. The preemption oracle is the real Preemptor, so a
// flavor needing preemption is ranked by what the search would find.

#include "core/engine/flavor_assigner.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include "tests/core/engine/scheduling_setup.hpp"

namespace kueuepp::core {
namespace {

using testing::cluster_queue;
using testing::flavor_quotas;
using testing::Held;
using testing::PendingPodSet;
using testing::PerPod;
using testing::resource_group;
using testing::SchedulingSetup;

/// gtest prints a table case by its name.
template <class Case>
requires requires(const Case& c) { std::string(c.name); }
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

/// What a test states about an assignment.
struct Outcome {
  AssignMode mode = AssignMode::NoFit;
  std::string flavors;  ///< "resource=flavor" per pod set, pod sets separated by " | "
  int borrowing = 0;
  std::string no_fit_reason;
  bool operator==(const Outcome&) const = default;
};

void PrintTo(const Outcome& o, std::ostream* os) {
  *os << "{" << to_string(o.mode) << ", \"" << o.flavors << "\", borrowing " << o.borrowing << ", \"" << o.no_fit_reason
      << "\"}";
}

/// Runs the assigner for `wl` in its ClusterQueue; the oracle's simulations must leave the
/// snapshot as they found it.
Assignment assign(SchedulingSetup& s, const WorkloadRecord& wl, const std::vector<std::int32_t>& counts = {}) {
  const auto before = s.usage_snapshot();
  Preemptor oracle(s.context());
  FlavorAssigner assigner(s.context(), wl, wl.cq, oracle);
  Assignment a = assigner.assign(counts);
  EXPECT_EQ(s.usage_snapshot(), before) << "a preemption simulation left usage behind";
  EXPECT_TRUE(s.context().removed.empty());
  return a;
}

Outcome outcome_of(const SchedulingSetup& s, const Assignment& a) {
  Outcome o;
  o.mode = a.representative_mode();
  for (const auto& ps : a.pod_sets) {
    if (!o.flavors.empty()) o.flavors += " | ";
    std::vector<std::string> chosen;
    for (const auto& [r, c] : ps.flavors) chosen.push_back(s.resource_name(r) + "=" + s.flavor_name(c.flavor));
    std::sort(chosen.begin(), chosen.end());
    for (std::size_t i = 0; i < chosen.size(); ++i) o.flavors += (i > 0 ? " " : "") + chosen[i];
  }
  o.borrowing = a.borrowing;
  o.no_fit_reason = std::string(a.no_fit_reason);
  return o;
}

std::vector<std::string> rendered_reasons(const SchedulingSetup& s, const Assignment& a) {
  std::vector<std::string> out;
  for (const auto& ps : a.pod_sets) {
    for (const auto& r : ps.reasons) out.push_back(s.render_reason(r));
  }
  return out;
}

/// A workload holding quota in a test's topology.
struct Holder {
  std::string name;
  std::string cq;
  std::string flavor;
  std::int64_t cpu = 0;
  std::int32_t priority = 0;
};

void hold_all(SchedulingSetup& s, const std::vector<Holder>& holders) {
  for (const auto& h : holders) s.hold(h.name, h.cq, {Held{h.flavor, "cpu", h.cpu}}, h.priority);
}

// -- one ClusterQueue, flavors tried in order ------------------------------------------

struct FlavorOrderCase {
  std::string name;
  std::vector<Holder> holders;
  std::int64_t request = 0;
  FungibilityPolicy when_can_preempt = FungibilityPolicy::TryNextFlavor;
  Outcome expected;
};

class FlavorOrder : public ::testing::TestWithParam<FlavorOrderCase> {};

// ClusterQueue "cq" without a cohort: flavors small (2 cpu) then large (4 cpu); it
// preempts lower priorities within itself. The pending workload has priority 100.
TEST_P(FlavorOrder, TakesTheFirstFlavorThatFitsAndRanksTheOthers) {
  const FlavorOrderCase& c = GetParam();
  SchedulingSetup s;
  s.add_flavors({"small", "large"});
  ClusterQueue cq = cluster_queue(
      "cq", "",
      {resource_group({"cpu"}, {flavor_quotas("small", {{"cpu", 2}}), flavor_quotas("large", {{"cpu", 4}})})});
  cq.preemption.within_cluster_queue = PreemptionPolicy::LowerPriority;
  cq.flavor_fungibility.when_can_preempt = c.when_can_preempt;
  s.add_cluster_queue(cq);
  s.build();
  hold_all(s, c.holders);
  const WorkloadRecord& wl = s.pending("wl", "cq", {PerPod{"cpu", c.request}}, 100);
  EXPECT_EQ(outcome_of(s, assign(s, wl)), c.expected);
}

constexpr auto kTryNext = FungibilityPolicy::TryNextFlavor;
constexpr auto kMayStop = FungibilityPolicy::MayStopSearch;

INSTANTIATE_TEST_SUITE_P(
    FlavorAssigner, FlavorOrder,
    ::testing::Values(FlavorOrderCase{"FirstFlavorFits", {}, 2, kTryNext, {AssignMode::Fit, "cpu=small", 0, ""}},
                      FlavorOrderCase{"FirstFlavorTooSmall", {}, 3, kTryNext, {AssignMode::Fit, "cpu=large", 0, ""}},
                      FlavorOrderCase{"FirstFlavorHeldByHigherPriority",
                                      {{"high", "cq", "small", 2, 200}},
                                      1,
                                      kTryNext,
                                      {AssignMode::Fit, "cpu=large", 0, ""}},
                      // whenCanPreempt TryNextFlavor: a flavor that needs preemption does not end the scan.
                      FlavorOrderCase{"PreemptionTriesTheNextFlavor",
                                      {{"low", "cq", "small", 2, 0}},
                                      2,
                                      kTryNext,
                                      {AssignMode::Fit, "cpu=large", 0, ""}},
                      FlavorOrderCase{"PreemptionMayStopTheSearch",
                                      {{"low", "cq", "small", 2, 0}},
                                      2,
                                      kMayStop,
                                      {AssignMode::Preempt, "cpu=small", 0, ""}},
                      // A flavor with preemption candidates beats one whose search found none.
                      FlavorOrderCase{"PreemptionBeatsNoCandidatesInALaterFlavor",
                                      {{"high", "cq", "small", 2, 200}, {"low", "cq", "large", 4, 0}},
                                      2,
                                      kTryNext,
                                      {AssignMode::Preempt, "cpu=large", 0, ""}},
                      FlavorOrderCase{"PreemptionBeatsNoCandidatesInAnEarlierFlavor",
                                      {{"low", "cq", "small", 2, 0}, {"high", "cq", "large", 4, 200}},
                                      2,
                                      kTryNext,
                                      {AssignMode::Preempt, "cpu=small", 0, ""}},
                      // Nothing to preempt anywhere: the first flavor is kept, in Preempt mode (the
                      // scheduler then finds no targets and the workload waits for quota).
                      FlavorOrderCase{"NoCandidatesAnywhereKeepsTheFirstFlavor",
                                      {{"high-small", "cq", "small", 2, 200}, {"high-large", "cq", "large", 4, 200}},
                                      1,
                                      kTryNext,
                                      {AssignMode::Preempt, "cpu=small", 0, ""}},
                      FlavorOrderCase{
                          "TooBigForEveryFlavor", {}, 5, kTryNext, {AssignMode::NoFit, "", 0, "ExceedsMaxQuota"}}),
    testing::CaseName{});

// -- a cohort: borrowing, fungibility and preference ------------------------------------

struct FungibilityCase {
  std::string name;
  std::vector<Holder> holders;
  std::int64_t request = 0;
  FlavorFungibility fungibility;
  Outcome expected;
};

class Fungibility : public ::testing::TestWithParam<FungibilityCase> {};

// Cohort "co": "cq" has first (2 cpu) and second (4 cpu), "lender" has first (2 cpu) and
// second (2 cpu). "cq" preempts lower priorities within itself and reclaims anything its
// cohort borrows; the pending workload in "cq" has priority 100.
TEST_P(Fungibility, FollowsWhenCanBorrowWhenCanPreemptAndPreference) {
  const FungibilityCase& c = GetParam();
  SchedulingSetup s;
  s.add_flavors({"first", "second"});
  ClusterQueue cq = cluster_queue(
      "cq", "co",
      {resource_group({"cpu"}, {flavor_quotas("first", {{"cpu", 2}}), flavor_quotas("second", {{"cpu", 4}})})});
  cq.preemption.within_cluster_queue = PreemptionPolicy::LowerPriority;
  cq.preemption.reclaim_within_cohort = PreemptionPolicy::Any;
  cq.flavor_fungibility = c.fungibility;
  s.add_cluster_queue(cq);
  s.add_cluster_queue(cluster_queue(
      "lender", "co",
      {resource_group({"cpu"}, {flavor_quotas("first", {{"cpu", 2}}), flavor_quotas("second", {{"cpu", 2}})})}));
  s.build();
  hold_all(s, c.holders);
  const WorkloadRecord& wl = s.pending("wl", "cq", {PerPod{"cpu", c.request}}, 100);
  EXPECT_EQ(outcome_of(s, assign(s, wl)), c.expected);
}

FlavorFungibility fungibility(FungibilityPolicy when_can_borrow, FungibilityPolicy when_can_preempt,
                              std::optional<FungibilityPreference> preference = std::nullopt) {
  return FlavorFungibility{when_can_borrow, when_can_preempt, preference};
}

// In "first" the pending workload would have to preempt "own-low"; in "second" it would
// reclaim from "lender", which borrows 4 of "cq"'s second.
const std::vector<Holder> kPreemptFirstReclaimSecond = {{"own-low", "cq", "first", 2, 0},
                                                        {"lender-high", "lender", "first", 2, 200},
                                                        {"lender-borrowing", "lender", "second", 6, 0}};
// "first" fits by borrowing 1 from the lender; "second" needs "own-low-second" preempted.
const std::vector<Holder> kBorrowFirstPreemptSecond = {{"own-low-second", "cq", "second", 4, 0}};

INSTANTIATE_TEST_SUITE_P(
    FlavorAssigner, Fungibility,
    ::testing::Values(
        FungibilityCase{
            "BorrowingMayStopTheSearch", {}, 3, fungibility(kMayStop, kTryNext), {AssignMode::Fit, "cpu=first", 1, ""}},
        FungibilityCase{"BorrowingTriesTheNextFlavor",
                        {},
                        3,
                        fungibility(kTryNext, kTryNext),
                        {AssignMode::Fit, "cpu=second", 0, ""}},
        FungibilityCase{"PreemptionTriesTheNextFlavor",
                        {{"own-low", "cq", "first", 2, 0}, {"lender-high", "lender", "first", 2, 200}},
                        2,
                        fungibility(kMayStop, kTryNext),
                        {AssignMode::Fit, "cpu=second", 0, ""}},
        FungibilityCase{"PreemptionMayStopTheSearch",
                        {{"own-low", "cq", "first", 2, 0}, {"lender-high", "lender", "first", 2, 200}},
                        2,
                        fungibility(kMayStop, kMayStop),
                        {AssignMode::Preempt, "cpu=first", 0, ""}},
        // Reclaiming from other queues ranks above preempting in one's own.
        FungibilityCase{"ReclaimBeatsPreemptionInTheOwnQueue",
                        kPreemptFirstReclaimSecond,
                        2,
                        fungibility(kMayStop, kTryNext),
                        {AssignMode::Preempt, "cpu=second", 0, ""}},
        FungibilityCase{"PreemptionStopsBeforeAReclaimFurtherOn",
                        kPreemptFirstReclaimSecond,
                        2,
                        fungibility(kMayStop, kMayStop),
                        {AssignMode::Preempt, "cpu=first", 0, ""}},
        FungibilityCase{"BorrowingOverPreemptionByDefault",
                        kBorrowFirstPreemptSecond,
                        3,
                        fungibility(kTryNext, kTryNext),
                        {AssignMode::Fit, "cpu=first", 1, ""}},
        FungibilityCase{"BorrowingOverPreemption",
                        kBorrowFirstPreemptSecond,
                        3,
                        fungibility(kTryNext, kTryNext, FungibilityPreference::BorrowingOverPreemption),
                        {AssignMode::Fit, "cpu=first", 1, ""}},
        FungibilityCase{"PreemptionOverBorrowing",
                        kBorrowFirstPreemptSecond,
                        3,
                        fungibility(kTryNext, kTryNext, FungibilityPreference::PreemptionOverBorrowing),
                        {AssignMode::Preempt, "cpu=second", 0, ""}}),
    testing::CaseName{});

// -- a cohort: nominal quota, borrowing and lending limits ------------------------------

struct CohortQuotaCase {
  std::string name;
  std::optional<std::int64_t> borrowing_limit;  ///< of "cq"
  std::optional<std::int64_t> lending_limit;    ///< of "other"
  std::int64_t other_holds = 0;                 ///< priority 0, in "other"
  PreemptionPolicy reclaim = PreemptionPolicy::Never;
  std::int64_t request = 0;
  Outcome expected;
};

class CohortQuota : public ::testing::TestWithParam<CohortQuotaCase> {};

// Cohort "co": "cq" and "other" have 4 cpu each of flavor "default".
TEST_P(CohortQuota, BorrowsWhatTheCohortCanLend) {
  const CohortQuotaCase& c = GetParam();
  SchedulingSetup s;
  s.add_flavors({"default"});
  ClusterQueue cq = cluster_queue(
      "cq", "co", {resource_group({"cpu"}, {flavor_quotas("default", {{"cpu", 4, c.borrowing_limit, std::nullopt}})})});
  cq.preemption.reclaim_within_cohort = c.reclaim;
  s.add_cluster_queue(cq);
  s.add_cluster_queue(cluster_queue(
      "other", "co",
      {resource_group({"cpu"}, {flavor_quotas("default", {{"cpu", 4, std::nullopt, c.lending_limit}})})}));
  s.build();
  if (c.other_holds > 0) s.hold("other-wl", "other", {Held{"default", "cpu", c.other_holds}}, 0);
  const WorkloadRecord& wl = s.pending("wl", "cq", {PerPod{"cpu", c.request}}, 100);
  EXPECT_EQ(outcome_of(s, assign(s, wl)), c.expected);
}

constexpr std::optional<std::int64_t> kNoLimit = std::nullopt;

INSTANTIATE_TEST_SUITE_P(
    FlavorAssigner, CohortQuota,
    ::testing::Values(
        CohortQuotaCase{"WithinNominal",
                        kNoLimit,
                        kNoLimit,
                        0,
                        PreemptionPolicy::Never,
                        4,
                        {AssignMode::Fit, "cpu=default", 0, ""}},
        // Borrowing level 1: the quota comes from the cohort one level up.
        CohortQuotaCase{"BorrowsFromTheCohort",
                        kNoLimit,
                        kNoLimit,
                        0,
                        PreemptionPolicy::Never,
                        6,
                        {AssignMode::Fit, "cpu=default", 1, ""}},
        CohortQuotaCase{"MoreThanTheCohortHas",
                        kNoLimit,
                        kNoLimit,
                        0,
                        PreemptionPolicy::Never,
                        9,
                        {AssignMode::NoFit, "", 0, "ExceedsMaxQuota"}},
        CohortQuotaCase{"UpToTheBorrowingLimit",
                        1,
                        kNoLimit,
                        0,
                        PreemptionPolicy::Never,
                        5,
                        {AssignMode::Fit, "cpu=default", 1, ""}},
        CohortQuotaCase{"BeyondTheBorrowingLimit",
                        1,
                        kNoLimit,
                        0,
                        PreemptionPolicy::Never,
                        6,
                        {AssignMode::NoFit, "", 0, "ExceedsMaxQuota"}},
        CohortQuotaCase{
            "UpToTheLendingLimit", kNoLimit, 1, 0, PreemptionPolicy::Never, 5, {AssignMode::Fit, "cpu=default", 1, ""}},
        CohortQuotaCase{"BeyondTheLendingLimit",
                        kNoLimit,
                        1,
                        0,
                        PreemptionPolicy::Never,
                        6,
                        {AssignMode::NoFit, "", 0, "ExceedsMaxQuota"}},
        // Only borrowing could help, and the cohort's quota is in use within nominal.
        CohortQuotaCase{"CohortQuotaInUse",
                        kNoLimit,
                        kNoLimit,
                        4,
                        PreemptionPolicy::Any,
                        5,
                        {AssignMode::NoFit, "", 0, "WaitingForQuota"}},
        // Within its nominal quota "cq" may reclaim what "other" borrows.
        CohortQuotaCase{"ReclaimsWhatOthersBorrow",
                        kNoLimit,
                        kNoLimit,
                        6,
                        PreemptionPolicy::Any,
                        4,
                        {AssignMode::Preempt, "cpu=default", 0, ""}},
        // Without reclaimWithinCohort the search finds no candidate; the mode stays
        // Preempt (Kueue's noPreemptionCandidates) and the scheduler makes it wait.
        CohortQuotaCase{"ReclaimNeverFindsNoCandidates",
                        kNoLimit,
                        kNoLimit,
                        6,
                        PreemptionPolicy::Never,
                        4,
                        {AssignMode::Preempt, "cpu=default", 0, ""}}),
    testing::CaseName{});

// -- reasons ------------------------------------------------------------------------------

TEST(FlavorAssigner, ExceedsMaxQuotaNamesEachFlavorsMaximumCapacity) {
  SchedulingSetup s;
  s.add_flavors({"small", "large"});
  s.add_cluster_queue(cluster_queue(
      "cq", "",
      {resource_group({"cpu"}, {flavor_quotas("small", {{"cpu", 2}}), flavor_quotas("large", {{"cpu", 4}})})}));
  s.build();
  const WorkloadRecord& wl = s.pending("wl", "cq", {PerPod{"cpu", 5}}, 0);
  Assignment a = assign(s, wl);
  EXPECT_EQ(a.no_fit_reason, "ExceedsMaxQuota");
  EXPECT_EQ(rendered_reasons(s, a),
            (std::vector<std::string>{
                "insufficient quota for cpu in flavor small, previously considered podsets requests (0) + "
                "current podset request (5) > maximum capacity (2)",
                "insufficient quota for cpu in flavor large, previously considered podsets requests (0) + "
                "current podset request (5) > maximum capacity (4)"}));
}

TEST(FlavorAssigner, AlternativeFlavorsGiveTheLeastSevereReason) {
  // "small" can never hold 5 cpu (ExceedsMaxQuota); "large" could once "other" releases
  // its nominal quota (WaitingForQuota). The flavors are alternatives: the workload waits.
  SchedulingSetup s;
  s.add_flavors({"small", "large"});
  s.add_cluster_queue(cluster_queue(
      "cq", "co",
      {resource_group({"cpu"}, {flavor_quotas("small", {{"cpu", 2}}), flavor_quotas("large", {{"cpu", 4}})})}));
  s.add_cluster_queue(cluster_queue("other", "co", {resource_group({"cpu"}, {flavor_quotas("large", {{"cpu", 4}})})}));
  s.build();
  s.hold("other-wl", "other", {Held{"large", "cpu", 4}}, 0);
  const WorkloadRecord& wl = s.pending("wl", "cq", {PerPod{"cpu", 5}}, 0);
  Assignment a = assign(s, wl);
  EXPECT_EQ(outcome_of(s, a), (Outcome{AssignMode::NoFit, "", 0, "WaitingForQuota"}));
  EXPECT_EQ(rendered_reasons(s, a),
            (std::vector<std::string>{
                "insufficient quota for cpu in flavor small, previously considered podsets requests (0) + "
                "current podset request (5) > maximum capacity (2)",
                "insufficient unused quota for cpu in flavor large, 1 more needed"}));
}

// -- resource groups and resources not covered ------------------------------------------

struct ResourceGroupsCase {
  std::string name;
  std::vector<PerPod> per_pod;
  Outcome expected;
};

class ResourceGroups : public ::testing::TestWithParam<ResourceGroupsCase> {};

// "cq" has two resource groups: cpu and memory share flavors x (4, 4) and y (8, 8); gpu
// has g1 (1) and g2 (4).
TEST_P(ResourceGroups, GiveTheResourcesOfAGroupOneFlavor) {
  const ResourceGroupsCase& c = GetParam();
  SchedulingSetup s;
  s.add_flavors({"x", "y", "g1", "g2"});
  s.add_cluster_queue(
      cluster_queue("cq", "",
                    {resource_group({"cpu", "memory"}, {flavor_quotas("x", {{"cpu", 4}, {"memory", 4}}),
                                                        flavor_quotas("y", {{"cpu", 8}, {"memory", 8}})}),
                     resource_group({"gpu"}, {flavor_quotas("g1", {{"gpu", 1}}), flavor_quotas("g2", {{"gpu", 4}})})}));
  s.build();
  const WorkloadRecord& wl = s.pending("wl", "cq", c.per_pod, 0);
  EXPECT_EQ(outcome_of(s, assign(s, wl)), c.expected);
}

INSTANTIATE_TEST_SUITE_P(FlavorAssigner, ResourceGroups,
                         ::testing::Values(ResourceGroupsCase{"EachGroupItsFirstFlavor",
                                                              {{"cpu", 2}, {"memory", 2}, {"gpu", 1}},
                                                              {AssignMode::Fit, "cpu=x gpu=g1 memory=x", 0, ""}},
                                           // cpu would fit in x, memory does not: the whole group moves to y.
                                           ResourceGroupsCase{"OneResourceMovesItsGroup",
                                                              {{"cpu", 2}, {"memory", 6}, {"gpu", 1}},
                                                              {AssignMode::Fit, "cpu=y gpu=g1 memory=y", 0, ""}},
                                           ResourceGroupsCase{"GroupsChooseIndependently",
                                                              {{"cpu", 2}, {"memory", 2}, {"gpu", 3}},
                                                              {AssignMode::Fit, "cpu=x gpu=g2 memory=x", 0, ""}},
                                           ResourceGroupsCase{"OneGroupThatCannotFitFailsThePodSet",
                                                              {{"cpu", 2}, {"memory", 2}, {"gpu", 5}},
                                                              {AssignMode::NoFit, "", 0, "ExceedsMaxQuota"}}),
                         testing::CaseName{});

struct UncoveredCase {
  std::string name;
  bool ignore_undeclared = false;
  std::int64_t memory = 0;
  Outcome expected;
  std::vector<std::string> reasons;
};

class UncoveredResources : public ::testing::TestWithParam<UncoveredCase> {};

// "cq" covers cpu only; the workload asks for 1 cpu and some memory.
TEST_P(UncoveredResources, FailThePodSetUnlessIgnoredOrZero) {
  const UncoveredCase& c = GetParam();
  EngineConfig config;
  config.ignore_undeclared_resources = c.ignore_undeclared;
  SchedulingSetup s(config);
  s.add_flavors({"default"});
  s.add_cluster_queue(cluster_queue("cq", "", {resource_group({"cpu"}, {flavor_quotas("default", {{"cpu", 4}})})}));
  s.build();
  const WorkloadRecord& wl = s.pending("wl", "cq", {PerPod{"cpu", 1}, PerPod{"memory", c.memory}}, 0);
  Assignment a = assign(s, wl);
  EXPECT_EQ(a.representative_mode(), c.expected.mode);
  EXPECT_EQ(outcome_of(s, a).flavors, c.expected.flavors);
  EXPECT_EQ(rendered_reasons(s, a), c.reasons);
}

INSTANTIATE_TEST_SUITE_P(
    FlavorAssigner, UncoveredResources,
    ::testing::Values(UncoveredCase{"RequestedFails",
                                    false,
                                    1,
                                    {AssignMode::NoFit, "", 0, ""},
                                    {"resource memory unavailable in ClusterQueue"}},
                      UncoveredCase{"ZeroIsSkipped", false, 0, {AssignMode::Fit, "cpu=default", 0, ""}, {}},
                      UncoveredCase{"IgnoreUndeclaredSkipsIt", true, 1, {AssignMode::Fit, "cpu=default", 0, ""}, {}}),
    testing::CaseName{});

// -- pod sets and counts ------------------------------------------------------------------

TEST(FlavorAssigner, LaterPodSetsCountWhatEarlierOnesWereAssigned) {
  // small has 3 cpu: the first pod set takes 2 of it, so the second (2 more) goes to large.
  SchedulingSetup s;
  s.add_flavors({"small", "large"});
  s.add_cluster_queue(cluster_queue(
      "cq", "",
      {resource_group({"cpu"}, {flavor_quotas("small", {{"cpu", 3}}), flavor_quotas("large", {{"cpu", 8}})})}));
  s.build();
  const WorkloadRecord& wl =
      s.pending("wl", "cq", std::vector<PendingPodSet>{{1, {{"cpu", 2}}, {}, {}}, {1, {{"cpu", 2}}, {}, {}}}, 0);
  Assignment a = assign(s, wl);
  EXPECT_EQ(outcome_of(s, a), (Outcome{AssignMode::Fit, "cpu=small | cpu=large", 0, ""}));
  EXPECT_EQ(a.usage, s.amounts({{"small", "cpu", 2}, {"large", "cpu", 2}}));
}

TEST(FlavorAssigner, ReducedCountsScaleTheRequests) {
  // Six one-cpu pods do not fit in 4 cpu; the partial admission search asks for fewer.
  SchedulingSetup s;
  s.add_flavors({"default"});
  s.add_cluster_queue(cluster_queue("cq", "", {resource_group({"cpu"}, {flavor_quotas("default", {{"cpu", 4}})})}));
  s.build();
  const WorkloadRecord& wl = s.pending("wl", "cq", std::vector<PendingPodSet>{{6, {{"cpu", 1}}, 2, {}}}, 0);
  Assignment full = assign(s, wl);
  EXPECT_EQ(outcome_of(s, full), (Outcome{AssignMode::NoFit, "", 0, "ExceedsMaxQuota"}));
  Assignment reduced = assign(s, wl, {4});
  EXPECT_EQ(outcome_of(s, reduced), (Outcome{AssignMode::Fit, "cpu=default", 0, ""}));
  ASSERT_EQ(reduced.pod_sets.size(), 1u);
  EXPECT_EQ(reduced.pod_sets[0].count, 4);
  EXPECT_EQ(reduced.usage, s.amounts({{"default", "cpu", 4}}));
}

TEST(FlavorAssigner, ACoveredPodsResourceCountsOnePerPod) {
  // The queue admits at most 3 pods, whatever their cpu.
  SchedulingSetup s;
  s.add_flavors({"default"});
  s.add_cluster_queue(cluster_queue(
      "cq", "", {resource_group({"cpu", "pods"}, {flavor_quotas("default", {{"cpu", 100}, {"pods", 3}})})}));
  s.build();
  const WorkloadRecord& wl = s.pending("wl", "cq", std::vector<PendingPodSet>{{4, {{"cpu", 1}}, 1, {}}}, 0);
  EXPECT_EQ(outcome_of(s, assign(s, wl)), (Outcome{AssignMode::NoFit, "", 0, "ExceedsMaxQuota"}));
  Assignment reduced = assign(s, wl, {3});
  EXPECT_EQ(outcome_of(s, reduced), (Outcome{AssignMode::Fit, "cpu=default pods=default", 0, ""}));
  EXPECT_EQ(reduced.usage, s.amounts({{"default", "cpu", 3}, {"default", "pods", 3}}));
}

// -- flavors the pods cannot use -----------------------------------------------------------

struct PlacementCase {
  std::string name;
  PodPlacement placement;
  std::string flavor;  ///< "" when none suits
};

class Placement : public ::testing::TestWithParam<PlacementCase> {};

// Flavors in order: "tainted" (taint gpu=true:NoSchedule), "zone-a" (label zone=a), "plain".
TEST_P(Placement, SkipsFlavorsWithUntoleratedTaintsOrOtherLabels) {
  const PlacementCase& c = GetParam();
  SchedulingSetup s;
  s.add_flavor(ResourceFlavor{"tainted", {}, {Taint{"gpu", "true", TaintEffect::NoSchedule}}, {}, {}});
  s.add_flavor(ResourceFlavor{"zone-a", {{"zone", "a"}}, {}, {}, {}});
  s.add_flavor(ResourceFlavor{"plain", {}, {}, {}, {}});
  s.add_cluster_queue(cluster_queue(
      "cq", "",
      {resource_group({"cpu"}, {flavor_quotas("tainted", {{"cpu", 4}}), flavor_quotas("zone-a", {{"cpu", 4}}),
                                flavor_quotas("plain", {{"cpu", 4}})})}));
  s.build();
  const WorkloadRecord& wl = s.pending("wl", "cq", std::vector<PendingPodSet>{{1, {{"cpu", 1}}, {}, c.placement}}, 0);
  Assignment a = assign(s, wl);
  EXPECT_EQ(outcome_of(s, a).flavors, c.flavor.empty() ? "" : "cpu=" + c.flavor);
}

PodPlacement placement(Labels selector, std::vector<Toleration> tolerations) {
  PodPlacement p;
  p.node_selector = std::move(selector);
  p.tolerations = std::move(tolerations);
  return p;
}

const Toleration kToleratesGpu{"gpu", Toleration::Op::Equal, "true", TaintEffect::NoSchedule};

INSTANTIATE_TEST_SUITE_P(
    FlavorAssigner, Placement,
    ::testing::Values(PlacementCase{"NoConstraintsSkipsTheTaint", placement({}, {}), "zone-a"},
                      PlacementCase{"ATolerationTakesTheTaintedFlavor", placement({}, {kToleratesGpu}), "tainted"},
                      PlacementCase{"ASelectorOfAnotherZoneSkipsTheZone", placement({{"zone", "b"}}, {}), "plain"},
                      PlacementCase{"ASelectorOfTheZoneTakesIt", placement({{"zone", "a"}}, {}), "zone-a"}),
    testing::CaseName{});

}  // namespace
}  // namespace kueuepp::core
