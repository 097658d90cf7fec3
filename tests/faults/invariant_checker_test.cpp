// The fault tests' invariant checker on snapshots made up by hand: each rule reports what
// it must, once per episode, and stays quiet within its grace period.

#include "tests/faults/invariant_checker.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "kube/json/yaml.hpp"

namespace kueuepp::faults {
namespace {

using namespace std::chrono_literals;
using kube::client::Object;
using Clock = InvariantChecker::Clock;

Object yaml(const std::string& text) {
  auto doc = json::parse_yaml(text);
  EXPECT_TRUE(doc) << (doc ? "" : doc.error().message);
  return Object(doc ? std::move(*doc) : json::value());
}

Object job(const std::string& name, bool suspended, bool complete = false) {
  return yaml(fmt::format(R"(
apiVersion: batch/v1
kind: Job
metadata: {{name: {0}, namespace: t, uid: uid-{0}, labels: {{kueue.x-k8s.io/queue-name: lq}}}}
spec: {{suspend: {1}}}
status: {{conditions: [{{type: Complete, status: "{2}"}}]}}
)",
                          name, suspended, complete ? "True" : "False"));
}

/// A Workload of Job `job` needing `cpu`; admitted to `cq` when given (QuotaReserved and
/// Admitted), with or without a recorded resourceUsage.
Object workload(const std::string& name, const std::string& job, const std::string& cpu, const std::string& cq = "",
                bool usage = true, bool finished = false) {
  std::string admission;
  if (!cq.empty()) {
    admission = fmt::format(
        "  admission: {{clusterQueue: {}, podSetAssignments: [{{name: main, count: 1{}}}]}}\n", cq,
        usage ? fmt::format(", resourceUsage: {{cpu: \"{}\"}}", cpu) : "");
  }
  const char* reserved = cq.empty() ? "False" : "True";
  return yaml(fmt::format(R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: {0}
  namespace: t
  uid: uid-{0}
  ownerReferences: [{{apiVersion: batch/v1, kind: Job, name: {1}, uid: uid-{1}, controller: true}}]
spec:
  podSets:
  - name: main
    count: 1
    template: {{spec: {{containers: [{{name: c, resources: {{requests: {{cpu: "{2}"}}}}}}]}}}}
status:
{3}  conditions:
  - {{type: QuotaReserved, status: "{4}"}}
  - {{type: Admitted, status: "{4}"}}
  - {{type: Finished, status: "{5}"}}
)",
                          name, job, cpu, admission, reserved, finished ? "True" : "False"));
}

std::vector<QueueQuota> two_queues() {
  return {QueueQuota{"cq-a", "co", 4000, {}, {}}, QueueQuota{"cq-b", "co", 4000, {}, 1000}};
}

TEST(InvariantChecker, UsageFromTheAdmissionElseFromThePodSets) {
  EXPECT_EQ(workload_usage_milli(workload("w", "j", "1500m", "cq-a"), "cpu"), 1500);
  EXPECT_EQ(workload_usage_milli(workload("w", "j", "2", "cq-a", false), "cpu"), 2000);
  EXPECT_EQ(workload_usage_milli(workload("w", "j", "3"), "cpu"), 3000);
  EXPECT_TRUE(holds_quota(workload("w", "j", "3", "cq-a")));
  EXPECT_FALSE(holds_quota(workload("w", "j", "3")));
  EXPECT_FALSE(holds_quota(workload("w", "j", "3", "cq-a", true, true)));
}

TEST(InvariantChecker, LimitsFollowNominalQuotaAndLending) {
  InvariantChecker c(two_queues(), {});
  EXPECT_EQ(c.cohort_quota("co"), 8000);
  EXPECT_EQ(c.queue_limit("cq-a"), 5000);  // cq-b lends at most 1
  EXPECT_EQ(c.queue_limit("cq-b"), 8000);
}

TEST(InvariantChecker, ACohortOverItsQuotaIsReportedOncePerEpisode) {
  const auto t0 = Clock::now();
  InvariantChecker c(two_queues(), {}, t0);
  std::vector<Object> jobs = {job("a", false), job("b", false), job("c", false)};
  std::vector<Object> fits = {workload("wa", "a", "4", "cq-a"), workload("wb", "b", "4", "cq-b"),
                              workload("wc", "c", "1")};
  std::vector<Object> over = {workload("wa", "a", "4", "cq-a"), workload("wb", "b", "4", "cq-b"),
                              workload("wc", "c", "1", "cq-b")};
  c.observe(jobs, fits, t0);
  c.observe(jobs, over, t0 + 100ms);
  c.observe(jobs, over, t0 + 200ms);
  c.observe(jobs, fits, t0 + 300ms);
  c.observe(jobs, over, t0 + 400ms);
  EXPECT_TRUE(c.violations().empty()) << "judged once an eviction could have shown";
  EXPECT_EQ(c.finish(), 2u) << "one per episode";
  ASSERT_EQ(c.violations().size(), 2u);
  EXPECT_EQ(c.violations()[0].invariant, "quota");
  EXPECT_EQ(c.violations()[0].at, 100ms);
  EXPECT_NE(c.violations()[0].what.find("cohort co holds 9000m"), std::string::npos) << c.violations()[0].what;
  EXPECT_EQ(c.violations()[1].at, 400ms);
  EXPECT_EQ(c.admissions(), 4u) << "wa, wb, and wc twice";
  EXPECT_EQ(c.peak_overlap_milli(), 0) << "no victim excused any of it";
}

