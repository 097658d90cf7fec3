#include "kube/jobs/workload_requeue.hpp"

#include <gtest/gtest.h>

#include <string>

#include "fixtures.hpp"
#include "kube/jobs/conditions_list.hpp"

namespace kueuepp::kube::jobs {
namespace {

using testing::at;
using testing::object;

/// An admitted Workload (admitted at t=0) with the given PodsReady condition and
/// requeueState lines (YAML, indented for status).
client::Object admitted(const std::string& pods_ready, const std::string& extra_status = "",
                        const std::string& spec_extra = "") {
  return object(R"(
metadata: {name: w, namespace: ns, generation: 1, resourceVersion: "7"}
spec: {queueName: q)" + spec_extra + R"(}
status:
  admission: {clusterQueue: cq, podSetAssignments: [{name: main, flavors: {cpu: default}, resourceUsage: {cpu: "1"}, count: 1}]}
  conditions:
  - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: ok, lastTransitionTime: "2026-01-01T00:00:00Z"}
  - {type: Admitted, status: "True", reason: Admitted, message: ok, lastTransitionTime: "2026-01-01T00:00:00Z"}
)" + pods_ready + extra_status);
}

constexpr const char* kWaitForStart =
    "  - {type: PodsReady, status: \"False\", reason: WaitForStart, message: x, lastTransitionTime: \"2026-01-01T00:00:00Z\"}\n";
constexpr const char* kReady =
    "  - {type: PodsReady, status: \"True\", reason: Started, message: x, lastTransitionTime: \"2026-01-01T00:01:00Z\"}\n";
constexpr const char* kWaitForRecovery =
    "  - {type: PodsReady, status: \"False\", reason: WaitForRecovery, message: x, lastTransitionTime: \"2026-01-01T00:10:00Z\"}\n";

RequeuingPolicy policy() {
  RequeuingPolicy p;
  p.timeout = std::chrono::seconds(300);
  p.recovery_timeout = std::chrono::seconds(120);
  p.backoff_base_seconds = 10;
  p.backoff_max_seconds = 100;
  return p;
}

client::Condition cond(const json::value& patch, std::string_view type) {
  auto c = find_condition(patch.at("status").at("conditions"), type);
  EXPECT_TRUE(c.has_value()) << type;
  return c.value_or(client::Condition{});
}

TEST(RequeueBackoff, DoublesFromBaseUpToMax) {
  auto p = policy();
  EXPECT_EQ(requeue_backoff(p, 1).count(), 10);
  EXPECT_EQ(requeue_backoff(p, 2).count(), 20);
  EXPECT_EQ(requeue_backoff(p, 4).count(), 80);
  EXPECT_EQ(requeue_backoff(p, 5).count(), 100);
  EXPECT_EQ(requeue_backoff(p, 1000).count(), 100);  // no overflow on a long history
  RequeuingPolicy defaults;
  EXPECT_EQ(requeue_backoff(defaults, 1).count(), 60);
  EXPECT_EQ(requeue_backoff(defaults, 3).count(), 240);
  EXPECT_EQ(requeue_backoff(defaults, 20).count(), 3600);
}

TEST(PodsReadyTimeout, BeforeTheDeadlineSaysWhenToLookAgain) {
  auto step = pods_ready_timeout_step(admitted(kWaitForStart), policy(), at(299));
  EXPECT_FALSE(step.has_write());
  ASSERT_TRUE(step.recheck_at.has_value());
  EXPECT_EQ(*step.recheck_at, at(300));
}

TEST(PodsReadyTimeout, ReadyPodsHaveNoDeadline) {
  auto step = pods_ready_timeout_step(admitted(kReady), policy(), at(100000));
  EXPECT_FALSE(step.has_write());
  EXPECT_FALSE(step.recheck_at.has_value());
}

TEST(PodsReadyTimeout, PastTheDeadlineEvictsWithBackoff) {
  auto step = pods_ready_timeout_step(admitted(kWaitForStart), policy(), at(300));
  ASSERT_TRUE(step.has_write());
  EXPECT_EQ(step.target, RequeueStep::Target::Status);
  auto evicted = cond(step.patch, "Evicted");
  EXPECT_EQ(evicted.status, "True");
  EXPECT_EQ(evicted.reason, "PodsReadyTimeout");
  EXPECT_EQ(evicted.message, "Exceeded the PodsReady timeout ns/w");
  const auto& rs = step.patch.at("status").at("requeueState");
  EXPECT_EQ(rs.at("count").to_number<int>(), 1);
  EXPECT_EQ(json::get_string(rs, "requeueAt"), "2026-01-01T00:05:10Z");
  EXPECT_EQ(step.event_reason, "EvictedDueToPodsReadyTimeout");
  // The eviction is counted with its underlying cause.
  const auto& ev = step.patch.at("status").at("schedulingStats").at("evictions").at(0);
  EXPECT_EQ(json::get_string(ev, "reason"), "PodsReadyTimeout");
  EXPECT_EQ(json::get_string(ev, "underlyingCause"), "WaitForStart");
}

TEST(PodsReadyTimeout, LaterEvictionsBackOffLonger) {
  auto wl = admitted(kWaitForStart, "  requeueState: {count: 2}\n");
  auto step = pods_ready_timeout_step(wl, policy(), at(400));
  ASSERT_TRUE(step.has_write());
  const auto& rs = step.patch.at("status").at("requeueState");
  EXPECT_EQ(rs.at("count").to_number<int>(), 3);
  EXPECT_EQ(json::get_string(rs, "requeueAt"), "2026-01-01T00:07:20Z");  // 400 s + 10 * 2^2
}

TEST(PodsReadyTimeout, RecoveryDeadlineRunsFromTheFailure) {
  auto wl = admitted(kWaitForRecovery);
  auto before = pods_ready_timeout_step(wl, policy(), at(600 + 119));
  EXPECT_FALSE(before.has_write());
  EXPECT_EQ(before.recheck_at, at(720));
  auto after = pods_ready_timeout_step(wl, policy(), at(720));
  ASSERT_TRUE(after.has_write());
  EXPECT_EQ(after.patch.at("status").at("schedulingStats").at("evictions").at(0).at("underlyingCause"),
            json::value("WaitForRecovery"));
  auto p = policy();
  p.recovery_timeout = std::chrono::seconds(0);  // no recovery deadline at all
  auto never = pods_ready_timeout_step(wl, p, at(100000));
  EXPECT_FALSE(never.has_write());
  EXPECT_FALSE(never.recheck_at.has_value());
}

TEST(PodsReadyTimeout, OutOfRetriesMarksForDeactivation) {
  auto p = policy();
  p.backoff_limit_count = 2;
  auto wl = admitted(kWaitForStart, "  requeueState: {count: 2}\n");
  auto step = pods_ready_timeout_step(wl, p, at(300));
  ASSERT_TRUE(step.has_write());
  auto target = cond(step.patch, "DeactivationTarget");
  EXPECT_EQ(target.status, "True");
  EXPECT_EQ(target.reason, "RequeuingLimitExceeded");
  EXPECT_EQ(find_condition(step.patch.at("status").at("conditions"), "Evicted"), std::nullopt);
}

TEST(PodsReadyTimeout, NothingForEvictedOrInactiveWorkloads) {
  auto evicted = admitted(kWaitForStart,
                          "  - {type: Evicted, status: \"True\", reason: Preempted, message: x, "
                          "lastTransitionTime: \"2026-01-01T00:00:00Z\"}\n");
  EXPECT_FALSE(pods_ready_timeout_step(evicted, policy(), at(1000)).has_write());
  auto inactive = admitted(kWaitForStart, "", ", active: false");
  EXPECT_FALSE(pods_ready_timeout_step(inactive, policy(), at(1000)).has_write());
}

client::Object requeued_false(const std::string& reason, const std::string& extra_status = "",
                              const std::string& spec_extra = "") {
  return object(R"(
metadata: {name: w, namespace: ns, generation: 1}
spec: {queueName: q)" + spec_extra + R"(}
status:
  conditions:
  - {type: QuotaReserved, status: "False", reason: PendingEvaluation, message: x, lastTransitionTime: "2026-01-01T00:00:00Z"}
  - {type: Requeued, status: "False", reason: )" + reason + R"(, message: x, lastTransitionTime: "2026-01-01T00:00:00Z"}
)" + extra_status);
}

TEST(RequeueGate, BackoffFinishesAtRequeueAt) {
  auto wl = requeued_false("PodsReadyTimeout", "  requeueState: {count: 1, requeueAt: \"2026-01-01T00:01:00Z\"}\n");
  auto early = requeue_gate_step(wl, at(59));
  EXPECT_FALSE(early.has_write());
  EXPECT_EQ(early.recheck_at, at(60));
  auto due = requeue_gate_step(wl, at(60));
  ASSERT_TRUE(due.has_write());
  auto requeued = cond(due.patch, "Requeued");
  EXPECT_EQ(requeued.status, "True");
  EXPECT_EQ(requeued.reason, "BackoffFinished");
  EXPECT_EQ(requeued.message, "The workload backoff was finished");
  // The count stays (the next backoff doubles); requeueAt goes.
  const auto& rs = due.patch.at("status").at("requeueState");
  EXPECT_EQ(rs.at("count").to_number<int>(), 1);
  EXPECT_EQ(rs.as_object().if_contains("requeueAt"), nullptr);
}

TEST(RequeueGate, ReactivatedOnceActiveAgain) {
  auto inactive = requeued_false("DeactivatedDueToRequeuingLimitExceeded", "", ", active: false");
  EXPECT_FALSE(requeue_gate_step(inactive, at(0)).has_write());
  auto active = requeued_false("DeactivatedDueToRequeuingLimitExceeded");
  auto step = requeue_gate_step(active, at(0));
  ASSERT_TRUE(step.has_write());
  EXPECT_EQ(cond(step.patch, "Requeued").reason, "Reactivated");
  EXPECT_EQ(cond(step.patch, "Requeued").message, "The workload was reactivated");
}

TEST(RequeueGate, StopPolicyHoldsAreNotItsBusiness) {
  EXPECT_FALSE(requeue_gate_step(requeued_false("ClusterQueueStopped"), at(0)).has_write());
}

TEST(Deactivation, TargetDeactivatesThenEvictionFollows) {
  auto target = "  - {type: DeactivationTarget, status: \"True\", reason: RequeuingLimitExceeded, "
                "message: exceeding the maximum number of re-queuing retries, lastTransitionTime: \"2026-01-01T00:00:00Z\"}\n"
                "  requeueState: {count: 3}\n";
  auto step = deactivation_step(admitted(kWaitForStart, target), at(10));
  ASSERT_TRUE(step.has_write());
  EXPECT_EQ(step.target, RequeueStep::Target::Spec);
  EXPECT_EQ(step.patch, json::value(json::object{{"spec", json::object{{"active", false}}}}));

  auto inactive = admitted(kWaitForStart, target, ", active: false");
  auto evict = deactivation_step(inactive, at(20));
  ASSERT_TRUE(evict.has_write());
  EXPECT_EQ(evict.target, RequeueStep::Target::Status);
  auto evicted = cond(evict.patch, "Evicted");
  EXPECT_EQ(evicted.reason, "DeactivatedDueToRequeuingLimitExceeded");
  EXPECT_EQ(evicted.message, "The workload is deactivated due to exceeding the maximum number of re-queuing retries");
  EXPECT_EQ(find_condition(evict.patch.at("status").at("conditions"), "DeactivationTarget"), std::nullopt);
  EXPECT_TRUE(evict.patch.at("status").at("requeueState").is_null());
}

TEST(Deactivation, ARejectedAdmissionCheckDeactivatesAndEvicts) {
  auto target = "  - {type: DeactivationTarget, status: \"True\", reason: AdmissionCheck, "
                "message: 'AdmissionCheck in Rejected state: \"prov\" (no capacity)', "
                "lastTransitionTime: \"2026-01-01T00:00:00Z\"}\n";
  auto step = deactivation_step(admitted(kReady, target), at(10));
  ASSERT_TRUE(step.has_write());
  EXPECT_EQ(step.target, RequeueStep::Target::Spec);
  auto evict = deactivation_step(admitted(kReady, target, ", active: false"), at(20));
  ASSERT_TRUE(evict.has_write());
  auto evicted = cond(evict.patch, "Evicted");
  EXPECT_EQ(evicted.reason, "DeactivatedDueToAdmissionCheck");
  EXPECT_EQ(evicted.message, "The workload is deactivated due to AdmissionCheck in Rejected state: \"prov\" (no capacity)");
  EXPECT_EQ(evict.event_reason, "EvictedDueToDeactivatedDueToAdmissionCheck");
  EXPECT_EQ(evict.evicted_reason, "Deactivated");
  EXPECT_EQ(evict.evicted_cause, "AdmissionCheck");
}

TEST(Deactivation, PlainDeactivationEvicts) {
  auto step = deactivation_step(admitted(kReady, "", ", active: false"), at(10));
  ASSERT_TRUE(step.has_write());
  EXPECT_EQ(cond(step.patch, "Evicted").reason, "Deactivated");
  EXPECT_EQ(cond(step.patch, "Evicted").message, "The workload is deactivated");
  EXPECT_EQ(step.event_reason, "EvictedDueToDeactivated");
  // Once evicted, nothing more: the job reconciler stops the Job and releases the quota.
  auto evicted = admitted(kReady,
                          "  - {type: Evicted, status: \"True\", reason: Deactivated, message: x, "
                          "lastTransitionTime: \"2026-01-01T00:00:00Z\"}\n",
                          ", active: false");
  EXPECT_FALSE(deactivation_step(evicted, at(10)).has_write());
  // An active Workload without a target is left alone.
  EXPECT_FALSE(deactivation_step(admitted(kReady), at(10)).has_write());
}

TEST(MaxExecutionTime, BeforeTheLimitSaysWhenToLookAgain) {
  auto wl = admitted(kReady, "", ", maximumExecutionTimeSeconds: 60");
  auto step = max_execution_time_step(wl, at(59));
  EXPECT_FALSE(step.has_write());
  ASSERT_TRUE(step.recheck_at.has_value());
  EXPECT_EQ(*step.recheck_at, at(60));
}

TEST(MaxExecutionTime, EarlierAdmissionsCountTowardsTheLimit) {
  auto wl = admitted(kReady, "  accumulatedPastExecutionTimeSeconds: 50\n", ", maximumExecutionTimeSeconds: 60");
  EXPECT_EQ(max_execution_time_step(wl, at(5)).recheck_at, at(10));
  EXPECT_TRUE(max_execution_time_step(wl, at(10)).has_write());
}

TEST(MaxExecutionTime, PastTheLimitMarksForDeactivationAndClearsTheCount) {
  auto wl = admitted(kReady, "  accumulatedPastExecutionTimeSeconds: 20\n", ", maximumExecutionTimeSeconds: 60");
  auto step = max_execution_time_step(wl, at(41));
  ASSERT_TRUE(step.has_write());
  EXPECT_EQ(step.target, RequeueStep::Target::Status);
  auto target = cond(step.patch, "DeactivationTarget");
  EXPECT_EQ(target.status, "True");
  EXPECT_EQ(target.reason, "MaximumExecutionTimeExceeded");
  EXPECT_EQ(target.message, "exceeding the maximum execution time");
  EXPECT_TRUE(step.patch.at("status").at("accumulatedPastExecutionTimeSeconds").is_null());
  EXPECT_EQ(step.event_reason, "MaximumExecutionTimeExceeded");
  EXPECT_EQ(step.event_message, "The maximum execution time (60s) exceeded");
  EXPECT_TRUE(step.event_warning);

  // Then deactivation_step carries it out with Kueue's reason.
  auto marked = admitted(kReady,
                         "  - {type: DeactivationTarget, status: \"True\", reason: MaximumExecutionTimeExceeded, "
                         "message: exceeding the maximum execution time, lastTransitionTime: \"2026-01-01T00:01:00Z\"}\n",
                         ", maximumExecutionTimeSeconds: 60, active: false");
  EXPECT_FALSE(max_execution_time_step(marked, at(70)).has_write());
  // Once deactivated (its mark cleared by the eviction) it is not marked again.
  auto deactivated = admitted(kReady, "", ", maximumExecutionTimeSeconds: 60, active: false");
  EXPECT_FALSE(max_execution_time_step(deactivated, at(70)).has_write());
  auto evicted = admitted(kReady,
                          "  - {type: Evicted, status: \"True\", reason: DeactivatedDueToMaximumExecutionTimeExceeded, "
                          "message: x, lastTransitionTime: \"2026-01-01T00:01:00Z\"}\n",
                          ", maximumExecutionTimeSeconds: 60");
  EXPECT_FALSE(max_execution_time_step(evicted, at(70)).has_write());
  auto evict = deactivation_step(marked, at(70));
  ASSERT_TRUE(evict.has_write());
  EXPECT_EQ(cond(evict.patch, "Evicted").reason, "DeactivatedDueToMaximumExecutionTimeExceeded");
  EXPECT_EQ(cond(evict.patch, "Evicted").message, "The workload is deactivated due to exceeding the maximum execution time");
  EXPECT_EQ(evict.evicted_reason, "Deactivated");
  EXPECT_EQ(evict.evicted_cause, "MaximumExecutionTimeExceeded");
}

TEST(MaxExecutionTime, OnlyAdmittedWorkloadsWithALimitAreTimed) {
  EXPECT_FALSE(max_execution_time_step(admitted(kReady), at(100000)).has_write());
  EXPECT_FALSE(max_execution_time_step(admitted(kReady), at(100000)).recheck_at.has_value());
  auto pending = object(R"(
metadata: {name: w, namespace: ns, generation: 1}
spec: {queueName: q, maximumExecutionTimeSeconds: 1}
status:
  conditions:
  - {type: Admitted, status: "False", reason: NoReservation, message: x, lastTransitionTime: "2026-01-01T00:00:00Z"}
)");
  auto step = max_execution_time_step(pending, at(100));
  EXPECT_FALSE(step.has_write());
  EXPECT_FALSE(step.recheck_at.has_value());
}

}  // namespace
}  // namespace kueuepp::kube::jobs
