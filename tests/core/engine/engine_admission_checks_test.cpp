// Admission checks: a reservation in a ClusterQueue with admission checks lists them
// Pending and is not admitted; the workload is admitted once every check is Ready; a
// check in Retry evicts it (AdmissionCheck) and it competes again after
// requeueAfterSeconds with its checks Pending; a Rejected check deactivates it. Objects
// are applied the way the controller's writes leave them.

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include "core/engine/engine.hpp"
#include "tests/core/engine/test_objects.hpp"

namespace kueuepp::core {
namespace {

ClusterQueue queue(std::vector<ClusterQueue::AdmissionCheckRef> checks) {
  ClusterQueue cq = testing::cpu_cluster_queue("cq", {testing::cpu_quota("default", 4)});
  cq.admission_checks = std::move(checks);
  return cq;
}

void setup(Engine& e, std::vector<ClusterQueue::AdmissionCheckRef> checks) {
  e.apply(ResourceFlavor{"default", {}, {}, {}, {}});
  for (const auto& c : checks) e.apply(AdmissionCheck{c.name, "example.com/controller", true});
  e.apply(queue(std::move(checks)));
  LocalQueue lq;
  lq.ns = "ns";
  lq.name = "lq";
  lq.cluster_queue = "cq";
  e.apply(lq);
}

using testing::as_admitted;
using testing::cond;

Workload job(int i, int cpus) {
  Workload wl = testing::cpu_workload("w" + std::to_string(i), cpus, 0, 1000 + i, "lq", "ns");
  wl.uid = "uid-" + std::to_string(i);
  return wl;
}

void set_check(Workload& wl, std::string_view name, CheckState state, Time at, std::string message = "",
               std::optional<std::int32_t> requeue_after = std::nullopt) {
  for (auto& c : wl.admission_checks) {
    if (c.name != name) continue;
    c.state = state;
    c.last_transition = at;
    c.message = std::move(message);
    c.requeue_after_seconds = requeue_after;
  }
}

/// Applies w1 (2 CPU) and runs one cycle: its quota reservation, or nullopt unless
/// exactly one admission was decided.
std::optional<AdmissionDecision> reserve_w1(Engine& e) {
  if (!e.apply(job(1, 2))) return std::nullopt;
  e.run_cycle(time_from_seconds(2000));
  Decisions d = e.take_decisions();
  if (d.admissions.size() != 1) return std::nullopt;
  return d.admissions[0];
}

const AdmissionCheckDecision* check_decision(const Decisions& d, AdmissionCheckDecision::Kind kind) {
  for (const auto& c : d.checks) {
    if (c.kind == kind) return &c;
  }
  return nullptr;
}

TEST(EngineAdmissionChecks, ReservationListsChecksPendingAndReadyAdmits) {
  Engine e;
  setup(e, {{"prov", {}}});
  auto reserved = reserve_w1(e);
  ASSERT_TRUE(reserved);
  const AdmissionDecision& a = *reserved;
  EXPECT_FALSE(a.admitted);
  EXPECT_EQ(a.admission_checks, std::vector<std::string>{"prov"});
  auto view = e.workload("ns/w1");
  ASSERT_TRUE(view);
  EXPECT_TRUE(view->reserved);
  EXPECT_FALSE(view->admitted);
  EXPECT_EQ(e.cluster_queue("cq")->reserving, 1u);
  EXPECT_EQ(e.cluster_queue("cq")->admitted, 0u);

  // The write lands: checks Pending, nothing to do.
  Workload wl = as_admitted(job(1, 2), a);
  ASSERT_TRUE(e.apply(wl));
  e.run_cycle(time_from_seconds(2001));
  EXPECT_TRUE(e.take_decisions().checks.empty());
  EXPECT_FALSE(e.workload("ns/w1")->admitted);

  // The check's controller sets it Ready: Admitted=True.
  set_check(wl, "prov", CheckState::Ready, time_from_seconds(2005));
  ASSERT_TRUE(e.apply(wl));
  EXPECT_FALSE(e.workload("ns/w1")->admitted);  // decided by the next cycle, at its time
  e.run_cycle(time_from_seconds(2006));
  auto ready = e.take_decisions();
  const AdmissionCheckDecision* admit = check_decision(ready, AdmissionCheckDecision::Kind::Admit);
  ASSERT_NE(admit, nullptr);
  EXPECT_EQ(admit->workload, "ns/w1");
  EXPECT_EQ(admit->cluster_queue, "cq");
  EXPECT_TRUE(ready.evictions.empty());
  EXPECT_TRUE(e.workload("ns/w1")->admitted);
  EXPECT_EQ(e.cluster_queue("cq")->admitted, 1u);

  // Once the object says Admitted, nothing more.
  wl.conditions[1] = cond("Admitted", true, "Admitted", time_from_seconds(2006));
  ASSERT_TRUE(e.apply(wl));
  e.run_cycle(time_from_seconds(2007));
  EXPECT_TRUE(e.take_decisions().checks.empty());
}

TEST(EngineAdmissionChecks, OnFlavorsLimitsTheChecksToTheFlavorsAssigned) {
  Engine e;
  setup(e, {{"elsewhere", {"other"}}, {"here", {"default"}}, {"everywhere", {}}});
  ASSERT_TRUE(e.apply(job(1, 1)));
  e.run_cycle(time_from_seconds(2000));
  auto d = e.take_decisions();
  ASSERT_EQ(d.admissions.size(), 1u);
  EXPECT_EQ(d.admissions[0].admission_checks, (std::vector<std::string>{"everywhere", "here"}));
  EXPECT_FALSE(d.admissions[0].admitted);
}

TEST(EngineAdmissionChecks, WithoutChecksAReservationIsAnAdmission) {
  Engine e;
  setup(e, {});
  ASSERT_TRUE(e.apply(job(1, 1)));
  e.run_cycle(time_from_seconds(2000));
  auto d = e.take_decisions();
  ASSERT_EQ(d.admissions.size(), 1u);
  EXPECT_TRUE(d.admissions[0].admitted);
  EXPECT_TRUE(d.admissions[0].admission_checks.empty());
  ASSERT_TRUE(e.apply(as_admitted(job(1, 1), d.admissions[0])));
  e.run_cycle(time_from_seconds(2001));
  EXPECT_TRUE(e.take_decisions().checks.empty());
}

TEST(EngineAdmissionChecks, RetryEvictsAndRequeuesAfterTheDelayWithChecksPending) {
  Engine e;
  setup(e, {{"prov", {}}});
  auto reserved = reserve_w1(e);
  ASSERT_TRUE(reserved);
  Workload wl = as_admitted(job(1, 2), *reserved);
  set_check(wl, "prov", CheckState::Retry, time_from_seconds(2001), "no capacity", 30);
  ASSERT_TRUE(e.apply(wl));
  e.run_cycle(time_from_seconds(2002));
  auto retry = e.take_decisions();
  ASSERT_EQ(retry.evictions.size(), 1u);
  const EvictionDecision& ev = retry.evictions[0];
  EXPECT_EQ(ev.workload, "ns/w1");
  EXPECT_EQ(ev.reason, "AdmissionCheck");
  EXPECT_EQ(ev.message, "Evicted due to AdmissionCheck in Retry state: \"prov\" (no capacity)");
  EXPECT_TRUE(ev.preemption_reason.empty());
  ASSERT_TRUE(ev.requeue_at.has_value());
  EXPECT_EQ(*ev.requeue_at, time_from_seconds(2031));
  EXPECT_TRUE(e.workload("ns/w1")->evicted);
  EXPECT_TRUE(e.workload("ns/w1")->reserved);  // until the Job has stopped

  // The Job stopped: quota released; held until requeueAfterSeconds have passed.
  ASSERT_TRUE(e.complete_eviction("ns/w1"));
  EXPECT_FALSE(e.workload("ns/w1")->reserved);
  EXPECT_EQ(e.cluster_queue("cq")->reserving, 0u);
  e.run_cycle(time_from_seconds(2010));
  EXPECT_TRUE(e.take_decisions().admissions.empty());
  ASSERT_TRUE(e.next_requeue_time().has_value());
  EXPECT_LE(*e.next_requeue_time(), time_from_seconds(2031));

  e.run_cycle(time_from_seconds(2031));
  auto again = e.take_decisions();
  ASSERT_EQ(again.admissions.size(), 1u);
  EXPECT_FALSE(again.admissions[0].admitted);  // the check was reset to Pending
  EXPECT_EQ(again.admissions[0].admission_checks, std::vector<std::string>{"prov"});
}

TEST(EngineAdmissionChecks, RetryWithoutDelayRequeuesAtOnce) {
  Engine e;
  setup(e, {{"prov", {}}});
  auto reserved = reserve_w1(e);
  ASSERT_TRUE(reserved);
  Workload wl = as_admitted(job(1, 2), *reserved);
  set_check(wl, "prov", CheckState::Retry, time_from_seconds(2001));
  ASSERT_TRUE(e.apply(wl));
  e.run_cycle(time_from_seconds(2001));
  auto retry = e.take_decisions();
  ASSERT_EQ(retry.evictions.size(), 1u);
  EXPECT_FALSE(retry.evictions[0].requeue_at.has_value());
  EXPECT_EQ(retry.evictions[0].message, "Evicted due to AdmissionCheck in Retry state: \"prov\"");
  ASSERT_TRUE(e.complete_eviction("ns/w1"));
  e.run_cycle(time_from_seconds(2003));
  EXPECT_EQ(e.take_decisions().admissions.size(), 1u);
}

TEST(EngineAdmissionChecks, RejectedDeactivatesAndIsNotRequeued) {
  Engine e;
  setup(e, {{"b-check", {}}, {"a-check", {}}});
  auto reserved = reserve_w1(e);
  ASSERT_TRUE(reserved);
  Workload wl = as_admitted(job(1, 2), *reserved);
  set_check(wl, "b-check", CheckState::Rejected, time_from_seconds(2001), "not allowed");
  set_check(wl, "a-check", CheckState::Rejected, time_from_seconds(2001));
  ASSERT_TRUE(e.apply(wl));
  e.run_cycle(time_from_seconds(2002));
  auto rejected = e.take_decisions();
  EXPECT_TRUE(rejected.evictions.empty());  // deactivation first, then the eviction
  const AdmissionCheckDecision* d = check_decision(rejected, AdmissionCheckDecision::Kind::Deactivate);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->workload, "ns/w1");
  EXPECT_EQ(d->message, "AdmissionChecks in Rejected state: \"a-check\"; \"b-check\" (not allowed)");