TEST(InvariantChecker, TheQuotaIsJudgedOnceTheHorizonPassed) {
  const auto t0 = Clock::now();
  InvariantChecker::Options o;
  o.victim_horizon = 1000ms;
  InvariantChecker c(two_queues(), o, t0);
  std::vector<Object> over = {workload("wa", "a", "4", "cq-a"), workload("wb", "b", "4", "cq-b"),
                              workload("wc", "c", "1", "cq-b")};
  EXPECT_EQ(c.observe({}, over, t0), 0u);
  EXPECT_EQ(c.observe({}, over, t0 + 900ms), 0u);
  EXPECT_EQ(c.observe({}, over, t0 + 1000ms), 1u);
  EXPECT_EQ(c.finish(), 0u) << "the same episode";
}

// Kueue gives a victim's quota to the entries after its preemptor at once: while the
// victim stops (its eviction maybe shown late), the quota held may exceed the quota by
// what the victim holds, and no more.
TEST(InvariantChecker, PreemptionVictimsDoNotCountOnceTheirEvictionShows) {
  const auto t0 = Clock::now();
  InvariantChecker c(two_queues(), {}, t0);
  Object victim = workload("wb", "b", "4", "cq-b");
  Object evicted = victim;
  evicted.set_condition(kube::client::Condition{"Evicted", "True", "Preempted", "m", "", std::nullopt},
                        "2026-01-01T00:00:00Z");
  c.observe({}, {workload("wa", "a", "4", "cq-a"), victim, workload("wc", "c", "1", "cq-b")}, t0);
  c.observe({}, {workload("wa", "a", "4", "cq-a"), evicted, workload("wc", "c", "1", "cq-b")}, t0 + 500ms);
  // wb stopped and was admitted again: its new admission counts again.
  c.observe({}, {workload("wa", "a", "4", "cq-a"), workload("wb", "b", "4"), workload("wc", "c", "1", "cq-b")},
            t0 + 800ms);
  c.observe({}, {workload("wa", "a", "4", "cq-a"), victim, workload("wc", "c", "1", "cq-b")}, t0 + 900ms);
  EXPECT_EQ(c.finish(), 1u);
  ASSERT_EQ(c.violations().size(), 1u);
  EXPECT_EQ(c.violations()[0].at, 900ms);
  EXPECT_EQ(c.peak_overlap_milli(), 1000);
}

/// `wl` evicted by preemption for the workload of uid `preemptor` (Kueue's message).
Object preempted(Object wl, const std::string& preemptor) {
  const std::string message = "Preempted to accommodate a workload (UID: " + preemptor +
                              ", JobUID: job-uid) due to reclamation within the cohort";
  wl.set_condition(kube::client::Condition{"Evicted", "True", "Preempted", message, "", std::nullopt},
                   "2026-01-01T00:00:00Z");
  wl.set_condition(kube::client::Condition{"Preempted", "True", "InCohortReclamation", message, "", std::nullopt},
                   "2026-01-01T00:00:00Z");
  return wl;
}

TEST(InvariantChecker, APreemptorIsNamedByItsVictimsCondition) {
  EXPECT_EQ(preemptor_uid(preempted(workload("v", "j", "1", "cq-a"), "uid-p")), "uid-p");
  EXPECT_EQ(preemptor_uid(workload("v", "j", "1", "cq-a")), "");
}

// What a victim holds beyond what its preemptor will take may go to others meanwhile, no
// more; and once the preemptor is admitted the victim excuses nothing.
TEST(InvariantChecker, VictimsExcuseOnlyWhatTheirPreemptorsWillNotTake) {
  const auto t0 = Clock::now();
  InvariantChecker c(two_queues(), {}, t0);
  Object victim = preempted(workload("wv", "v", "4", "cq-b"), "uid-wp");
  Object preemptor = workload("wp", "p", "3");
  // 4 held + the victim's 4 + 1 given to wc: the victim's spare 1 covers it.
  c.observe({}, {workload("wa", "a", "4", "cq-a"), victim, preemptor, workload("wc", "c", "1", "cq-b")}, t0);
  // ... but not 2 more.
  c.observe({}, {workload("wa", "a", "4", "cq-a"), victim, preemptor, workload("wc", "c", "2", "cq-b")},
            t0 + 100ms);
  c.observe({}, {workload("wa", "a", "4", "cq-a"), victim, preemptor}, t0 + 150ms);
  // The preemptor admitted while the victim still holds: nothing excused.
  c.observe({}, {workload("wa", "a", "4", "cq-a"), victim, workload("wp", "p", "3", "cq-b")}, t0 + 200ms);
  EXPECT_EQ(c.finish(), 2u);
  ASSERT_EQ(c.violations().size(), 2u);
  EXPECT_EQ(c.violations()[0].at, 100ms);
  EXPECT_NE(c.violations()[0].what.find("cohort co holds 10000m"), std::string::npos) << c.violations()[0].what;
  EXPECT_NE(c.violations()[0].what.find("(preempted by uid-wp)"), std::string::npos) << c.violations()[0].what;
  EXPECT_EQ(c.violations()[1].at, 200ms);
  EXPECT_EQ(c.peak_overlap_milli(), 1000);
}

