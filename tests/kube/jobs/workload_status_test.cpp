#include "kube/jobs/workload_status.hpp"

#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "kube/jobs/conditions_list.hpp"

namespace kueuepp::kube::jobs {
namespace {

using testing::object;
using testing::yaml;

client::Condition cond(const json::value& patch, std::string_view type) {
  auto c = find_condition(patch.at("status").at("conditions"), type);
  EXPECT_TRUE(c.has_value()) << type;
  return c.value_or(client::Condition{});
}

bool has_cond(const json::value& patch, std::string_view type) {
  return find_condition(patch.at("status").at("conditions"), type).has_value();
}

client::Object pending_workload() {
  return object(R"(
metadata: {name: w, namespace: ns, generation: 2}
spec: {queueName: q}
status:
  resourceRequests: [{name: main, resources: {cpu: "1"}}]
  conditions:
  - {type: QuotaReserved, status: "False", reason: WaitingForQuota, message: waiting, lastTransitionTime: "2025-12-31T00:00:00Z", observedGeneration: 2}
)");
}

core::AdmissionDecision admission(bool admitted = true) {
  core::AdmissionDecision d;
  d.workload = "ns/w";
  d.admission.cluster_queue = "cq";
  core::PodSetAssignment psa;
  psa.name = "main";
  psa.flavors["cpu"] = "default";
  psa.flavors["memory"] = "default";
  psa.resource_usage["cpu"] = core::Quantity::from_milli(1500);
  psa.resource_usage["memory"] = core::Quantity::from_milli(1073741824LL * 1000, core::Quantity::Format::BinarySI);
  psa.count = 3;
  d.admission.pod_set_assignments.push_back(psa);
  d.admitted = admitted;
  return d;
}

TEST(WorkloadStatus, AdmissionJson) {
  EXPECT_EQ(admission_json(admission().admission), yaml(R"(
clusterQueue: cq
podSetAssignments:
- {name: main, flavors: {cpu: default, memory: default}, resourceUsage: {cpu: 1500m, memory: 1Gi}, count: 3}
)"));
}

TEST(WorkloadStatus, AdmissionPatch) {
  auto p = admission_patch(pending_workload(), admission(), testing::at(60));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->at("status").at("admission").at("clusterQueue").as_string(), "cq");
  EXPECT_TRUE(p->at("status").at("resourceRequests").is_null());
  auto qr = cond(*p, "QuotaReserved");
  EXPECT_EQ(qr.status, "True");
  EXPECT_EQ(qr.reason, "QuotaReserved");
  EXPECT_EQ(qr.message, "Quota reserved in ClusterQueue cq");
  EXPECT_EQ(qr.last_transition_time, "2026-01-01T00:01:00Z");
  EXPECT_EQ(qr.observed_generation, 2);
  auto ad = cond(*p, "Admitted");
  EXPECT_EQ(ad.status, "True");
  EXPECT_EQ(ad.reason, "Admitted");
  EXPECT_EQ(ad.message, "The workload is admitted");
  EXPECT_FALSE(has_cond(*p, "Evicted"));
  EXPECT_FALSE(has_cond(*p, "Preempted"));
}

TEST(WorkloadStatus, AdmissionWithPendingChecks) {
  auto p = admission_patch(pending_workload(), admission(false), testing::at(0));
  auto ad = cond(*p, "Admitted");
  EXPECT_EQ(ad.status, "False");
  EXPECT_EQ(ad.reason, "UnsatisfiedAdmissionChecks");
  EXPECT_EQ(ad.message, "The workload has not all checks ready");
}

TEST(WorkloadStatus, AdmissionListsTheRequiredChecksPending) {
  auto d = admission(false);
  d.admission_checks = {"prov", "approval"};
  auto p = admission_patch(pending_workload(), d, testing::at(60));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->at("status").at("admissionChecks"), yaml(R"(
- {name: approval, state: Pending, lastTransitionTime: "2026-01-01T00:01:00Z", message: ""}
- {name: prov, state: Pending, lastTransitionTime: "2026-01-01T00:01:00Z", message: ""}
)"));
  // Without checks the field is left alone.
  auto none = admission_patch(pending_workload(), admission(), testing::at(60));
  EXPECT_FALSE(none->at("status").as_object().contains("admissionChecks"));
}

TEST(WorkloadStatus, AdmissionKeepsChecksAlreadyListedAndDropsOthers) {
  client::Object wl = pending_workload();
  wl.ensure({"status", "admissionChecks"}) = yaml(R"(
- {name: gone, state: Pending, message: "", lastTransitionTime: "2025-01-01T00:00:00Z"}
- {name: prov, state: Pending, message: "Reset to Pending after eviction. Previously: Retry", retryCount: 1, lastTransitionTime: "2025-01-01T00:00:00Z"}
)");
  auto d = admission(false);
  d.admission_checks = {"prov"};
  auto p = admission_patch(wl, d, testing::at(0));
  EXPECT_EQ(p->at("status").at("admissionChecks"), yaml(R"(
- {name: prov, state: Pending, message: "Reset to Pending after eviction. Previously: Retry", retryCount: 1, lastTransitionTime: "2025-01-01T00:00:00Z"}
)"));
}

TEST(WorkloadStatus, AdmissionChecksSync) {
  client::Object wl = object(testing::kAdmittedWorkload);
  EXPECT_FALSE(admission_checks_patch(wl, {}, testing::at(0)));  // none listed, none required
  auto p = admission_checks_patch(wl, {"late"}, testing::at(5));
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, yaml(R"(
status:
  admissionChecks:
  - {name: late, state: Pending, lastTransitionTime: "2026-01-01T00:00:05Z", message: ""}
)"));
  wl.ensure({"status", "admissionChecks"}) = p->at("status").at("admissionChecks");
  EXPECT_FALSE(admission_checks_patch(wl, {"late"}, testing::at(9)));
  // The queue dropped its checks: the list goes.
  auto cleared = admission_checks_patch(wl, {}, testing::at(9));
  ASSERT_TRUE(cleared);
  EXPECT_TRUE(cleared->at("status").at("admissionChecks").is_null());
}

TEST(WorkloadStatus, AdmittedOnceChecksAreReady) {
  client::Object wl = pending_workload();
  EXPECT_FALSE(admitted_patch(wl, testing::at(0)));  // no reservation
  auto d = admission(false);
  d.admission_checks = {"prov"};
  wl.ensure({"status"}) = admission_patch(wl, d, testing::at(0))->at("status");
  auto p = admitted_patch(wl, testing::at(30));
  ASSERT_TRUE(p);
  auto ad = cond(*p, "Admitted");
  EXPECT_EQ(ad.status, "True");
  EXPECT_EQ(ad.reason, "Admitted");
  EXPECT_EQ(ad.message, "The workload is admitted");
  EXPECT_EQ(ad.last_transition_time, "2026-01-01T00:00:30Z");
  EXPECT_EQ(cond(*p, "QuotaReserved").last_transition_time, "2026-01-01T00:00:00Z");
  wl.ensure({"status", "conditions"}) = p->at("status").at("conditions");
  EXPECT_FALSE(admitted_patch(wl, testing::at(40)));
}

TEST(WorkloadStatus, DeactivationTargetForARejectedCheck) {
  client::Object wl = object(testing::kAdmittedWorkload);
  auto p = deactivation_target_patch(wl, "AdmissionCheck in Rejected state: \"prov\" (no)", testing::at(0));
  ASSERT_TRUE(p);
  auto t = cond(*p, "DeactivationTarget");
  EXPECT_EQ(t.status, "True");
  EXPECT_EQ(t.reason, "AdmissionCheck");
  EXPECT_EQ(t.message, "AdmissionCheck in Rejected state: \"prov\" (no)");
  EXPECT_EQ(cond(*p, "Admitted").status, "True");  // the rest of the list is kept
  wl.ensure({"status", "conditions"}) = p->at("status").at("conditions");
  EXPECT_FALSE(deactivation_target_patch(wl, "again", testing::at(5)));
}

TEST(WorkloadStatus, EvictionByARetryCheckSetsRequeueAt) {
  client::Object wl = object(testing::kAdmittedWorkload);
  wl.ensure({"status", "requeueState"}) = yaml("{count: 2}");
  core::EvictionDecision d;
  d.workload = "ns/w";
  d.reason = "AdmissionCheck";
  d.message = "Evicted due to AdmissionCheck in Retry state: \"prov\"";
  d.requeue_at = testing::at(90);
  auto p = eviction_patch(wl, d, testing::at(0));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->at("status").at("requeueState"), yaml(R"({count: 2, requeueAt: "2026-01-01T00:01:30Z"})"));
  auto ev = cond(*p, "Evicted");
  EXPECT_EQ(ev.reason, "AdmissionCheck");
  EXPECT_EQ(ev.message, "Evicted due to AdmissionCheck in Retry state: \"prov\"");
  // requeueAt only moves later.
  wl.ensure({"status", "requeueState"}) = yaml(R"({requeueAt: "2026-01-01T01:00:00Z"})");
  auto later = eviction_patch(wl, d, testing::at(0));
  EXPECT_EQ(later->at("status").at("requeueState"), yaml(R"({requeueAt: "2026-01-01T01:00:00Z"})"));
}

TEST(WorkloadStatus, AdmissionResetsEvictionConditions) {
  client::Object wl = object(R"(
metadata: {name: w, generation: 1}
status:
  conditions:
  - {type: Evicted, status: "True", reason: Preempted, message: "Preempted to accommodate x", lastTransitionTime: "2025-12-31T00:00:00Z"}
  - {type: Preempted, status: "True", reason: InClusterQueue, message: "Preempted to accommodate x", lastTransitionTime: "2025-12-31T00:00:00Z"}
  - {type: Requeued, status: "True", reason: Preempted, message: "Preempted to accommodate x", lastTransitionTime: "2025-12-31T00:00:00Z"}
)");
  auto p = admission_patch(wl, admission(), testing::at(0));
  for (const char* type : {"Evicted", "Preempted"}) {
    auto c = cond(*p, type);
    EXPECT_EQ(c.status, "False") << type;
    EXPECT_EQ(c.reason, "QuotaReserved") << type;
    EXPECT_EQ(c.message, "Previously: Preempted to accommodate x") << type;
    EXPECT_EQ(c.last_transition_time, "2026-01-01T00:00:00Z") << type;
  }
  // Requeued is left as Kueue leaves it.
  EXPECT_EQ(cond(*p, "Requeued").status, "True");
}

TEST(WorkloadStatus, AdmissionAlreadyWrittenIsNoOp) {
  client::Object wl = pending_workload();
  auto p = admission_patch(wl, admission(), testing::at(0));
  wl.ensure({"status"}) = p->at("status");
  wl.erase({"status", "resourceRequests"});
  EXPECT_FALSE(admission_patch(wl, admission(), testing::at(100)));
}

TEST(WorkloadStatus, PendingPatch) {
  client::Object wl = pending_workload();
  core::PendingDecision d{"ns/w", "WaitingForQuota", "couldn't assign flavors to pod set main: insufficient quota"};
  auto p = pending_patch(wl, d, testing::at(0));
  ASSERT_TRUE(p);
  auto qr = cond(*p, "QuotaReserved");
  EXPECT_EQ(qr.message, d.message);
  EXPECT_EQ(qr.last_transition_time, "2025-12-31T00:00:00Z");  // status did not flip
  auto ad = cond(*p, "Admitted");
  EXPECT_EQ(ad.status, "False");
  EXPECT_EQ(ad.reason, "NoReservation");
  EXPECT_EQ(ad.message, "The workload has no reservation");
  EXPECT_EQ(json::find(p->at("status"), "admission"), nullptr);
  // Writing it again changes nothing.
  wl.ensure({"status", "conditions"}) = p->at("status").at("conditions");
  EXPECT_FALSE(pending_patch(wl, d, testing::at(5)));
  d.message = "other";
  EXPECT_TRUE(pending_patch(wl, d, testing::at(5)));
}

TEST(WorkloadStatus, PendingClearsStaleAdmission) {
  client::Object wl = object(testing::kAdmittedWorkload);
  auto p = pending_patch(wl, core::PendingDecision{"ns/w", "Pending", "m"}, testing::at(0));
  EXPECT_TRUE(p->at("status").at("admission").is_null());
  EXPECT_EQ(cond(*p, "QuotaReserved").last_transition_time, "2026-01-01T00:00:00Z");
}

core::EvictionDecision preemption() {
  core::EvictionDecision d;
  d.workload = "ns/job-sample-job-2e47a";
  d.cluster_queue = "cluster-queue";
  d.reason = "Preempted";
  d.preemption_reason = "InClusterQueue";
  d.message = "Preempted to accommodate a workload (UID: u, JobUID: j) due to prioritization in the ClusterQueue; "
              "preemptor path: /cq; preemptee path: /cq";
  return d;
}

TEST(WorkloadStatus, EvictionByPreemption) {
  client::Object wl = object(testing::kAdmittedWorkload);
  auto p = eviction_patch(wl, preemption(), testing::at(30));
  ASSERT_TRUE(p);
  auto ev = cond(*p, "Evicted");
  EXPECT_EQ(ev.status, "True");
  EXPECT_EQ(ev.reason, "Preempted");
  EXPECT_EQ(ev.message, preemption().message);
  EXPECT_EQ(ev.observed_generation, 1);
  auto pr = cond(*p, "Preempted");
  EXPECT_EQ(pr.status, "True");
  EXPECT_EQ(pr.reason, "InClusterQueue");
  EXPECT_FALSE(pr.observed_generation.has_value());
  EXPECT_EQ(p->at("status").at("schedulingStats"),
            yaml("{evictions: [{reason: Preempted, underlyingCause: '', count: 1}]}"));
  // The reservation stays until the Job has stopped.
  EXPECT_EQ(json::find(p->at("status"), "admission"), nullptr);
  EXPECT_EQ(cond(*p, "QuotaReserved").status, "True");
}

TEST(WorkloadStatus, EvictionIsCountedOnce) {
  client::Object wl = object(testing::kAdmittedWorkload);
  auto p = eviction_patch(wl, preemption(), testing::at(30));
  wl.ensure({"status", "conditions"}) = p->at("status").at("conditions");
  wl.ensure({"status", "schedulingStats"}) = p->at("status").at("schedulingStats");
  EXPECT_FALSE(eviction_patch(wl, preemption(), testing::at(40)));
  // A later, different eviction counts again.
  core::EvictionDecision stop;
  stop.reason = "ClusterQueueStopped";
  stop.message = "The ClusterQueue is stopped";
  auto p2 = eviction_patch(wl, stop, testing::at(50));
  EXPECT_EQ(p2->at("status").at("schedulingStats"),
            yaml("{evictions: [{reason: Preempted, underlyingCause: '', count: 1}, "
                 "{reason: ClusterQueueStopped, underlyingCause: '', count: 1}]}"));
  EXPECT_EQ(cond(*p2, "Evicted").last_transition_time, "2026-01-01T00:00:30Z");  // still True
}

TEST(WorkloadStatus, EvictionWithoutPreemptionHasNoPreemptedCondition) {
  core::EvictionDecision d;
  d.reason = "LocalQueueStopped";
  d.message = "The LocalQueue is stopped";
  auto p = eviction_patch(object(testing::kAdmittedWorkload), d, testing::at(0));
  EXPECT_FALSE(has_cond(*p, "Preempted"));
  EXPECT_EQ(cond(*p, "Evicted").reason, "LocalQueueStopped");
}

TEST(WorkloadStatus, DeactivatedWithCauseCountsUnderlyingCause) {
  core::EvictionDecision d;
  d.reason = "DeactivatedDueToRequeuingLimitExceeded";
  d.message = "m";
  auto p = eviction_patch(object(testing::kAdmittedWorkload), d, testing::at(0));
  EXPECT_EQ(p->at("status").at("schedulingStats"),
            yaml("{evictions: [{reason: Deactivated, underlyingCause: RequeuingLimitExceeded, count: 1}]}"));
  EXPECT_EQ(cond(*p, "Evicted").reason, "DeactivatedDueToRequeuingLimitExceeded");
}

TEST(WorkloadStatus, EvictionResetsChecksAndClusterNomination) {
  client::Object wl = object(testing::kAdmittedWorkload);
  wl.ensure({"status", "admissionChecks"}) = yaml(R"(
- {name: a, state: Ready, message: ok, lastTransitionTime: "2025-01-01T00:00:00Z"}
- {name: b, state: Retry, message: r, retryCount: 2, requeueAfterSeconds: 30, lastTransitionTime: "2025-01-01T00:00:00Z"}
- {name: c, state: Pending, message: p, lastTransitionTime: "2025-01-01T00:00:00Z"}
)");
  wl.ensure({"status", "clusterName"}) = "worker1";
  auto p = eviction_patch(wl, preemption(), testing::at(0));
  EXPECT_EQ(p->at("status").at("admissionChecks"), yaml(R"(
- {name: a, state: Pending, lastTransitionTime: "2026-01-01T00:00:00Z", message: "Reset to Pending after eviction. Previously: Ready"}
- {name: b, state: Pending, lastTransitionTime: "2026-01-01T00:00:00Z", message: "Reset to Pending after eviction. Previously: Retry", requeueAfterSeconds: 30, retryCount: 3}
- {name: c, state: Pending, message: p, lastTransitionTime: "2025-01-01T00:00:00Z"}
)"));
  EXPECT_TRUE(p->at("status").at("clusterName").is_null());
}

TEST(WorkloadStatus, EvictionCompleted) {
  client::Object wl = object(testing::kAdmittedWorkload);
  EXPECT_FALSE(eviction_completed_patch(wl, testing::at(0)));  // not evicted
  wl.ensure({"status", "conditions"}) = eviction_patch(wl, preemption(), testing::at(10))->at("status").at("conditions");
  auto p = eviction_completed_patch(wl, testing::at(20));
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->at("status").at("admission").is_null());
  auto rq = cond(*p, "Requeued");
  EXPECT_EQ(rq.status, "True");
  EXPECT_EQ(rq.reason, "Preempted");
  EXPECT_EQ(rq.message, preemption().message);
  auto qr = cond(*p, "QuotaReserved");
  EXPECT_EQ(qr.status, "False");
  EXPECT_EQ(qr.reason, "PendingEvaluation");
  EXPECT_EQ(qr.message, preemption().message);
  EXPECT_EQ(qr.last_transition_time, "2026-01-01T00:00:20Z");
  auto ad = cond(*p, "Admitted");
  EXPECT_EQ(ad.status, "False");
  EXPECT_EQ(ad.reason, "NoReservation");
  // The 20 s it was admitted count towards a maximum execution time.
  EXPECT_EQ(p->at("status").at("accumulatedPastExecutionTimeSeconds"), json::value(20));
  // Evicted stays True until the next reservation.
  EXPECT_EQ(cond(*p, "Evicted").status, "True");
  WorkloadStatusOptions legacy;
  legacy.unadmitted_workloads_observability = false;
  EXPECT_EQ(cond(*eviction_completed_patch(wl, testing::at(20), legacy), "QuotaReserved").reason, "Pending");
  // Once released, nothing more to do.
  wl.ensure({"status", "conditions"}) = p->at("status").at("conditions");
  EXPECT_FALSE(eviction_completed_patch(wl, testing::at(30)));
}

TEST(WorkloadStatus, AdmittedTimeAccumulatesAcrossAdmissions) {
  client::Object wl = object(testing::kAdmittedWorkload);
  wl.ensure({"status", "accumulatedPastExecutionTimeSeconds"}) = 100;
  wl.ensure({"status", "conditions"}) = eviction_patch(wl, preemption(), testing::at(10))->at("status").at("conditions");
  auto p = eviction_completed_patch(wl, testing::at(35));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->at("status").at("accumulatedPastExecutionTimeSeconds"), json::value(135));
  // An admission withdrawn by the engine counts too; a Workload never admitted adds nothing.
  auto withdrawn = pending_patch(object(testing::kAdmittedWorkload), core::PendingDecision{"ns/w", "Pending", "m"},
                                 testing::at(7));
  ASSERT_TRUE(withdrawn);
  EXPECT_EQ(withdrawn->at("status").at("accumulatedPastExecutionTimeSeconds"), json::value(7));
  auto pending = pending_patch(pending_workload(), core::PendingDecision{"ns/w", "Pending", "m"}, testing::at(35));
  ASSERT_TRUE(pending);
  EXPECT_EQ(pending->at("status").as_object().if_contains("accumulatedPastExecutionTimeSeconds"), nullptr);
}

TEST(WorkloadStatus, EvictionCompletedForStoppedQueueIsNotRequeued) {
  client::Object wl = object(testing::kAdmittedWorkload);
  core::EvictionDecision d;
  d.reason = "ClusterQueueStopped";
  d.message = "The ClusterQueue is stopped";
  wl.ensure({"status", "conditions"}) = eviction_patch(wl, d, testing::at(10))->at("status").at("conditions");
  auto rq = cond(*eviction_completed_patch(wl, testing::at(20)), "Requeued");
  EXPECT_EQ(rq.status, "False");
  EXPECT_EQ(rq.reason, "ClusterQueueStopped");
}

TEST(WorkloadStatus, Finished) {
  client::Object wl = object(testing::kAdmittedWorkload);
  auto p = finished_patch(wl, JobFinish{false, "Job has reached the specified backoff limit"}, testing::at(90));
  ASSERT_TRUE(p);
  auto f = cond(*p, "Finished");
  EXPECT_EQ(f.status, "True");
  EXPECT_EQ(f.reason, "Failed");
  EXPECT_EQ(f.message, "Job has reached the specified backoff limit");
  EXPECT_EQ(f.observed_generation, 1);
  EXPECT_EQ(cond(*finished_patch(wl, JobFinish{true, ""}, testing::at(0)), "Finished").reason, "Succeeded");
  wl.ensure({"status", "conditions"}) = p->at("status").at("conditions");
  EXPECT_FALSE(finished_patch(wl, "Succeeded", "x", testing::at(100)));
}

TEST(WorkloadStatus, PodsReadyLifecycle) {
  client::Object wl = object(testing::kAdmittedWorkload);
  auto c = pods_ready_condition(wl, false);
  EXPECT_EQ(c.status, "False");
  EXPECT_EQ(c.reason, "WaitForStart");
  EXPECT_EQ(c.message, "Not all pods are ready or succeeded");
  auto p = pods_ready_patch(wl, false, testing::at(0));
  ASSERT_TRUE(p);
  wl.ensure({"status", "conditions"}) = p->at("status").at("conditions");
  EXPECT_FALSE(pods_ready_patch(wl, false, testing::at(1)));

  p = pods_ready_patch(wl, true, testing::at(2));
  auto started = cond(*p, "PodsReady");
  EXPECT_EQ(started.status, "True");
  EXPECT_EQ(started.reason, "Started");
  EXPECT_EQ(started.message, "All pods reached readiness and the workload is running");
  wl.ensure({"status", "conditions"}) = p->at("status").at("conditions");

  auto failing = pods_ready_condition(wl, false);
  EXPECT_EQ(failing.reason, "WaitForRecovery");
  EXPECT_EQ(failing.message, "At least one pod has failed, waiting for recovery");
  wl.ensure({"status", "conditions"}) = pods_ready_patch(wl, false, testing::at(3))->at("status").at("conditions");
  EXPECT_EQ(pods_ready_condition(wl, false).reason, "WaitForRecovery");
  EXPECT_EQ(pods_ready_condition(wl, true).reason, "Recovered");
}

TEST(WorkloadStatus, PodsReadyNotAdmitted) {
  client::Object wl = pending_workload();
  EXPECT_EQ(pods_ready_condition(wl, true).status, "False");
  EXPECT_EQ(pods_ready_condition(wl, true).reason, "WaitForStart");
}

}  // namespace
}  // namespace kueuepp::kube::jobs
