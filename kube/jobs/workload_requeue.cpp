#include "kube/jobs/workload_requeue.hpp"

#include <algorithm>
#include <span>

#include "core/engine/decisions.hpp"
#include "kube/jobs/conditions_list.hpp"
#include "kube/jobs/workload_status.hpp"

namespace kueuepp::kube::jobs {

using client::Condition;

namespace {

constexpr std::string_view kPodsReadyTimeout = "PodsReadyTimeout";
constexpr std::string_view kDeactivationTarget = "DeactivationTarget";

std::optional<std::int64_t> generation_of(const client::Object& wl) {
  std::int64_t g = wl.generation();
  return g > 0 ? std::optional<std::int64_t>(g) : std::nullopt;
}

bool holds_admission(const client::Object& wl) {
  const json::value* a = wl.find({"status", "admission"});
  return a != nullptr && !a->is_null() && wl.condition_true("QuotaReserved");
}

bool is_active(const client::Object& wl) { return wl.bool_at({"spec", "active"}).value_or(true); }

std::optional<core::Time> transition_of(const std::optional<Condition>& c) {
  if (!c || c->last_transition_time.empty()) return std::nullopt;
  auto t = core::parse_rfc3339(c->last_transition_time);
  if (!t) return std::nullopt;
  return *t;
}

std::optional<core::Time> requeue_at_of(const client::Object& wl) {
  std::string_view at = wl.string_at({"status", "requeueState", "requeueAt"});
  if (at.empty()) return std::nullopt;
  auto t = core::parse_rfc3339(at);
  if (!t) return std::nullopt;
  return *t;
}

RequeueStep status_write(json::object status, std::string what) {
  RequeueStep step;
  step.target = RequeueStep::Target::Status;
  step.patch = json::object{{"status", std::move(status)}};
  step.what = std::move(what);
  return step;
}

/// Removes the DeactivationTarget entry from a conditions list (Kueue drops it once the
/// deactivation it asked for is carried out).
void drop_target(json::value& conditions) {
  if (!conditions.is_array()) return;
  auto& a = conditions.get_array();
  auto gone = std::remove_if(a.begin(), a.end(),
                             [](const json::value& c) { return json::get_string(c, "type") == kDeactivationTarget; });
  a.erase(gone, a.end());
}

/// When a not-ready admitted Workload times out, and the cause counted for it.
struct Deadline {
  core::Time at;
  std::string cause;
};

std::optional<Deadline> pods_ready_deadline(const client::Object& wl, const RequeuingPolicy& policy) {
  auto ready = wl.condition("PodsReady");
  if (ready && ready->status == "True") return std::nullopt;
  if (ready && ready->reason == "WaitForRecovery") {
    if (policy.recovery_timeout.count() <= 0) return std::nullopt;
    auto since = transition_of(ready);
    if (!since) return std::nullopt;
    return Deadline{*since + policy.recovery_timeout, "WaitForRecovery"};
  }
  auto admitted = transition_of(wl.condition("Admitted"));
  if (!admitted) return std::nullopt;
  return Deadline{*admitted + policy.timeout, "WaitForStart"};
}

}  // namespace

std::chrono::seconds requeue_backoff(const RequeuingPolicy& policy, std::int32_t n) {
  const std::int64_t cap = std::max<std::int64_t>(policy.backoff_max_seconds, 0);
  std::int64_t s = std::max<std::int64_t>(policy.backoff_base_seconds, 0);
  for (std::int32_t i = 1; i < n && s < cap; ++i) s *= 2;
  return std::chrono::seconds(std::min(s, cap));
}

RequeueStep pods_ready_timeout_step(const client::Object& wl, const RequeuingPolicy& policy, core::Time now) {
  RequeueStep step;
  if (!is_active(wl) || wl.condition_true("Evicted") || !holds_admission(wl) || !wl.condition_true("Admitted")) {
    return step;
  }
  auto deadline = pods_ready_deadline(wl, policy);
  if (!deadline) return step;
  if (now < deadline->at) {
    step.recheck_at = deadline->at;
    return step;
  }
  const std::int32_t count = static_cast<std::int32_t>(wl.int_at({"status", "requeueState", "count"}).value_or(0)) + 1;
  if (policy.backoff_limit_count && count > *policy.backoff_limit_count) {
    // Out of retries: mark it; deactivation_step then deactivates and evicts it.
    Condition target{std::string(kDeactivationTarget), "True", "RequeuingLimitExceeded",
                     "exceeding the maximum number of re-queuing retries", "", generation_of(wl)};
    if (auto current = wl.condition(kDeactivationTarget); current && current->status == "True") return step;
    json::object status;
    status["conditions"] = conditions_after(wl, {target}, now);
    return status_write(std::move(status), "requeuing limit exceeded: deactivating");
  }

  core::EvictionDecision eviction;
  eviction.workload = wl.key();
  eviction.reason = std::string(kPodsReadyTimeout);
  eviction.message = "Exceeded the PodsReady timeout " + wl.key();
  eviction.underlying_cause = deadline->cause;
  eviction.at = now;
  auto patch = eviction_patch(wl, eviction, now);
  if (!patch) return step;

  // requeueAt only ever moves later; second precision as the API stores it.
  core::Time requeue_at = std::chrono::floor<std::chrono::seconds>(now + requeue_backoff(policy, count));
  if (auto current = requeue_at_of(wl); current && *current > requeue_at) requeue_at = *current;
  json::object requeue_state;
  requeue_state["count"] = count;
  requeue_state["requeueAt"] = core::format_rfc3339(requeue_at);
  patch->as_object()["status"].as_object()["requeueState"] = std::move(requeue_state);

  step.target = RequeueStep::Target::Status;
  step.patch = std::move(*patch);
  step.what = "evicted: " + eviction.message;
  step.event_reason = "EvictedDueToPodsReadyTimeout";
  step.event_message = eviction.message;
  step.evicted_reason = std::string(kPodsReadyTimeout);
  step.evicted_cause = deadline->cause;
  return step;
}

RequeueStep max_execution_time_step(const client::Object& wl, core::Time now) {
  RequeueStep step;
  auto limit = wl.int_at({"spec", "maximumExecutionTimeSeconds"});
  // An inactive or evicted Workload is already on its way out; timing it again would
  // mark it anew after deactivation_step cleared the mark.
  if (!limit || !is_active(wl) || wl.condition_true("Evicted") || !wl.condition_true("Admitted")) return step;
  auto admitted_at = transition_of(wl.condition("Admitted"));
  if (!admitted_at) return step;
  const std::int64_t past = wl.int_at({"status", "accumulatedPastExecutionTimeSeconds"}).value_or(0);
  const core::Time deadline = *admitted_at + std::chrono::seconds(*limit - past);
  if (now < deadline) {
    step.recheck_at = deadline;
    return step;
  }
  if (auto current = wl.condition(kDeactivationTarget); current && current->status == "True") return step;
  Condition target{std::string(kDeactivationTarget), "True", "MaximumExecutionTimeExceeded",
                   "exceeding the maximum execution time", "", generation_of(wl)};
  json::object status;
  status["conditions"] = conditions_after(wl, {target}, now);
  // Kueue starts the count afresh for whatever admission comes after this one.
  if (wl.find({"status", "accumulatedPastExecutionTimeSeconds"}) != nullptr) {
    status["accumulatedPastExecutionTimeSeconds"] = nullptr;
  }
  step = status_write(std::move(status), "maximum execution time exceeded: deactivating");
  step.event_reason = "MaximumExecutionTimeExceeded";
  step.event_message = "The maximum execution time (" + std::to_string(*limit) + "s) exceeded";
  step.event_warning = true;
  return step;
}

RequeueStep requeue_gate_step(const client::Object& wl, core::Time now) {
  RequeueStep step;
  if (!is_active(wl) || holds_admission(wl)) return step;
  auto requeued = wl.condition("Requeued");
  if (!requeued || requeued->status != "False") return step;
  if (requeued->reason.starts_with("Deactivated")) {
    json::object status;
    status["conditions"] = conditions_after(
        wl, {Condition{"Requeued", "True", "Reactivated", "The workload was reactivated", "", generation_of(wl)}}, now);
    return status_write(std::move(status), "reactivated");
  }
  if (requeued->reason != kPodsReadyTimeout && requeued->reason != "AdmissionCheck") return step;
  if (auto at = requeue_at_of(wl); at && now < *at) {
    step.recheck_at = *at;
    return step;
  }
  json::object status;
  status["conditions"] = conditions_after(
      wl, {Condition{"Requeued", "True", "BackoffFinished", "The workload backoff was finished", "", generation_of(wl)}},
      now);
  if (const auto* rs = wl.find({"status", "requeueState"}); rs != nullptr && rs->is_object()) {
    json::object state = rs->as_object();
    state.erase("requeueAt");
    status["requeueState"] = std::move(state);
  }
  return status_write(std::move(status), "backoff finished");
}

RequeueStep deactivation_step(const client::Object& wl, core::Time now) {
  RequeueStep step;
  auto target = wl.condition(kDeactivationTarget);
  if (is_active(wl)) {
    if (!target || target->status != "True") return step;
    step.target = RequeueStep::Target::Spec;
    step.patch = json::object{{"spec", json::object{{"active", false}}}};
    step.what = "deactivated: " + target->message;
    return step;
  }
  const bool has_target = target.has_value();
  const bool has_requeue_state = wl.find({"status", "requeueState"}) != nullptr &&
                                 !wl.find({"status", "requeueState"})->is_null();
  if (holds_admission(wl) && !wl.condition_true("Evicted")) {
    core::EvictionDecision eviction;
    eviction.workload = wl.key();
    eviction.reason = "Deactivated";
    eviction.message = "The workload is deactivated";
    if (target && target->status == "True") {
      eviction.reason += "DueTo" + target->reason;
      eviction.message += " due to " + target->message;
    }
    eviction.at = now;
    auto patch = eviction_patch(wl, eviction, now);
    if (!patch) return step;
    auto& status = patch->as_object()["status"].as_object();
    if (has_target) drop_target(status["conditions"]);  // eviction_patch wrote the whole list
    if (has_requeue_state) status["requeueState"] = nullptr;
    step.target = RequeueStep::Target::Status;
    step.patch = std::move(*patch);
    step.what = "evicted: " + eviction.message;
    // Kueue's reportEvictedWorkload: "EvictedDueTo" + reason, + "DueTo" + cause.
    step.event_reason = "EvictedDueTo" + eviction.reason;
    step.event_message = eviction.message;
    // Kueue counts a deactivation under reason Deactivated, with the DeactivationTarget's
    // reason (if any) as the underlying cause.
    step.evicted_reason = "Deactivated";
    if (target && target->status == "True") step.evicted_cause = target->reason;
    return step;
  }
  if (!has_target && !has_requeue_state) return step;
  json::object status;
  if (has_target) {
    json::value list = conditions_after(wl, std::span<const Condition>{}, now);
    drop_target(list);
    status["conditions"] = std::move(list);
  }
  if (has_requeue_state) status["requeueState"] = nullptr;
  return status_write(std::move(status), "deactivated: cleared the requeue state");
}

}  // namespace kueuepp::kube::jobs