  // DeactivationTarget written: nothing asked again.
  wl.conditions.push_back(cond("DeactivationTarget", true, "AdmissionCheck", time_from_seconds(2002)));
  ASSERT_TRUE(e.apply(wl));
  e.run_cycle(time_from_seconds(2003));
  EXPECT_TRUE(e.take_decisions().checks.empty());

  // spec.active=false, evicted (DeactivatedDueToAdmissionCheck), then the quota released
  // with Requeued=False: it never competes again.
  wl.active = false;
  wl.conditions.pop_back();
  wl.conditions.push_back(cond("Evicted", true, "DeactivatedDueToAdmissionCheck", time_from_seconds(2003)));
  ASSERT_TRUE(e.apply(wl));
  e.run_cycle(time_from_seconds(2004));
  auto evicted = e.take_decisions();
  EXPECT_TRUE(evicted.checks.empty());
  EXPECT_TRUE(evicted.evictions.empty());
  wl.admission.reset();
  wl.conditions = {cond("QuotaReserved", false, "PendingEvaluation", time_from_seconds(2004)),
                   cond("Evicted", true, "DeactivatedDueToAdmissionCheck", time_from_seconds(2003)),
                   cond("Requeued", false, "DeactivatedDueToAdmissionCheck", time_from_seconds(2004))};
  for (auto& c : wl.admission_checks) c.state = CheckState::Pending;
  ASSERT_TRUE(e.apply(wl));
  EXPECT_FALSE(e.workload("ns/w1")->reserved);
  e.run_cycle(time_from_seconds(2100));
  EXPECT_TRUE(e.take_decisions().admissions.empty());
  EXPECT_EQ(e.workload("ns/w1")->pending.reason, "Deactivated");
}

TEST(EngineAdmissionChecks, ACheckAddedToTheQueueIsListedWithoutEvictingAdmittedWorkloads) {
  Engine e;
  setup(e, {});
  ASSERT_TRUE(e.apply(job(1, 1)));
  e.run_cycle(time_from_seconds(2000));
  auto d = e.take_decisions();
  ASSERT_EQ(d.admissions.size(), 1u);
  Workload wl = as_admitted(job(1, 1), d.admissions[0]);
  ASSERT_TRUE(e.apply(wl));

  e.apply(AdmissionCheck{"late", "example.com/controller", true});
  e.apply(queue({{"late", {}}}));
  ASSERT_TRUE(e.apply(job(2, 1)));  // a change that makes the engine look at the queue again
  e.run_cycle(time_from_seconds(2001));
  auto after = e.take_decisions();
  const AdmissionCheckDecision* sync = check_decision(after, AdmissionCheckDecision::Kind::SyncChecks);
  ASSERT_NE(sync, nullptr);
  EXPECT_EQ(sync->workload, "ns/w1");
  EXPECT_EQ(sync->checks, std::vector<std::string>{"late"});
  for (const auto& ev : after.evictions) EXPECT_NE(ev.workload, "ns/w1");
  EXPECT_TRUE(e.workload("ns/w1")->admitted);
  // The newcomer needs the check.
  ASSERT_EQ(after.admissions.size(), 1u);
  EXPECT_EQ(after.admissions[0].workload, "ns/w2");
  EXPECT_FALSE(after.admissions[0].admitted);

  // The listed check, Pending on the admitted workload, changes nothing.
  AdmissionCheckState late;
  late.name = "late";
  late.last_transition = time_from_seconds(2001);
  wl.admission_checks = {late};
  ASSERT_TRUE(e.apply(wl));
  e.run_cycle(time_from_seconds(2002));
  auto quiet = e.take_decisions();
  EXPECT_TRUE(quiet.checks.empty());
  EXPECT_TRUE(quiet.evictions.empty());
  EXPECT_TRUE(e.workload("ns/w1")->admitted);
}

TEST(EngineAdmissionChecks, AReservationWrittenWithoutItsChecksGetsThemListed) {
  Engine e;
  setup(e, {{"prov", {}}});
  Workload wl = job(1, 1);
  Admission a;
  a.cluster_queue = "cq";
  PodSetAssignment psa;
  psa.name = "main";
  psa.flavors["cpu"] = "default";
  psa.resource_usage["cpu"] = Quantity::from_units(1);
  a.pod_set_assignments.push_back(psa);
  wl.admission = a;
  wl.conditions = {cond("QuotaReserved", true, "QuotaReserved", time_from_seconds(1500))};
  ASSERT_TRUE(e.apply(wl));
  e.run_cycle(time_from_seconds(2000));
  auto d = e.take_decisions();
  const AdmissionCheckDecision* sync = check_decision(d, AdmissionCheckDecision::Kind::SyncChecks);
  ASSERT_NE(sync, nullptr);
  EXPECT_EQ(sync->checks, std::vector<std::string>{"prov"});
  EXPECT_EQ(check_decision(d, AdmissionCheckDecision::Kind::Admit), nullptr);
  EXPECT_FALSE(e.workload("ns/w1")->admitted);
}

}  // namespace
}  // namespace kueuepp::core