TEST(InvariantChecker, AClusterQueueOverWhatItMayBorrowIsReported) {
  InvariantChecker c(two_queues(), {});
  std::vector<Object> jobs = {job("a", false), job("b", false)};
  c.observe(jobs, {workload("wa", "a", "4", "cq-a"), workload("wb", "b", "1500m", "cq-a")});
  EXPECT_EQ(c.finish(), 1u);
  EXPECT_NE(c.violations()[0].what.find("ClusterQueue cq-a holds 5500m"), std::string::npos)
      << c.violations()[0].what;
}

TEST(InvariantChecker, AJobAdmittedTwiceIsReported) {
  InvariantChecker c(two_queues(), {});
  EXPECT_EQ(c.observe({job("a", false)}, {workload("w1", "a", "1", "cq-a"), workload("w2", "a", "1", "cq-b")}), 1u);
  EXPECT_EQ(c.violations()[0].invariant, "once");
}

TEST(InvariantChecker, ARunningJobWithoutAdmissionCountsAfterTheGrace) {
  const auto t0 = Clock::now();
  InvariantChecker c(two_queues(), {}, t0);
  std::vector<Object> jobs = {job("a", false), job("b", true), job("c", false, true)};
  std::vector<Object> pending = {workload("wa", "a", "1"), workload("wb", "b", "1"), workload("wc", "c", "1")};
  EXPECT_EQ(c.observe(jobs, pending, t0), 0u);
  EXPECT_EQ(c.observe(jobs, pending, t0 + 2900ms), 0u) << "within the grace";
  EXPECT_EQ(c.observe(jobs, pending, t0 + 3100ms), 1u);
  EXPECT_EQ(c.observe(jobs, pending, t0 + 9000ms), 0u) << "reported once";
  ASSERT_EQ(c.violations().size(), 1u);
  EXPECT_EQ(c.violations()[0].invariant, "suspension");
  EXPECT_NE(c.violations()[0].what.find("Job a "), std::string::npos) << c.violations()[0].what;
  // Stopped in time: nothing.
  InvariantChecker d(two_queues(), {}, t0);
  EXPECT_EQ(d.observe(jobs, pending, t0), 0u);
  EXPECT_EQ(d.observe({job("a", true)}, pending, t0 + 2000ms), 0u);
  EXPECT_EQ(d.observe({job("a", false)}, pending, t0 + 4000ms), 0u) << "a new episode starts its own grace";
}

TEST(InvariantChecker, OneWorkloadPerJobOnceSettled) {
  InvariantChecker c(two_queues(), {});
  std::vector<Object> jobs = {job("a", true), job("b", true), job("c", true)};
  Object deleting = workload("wc2", "c", "1");
  deleting.ensure({"metadata", "deletionTimestamp"}) = "2026-01-01T00:00:00Z";
  EXPECT_EQ(c.settled(jobs, {workload("wa", "a", "1"), workload("wa2", "a", "1"), workload("wc", "c", "1"), deleting}),
            2u);
  EXPECT_NE(c.violations()[0].what.find("Job a has 2"), std::string::npos) << c.violations()[0].what;
  EXPECT_NE(c.violations()[1].what.find("Job b has 0"), std::string::npos) << c.violations()[1].what;
}

// Judged in resourceVersion order, whatever order the versions came in: a start after the
// admission is fine, a start after the quota was released is not.
TEST(InvariantChecker, AJobStartedWhileItsWorkloadHoldsNoQuotaIsReported) {
  std::vector<ObjectVersion> versions = {
      {5, false, job("a", false)},                      // started: wa holds quota (rv 4)
      {1, false, job("a", true)},
      {2, false, workload("wa", "a", "1")},
      {4, false, workload("wa", "a", "1", "cq-a")},
      {6, false, job("a", true)},                       // stopped
      {7, false, workload("wa", "a", "1")},             // quota released
      {8, false, job("a", false)},                      // started again on a stale admission
      {9, false, job("b", true)},
      {10, false, job("b", false)},                     // no Workload at all
  };
  auto starts = starts_without_quota(versions);
  ASSERT_EQ(starts.size(), 2u);
  EXPECT_NE(starts[0].find("Job a started at rv 8"), std::string::npos) << starts[0];
  EXPECT_NE(starts[0].find("wa (rv"), std::string::npos) << starts[0];
  EXPECT_NE(starts[1].find("Job b started at rv 10 while no Workload of it held quota: none"), std::string::npos)
      << starts[1];
  // A Job first seen running is no start.
  EXPECT_TRUE(starts_without_quota({{3, false, job("c", false)}}).empty());
}

}  // namespace
}  // namespace kueuepp::faults
