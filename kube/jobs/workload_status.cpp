#include "kube/jobs/workload_status.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "kube/jobs/conditions_list.hpp"
#include "kube/jobs/resource_quantity.hpp"
#include "kube/jobs/semantic_equal.hpp"

namespace kueuepp::kube::jobs {

bool holds_quota_reservation(const client::Object& workload) {
  const json::value* admission = workload.find({"status", "admission"});
  return admission != nullptr && !admission->is_null() && workload.condition_true("QuotaReserved");
}

bool is_admitted(const client::Object& workload) {
  return holds_quota_reservation(workload) && workload.condition_true("Admitted");
}

using client::Condition;

namespace {

constexpr std::string_view kDeactivated = "Deactivated";
constexpr std::string_view kDueTo = "DueTo";

std::optional<std::int64_t> generation_of(const client::Object& wl) {
  std::int64_t g = wl.generation();
  return g > 0 ? std::optional<std::int64_t>(g) : std::nullopt;
}

Condition condition(std::string type, bool status, std::string reason, std::string message,
                    std::optional<std::int64_t> generation) {
  return Condition{std::move(type), status ? "True" : "False", std::move(reason), std::move(message), "", generation};
}

/// resetActiveCondition: a True condition becomes False "Previously: <message>".
void reset_if_active(const client::Object& wl, std::string_view type, std::string_view reason,
                     std::vector<Condition>& changes) {
  auto prev = wl.condition(type);
  if (!prev || prev->status != "True") return;
  changes.push_back(condition(std::string(type), false, std::string(reason), "Previously: " + prev->message,
                              generation_of(wl)));
}

bool holds_admission(const client::Object& wl) {
  const json::value* a = wl.find({"status", "admission"});
  return a != nullptr && !a->is_null();
}

/// {"status": status} unless every field of `status` already reads so on `wl`.
StatusPatch patch_if_changed(const client::Object& wl, json::object status) {
  bool changed = false;
  for (const auto& [key, value] : status) {
    if (!semantically_equal(wl.find({"status", key}), &value)) changed = true;
  }
  if (!changed) return std::nullopt;
  return json::value(json::object{{"status", std::move(status)}});
}

/// The Admitted condition SyncAdmittedCondition writes once the reservation is gone.
Condition no_reservation(const client::Object& wl) {
  return condition("Admitted", false, "NoReservation", "The workload has no reservation", generation_of(wl));
}

/// SyncAdmittedCondition's bookkeeping when Admitted leaves True: the seconds it was True
/// are added to status.accumulatedPastExecutionTimeSeconds, which the maximum execution
/// time counts across evictions.
void accumulate_admitted_time(const client::Object& wl, core::Time now, json::object& status) {
  auto admitted = wl.condition("Admitted");
  if (!admitted || admitted->status != "True") return;
  auto since = core::parse_rfc3339(admitted->last_transition_time);
  if (!since) return;
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(now - *since).count();
  const std::int64_t past = wl.int_at({"status", "accumulatedPastExecutionTimeSeconds"}).value_or(0);
  status["accumulatedPastExecutionTimeSeconds"] = past + std::max<std::int64_t>(seconds, 0);
}

/// Admission checks reset to Pending after an eviction (a Retry counts one more retry).
std::optional<json::array> reset_admission_checks(const client::Object& wl, core::Time now) {
  const json::value* checks = wl.find({"status", "admissionChecks"});
  if (checks == nullptr || !checks->is_array() || checks->get_array().empty()) return std::nullopt;
  json::array out;
  for (const json::value& check : checks->get_array()) {
    std::string_view state = json::get_string(check, "state");
    if (state == "Pending") {
      out.push_back(check);
      continue;
    }
    json::object reset;
    reset["name"] = json::get_string(check, "name");
    reset["state"] = "Pending";
    reset["lastTransitionTime"] = core::format_rfc3339(now);
    reset["message"] = "Reset to Pending after eviction. Previously: " + std::string(state);
    if (const json::value* r = json::find(check, "requeueAfterSeconds"); r && !r->is_null()) {
      reset["requeueAfterSeconds"] = *r;
    }
    if (state == "Retry") {
      std::int64_t retries = 0;
      if (const json::value* r = json::find(check, "retryCount"); r && r->is_number()) {
        retries = r->to_number<std::int64_t>();
      }
      reset["retryCount"] = retries + 1;
    }
    out.push_back(std::move(reset));
  }
  return out;
}

/// schedulingStats with the eviction (reason, underlying cause) counted once more.
json::object scheduling_stats_after(const client::Object& wl, std::string_view reason, std::string_view cause) {
  json::object stats;
  if (const json::value* s = wl.find({"status", "schedulingStats"}); s && s->is_object()) stats = s->get_object();
  json::value& evictions = stats["evictions"];
  if (!evictions.is_array()) evictions = json::array{};
  for (json::value& e : evictions.get_array()) {
    if (json::get_string(e, "reason") == reason && json::get_string(e, "underlyingCause") == cause) {
      const json::value* c = json::find(e, "count");
      e.as_object()["count"] = (c && c->is_number() ? c->to_number<std::int64_t>() : 0) + 1;
      return stats;
    }
  }
  evictions.get_array().push_back(json::object{{"reason", reason}, {"underlyingCause", cause}, {"count", 1}});
  return stats;
}

}  // namespace

json::value admission_json(const core::Admission& admission) {
  json::object o;
  o["clusterQueue"] = admission.cluster_queue;
  json::array sets;
  for (const auto& ps : admission.pod_set_assignments) {
    json::object p;
    p["name"] = ps.name;
    json::object flavors;
    for (const auto& [res, flavor] : ps.flavors) flavors[res] = flavor;
    p["flavors"] = std::move(flavors);
    p["resourceUsage"] = resource_list_json(ps.resource_usage);
    if (ps.count) p["count"] = *ps.count;
    sets.push_back(std::move(p));
  }
  o["podSetAssignments"] = std::move(sets);
  return o;
}

std::optional<json::value> synced_admission_checks(const client::Object& wl, const std::vector<std::string>& names,
                                                   core::Time now) {
  const json::value* current = wl.find({"status", "admissionChecks"});
  const json::array* listed = current != nullptr && current->is_array() ? &current->get_array() : nullptr;
  if (names.empty()) {
    if (listed == nullptr || listed->empty()) return std::nullopt;
    return json::value(nullptr);
  }
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  json::array out;
  for (const auto& name : sorted) {
    const json::value* existing = nullptr;
    if (listed != nullptr) {
      for (const json::value& c : *listed) {
        if (json::get_string(c, "name") == name) existing = &c;
      }
    }
    if (existing != nullptr) {
      out.push_back(*existing);
      continue;
    }
    json::object fresh;
    fresh["name"] = name;
    fresh["state"] = "Pending";
    fresh["lastTransitionTime"] = core::format_rfc3339(now);
    fresh["message"] = "";
    out.push_back(std::move(fresh));
  }
  json::value result(std::move(out));
  if (semantically_equal(current, &result)) return std::nullopt;
  return result;
}

StatusPatch admission_checks_patch(const client::Object& wl, const std::vector<std::string>& names, core::Time now) {
  auto checks = synced_admission_checks(wl, names, now);
  if (!checks) return std::nullopt;
  json::object status;
  status["admissionChecks"] = std::move(*checks);
  return json::value(json::object{{"status", std::move(status)}});
}

StatusPatch admitted_patch(const client::Object& wl, core::Time now) {
  if (!holds_admission(wl) || !wl.condition_true("QuotaReserved") || wl.condition_true("Admitted")) return std::nullopt;
  json::object status;
  status["conditions"] = conditions_after(
      wl, {condition("Admitted", true, "Admitted", "The workload is admitted", generation_of(wl))}, now);
  return patch_if_changed(wl, std::move(status));
}

StatusPatch deactivation_target_patch(const client::Object& wl, std::string_view message, core::Time now) {
  if (auto current = wl.condition("DeactivationTarget"); current && current->status == "True") return std::nullopt;
  json::object status;
  status["conditions"] = conditions_after(
      wl, {condition("DeactivationTarget", true, "AdmissionCheck", std::string(message), generation_of(wl))}, now);
  return patch_if_changed(wl, std::move(status));
}

StatusPatch admission_patch(const client::Object& wl, const core::AdmissionDecision& d, core::Time now) {
  const std::string reason = "QuotaReserved";
  std::vector<Condition> changes;
  changes.push_back(condition("QuotaReserved", true, reason, "Quota reserved in ClusterQueue " + d.admission.cluster_queue,
                              generation_of(wl)));
  reset_if_active(wl, "Evicted", reason, changes);
  reset_if_active(wl, "Preempted", reason, changes);
  reset_if_active(wl, "BlockedOnPreemptionGates", reason, changes);
  changes.push_back(d.admitted ? condition("Admitted", true, "Admitted", "The workload is admitted", generation_of(wl))
                               : condition("Admitted", false, "UnsatisfiedAdmissionChecks",
                                           "The workload has not all checks ready", generation_of(wl)));
  json::object status;
  status["admission"] = admission_json(d.admission);
  // The admission's resourceUsage supersedes the pending workload's resourceRequests.
  status["resourceRequests"] = nullptr;
  status["conditions"] = conditions_after(wl, changes, now);
  if (auto checks = synced_admission_checks(wl, d.admission_checks, now)) status["admissionChecks"] = std::move(*checks);
  return patch_if_changed(wl, std::move(status));
}

StatusPatch pending_patch(const client::Object& wl, const core::PendingDecision& d, core::Time now) {
  json::object status;
  std::vector<Condition> changes;
  if (!d.reason.empty()) {
    if (holds_admission(wl)) status["admission"] = nullptr;
    changes.push_back(condition("QuotaReserved", false, d.reason, d.message, generation_of(wl)));
    changes.push_back(no_reservation(wl));
    accumulate_admitted_time(wl, now, status);
  }
  if (!d.requeued_reason.empty()) {
    changes.push_back(condition("Requeued", true, d.requeued_reason, d.requeued_message, generation_of(wl)));
  }
  if (changes.empty()) return std::nullopt;
  status["conditions"] = conditions_after(wl, changes, now);
  return patch_if_changed(wl, std::move(status));
}

StatusPatch eviction_patch(const client::Object& wl, const core::EvictionDecision& d, core::Time now) {
  std::vector<Condition> changes;
  if (!d.preemption_reason.empty()) {
    // SetPreemptedCondition writes no observedGeneration.
    changes.push_back(condition("Preempted", true, d.preemption_reason, d.message, std::nullopt));
  }
  changes.push_back(condition("Evicted", true, d.reason, d.message, generation_of(wl)));
  if (auto gates = wl.condition("BlockedOnPreemptionGates"); gates && gates->status == "True") {
    changes.push_back(condition("BlockedOnPreemptionGates", false, d.reason, d.message, generation_of(wl)));
  }
  // Metrics and stats count "Deactivated" with its underlying cause apart.
  std::string_view stats_reason = d.reason;
  std::string_view cause = d.underlying_cause;
  if (stats_reason.starts_with(std::string(kDeactivated) + std::string(kDueTo))) {
    cause = stats_reason.substr(kDeactivated.size() + kDueTo.size());
    stats_reason = kDeactivated;
  }
  json::object status;
  status["conditions"] = conditions_after(wl, changes, now);
  if (auto checks = reset_admission_checks(wl, now)) status["admissionChecks"] = std::move(*checks);
  for (const char* field : {"clusterName", "nominatedClusterNames", "unhealthyNodes"}) {
    if (wl.find({"status", field}) != nullptr) status[field] = nullptr;
  }
  // Counting is not idempotent: skip it when the Workload already shows this eviction.
  auto evicted = wl.condition("Evicted");
  bool already = evicted && evicted->status == "True" && evicted->reason == d.reason &&
                 evicted->message == truncate_condition_message(d.message);
  if (!already) status["schedulingStats"] = scheduling_stats_after(wl, stats_reason, cause);
  if (d.requeue_at) {
    // Kueue's SetRequeueState for an admission check's requeueAfterSeconds: requeueAt
    // only ever moves later, the count is left as it is.
    json::object requeue_state;
    if (const json::value* rs = wl.find({"status", "requeueState"}); rs != nullptr && rs->is_object()) {
      requeue_state = rs->get_object();
    }
    core::Time at = std::chrono::floor<std::chrono::seconds>(*d.requeue_at);
    auto current = core::parse_rfc3339(json::get_string(requeue_state, "requeueAt"));
    if (!current || *current < at) requeue_state["requeueAt"] = core::format_rfc3339(at);
    status["requeueState"] = std::move(requeue_state);
  }
  return patch_if_changed(wl, std::move(status));
}

StatusPatch eviction_completed_patch(const client::Object& wl, core::Time now, const WorkloadStatusOptions& options) {
  auto evicted = wl.condition("Evicted");
  if (!evicted || evicted->status != "True" || !wl.condition_true("QuotaReserved")) return std::nullopt;
  const bool requeue = evicted->reason == "Preempted" || evicted->reason == "NodeFailures";
  // SetRequeuedCondition, then UnsetQuotaReservationWithCondition (which syncs Admitted).
  json::object status;
  status["conditions"] = conditions_after(
      wl,
      {condition("Requeued", requeue, evicted->reason, evicted->message, generation_of(wl)),
       condition("QuotaReserved", false,
                 options.unadmitted_workloads_observability ? "PendingEvaluation" : "Pending", evicted->message,
                 generation_of(wl)),
       no_reservation(wl)},
      now);
  status["admission"] = nullptr;
  accumulate_admitted_time(wl, now, status);
  return patch_if_changed(wl, std::move(status));
}

StatusPatch finished_patch(const client::Object& wl, std::string_view reason, std::string_view message,
                           core::Time now) {
  if (wl.condition_true("Finished")) return std::nullopt;
  json::object status;
  status["conditions"] = conditions_after(
      wl, {condition("Finished", true, std::string(reason), std::string(message), generation_of(wl))}, now);
  return patch_if_changed(wl, std::move(status));
}

StatusPatch finished_patch(const client::Object& wl, const JobFinish& finish, core::Time now) {
  return finished_patch(wl, finish.workload_reason(), finish.message, now);
}

Condition pods_ready_condition(const client::Object& wl, bool pods_ready) {
  static constexpr std::string_view kNotReady = "Not all pods are ready or succeeded";
  static constexpr std::string_view kWaitingForRecovery = "At least one pod has failed, waiting for recovery";
  static constexpr std::string_view kReady = "All pods reached readiness and the workload is running";
  auto make = [&](bool status, std::string_view reason, std::string_view message) {
    return condition("PodsReady", status, std::string(reason), std::string(message), generation_of(wl));
  };
  if (!wl.condition_true("Admitted")) return make(false, "WaitForStart", kNotReady);
  auto current = wl.condition("PodsReady");
  if (pods_ready) {
    bool recovering = current && (current->reason == "WaitForRecovery" || current->reason == "Recovered");
    return make(true, recovering ? "Recovered" : "Started", kReady);
  }
  if (!current) return make(false, "WaitForStart", kNotReady);
  if (current->status == "True" || current->reason == "WaitForRecovery") {
    return make(false, "WaitForRecovery", kWaitingForRecovery);
  }
  return make(false, "WaitForStart", kNotReady);
}

StatusPatch pods_ready_patch(const client::Object& wl, bool pods_ready, core::Time now) {
  Condition c = pods_ready_condition(wl, pods_ready);
  if (auto current = wl.condition("PodsReady"); current && current->status == c.status && current->reason == c.reason) {
    return std::nullopt;
  }
  json::object status;
  status["conditions"] = conditions_after(wl, {c}, now);
  return json::value(json::object{{"status", std::move(status)}});
}

}  // namespace kueuepp::kube::jobs
