#include "actors/workload_status_writes.hpp"

#include "core/quantity.hpp"
#include "kube/client/conditions.hpp"

namespace kueuepp::actors {

using kube::client::Condition;
using kube::client::Object;

json::value conditions_after(const Object& workload, std::initializer_list<Condition> changes, core::Time now) {
  Object copy;
  if (const auto* existing = workload.find({"status", "conditions"})) copy.ensure({"status", "conditions"}) = *existing;
  std::string stamp = core::format_rfc3339(now);
  for (Condition c : changes) {
    c.observed_generation = workload.generation();
    copy.set_condition(c, stamp);
  }
  const auto* out = copy.find({"status", "conditions"});
  return out ? *out : json::value(json::array());
}

json::value admission_json(const core::Admission& a) {
  json::object o;
  o["clusterQueue"] = a.cluster_queue;
  json::array sets;
  for (const auto& ps : a.pod_set_assignments) {
    json::object p;
    p["name"] = ps.name;
    json::object flavors;
    for (const auto& [res, flavor] : ps.flavors) flavors[res] = flavor;
    p["flavors"] = std::move(flavors);
    json::object usage;
    for (const auto& [res, q] : ps.resource_usage) usage[res] = q.to_string();
    p["resourceUsage"] = std::move(usage);
    if (ps.count) p["count"] = *ps.count;
    sets.push_back(std::move(p));
  }
  o["podSetAssignments"] = std::move(sets);
  return o;
}

namespace {
bool condition_true(const Object& o, std::string_view type) { return o.condition_true(type); }
}  // namespace

json::value admission_status_patch(const Object& workload, const core::AdmissionDecision& d, core::Time now) {
  json::object status;
  status["admission"] = admission_json(d.admission);
  std::string cq = d.admission.cluster_queue;
  Condition reserved{"QuotaReserved", "True", "QuotaReserved", "Quota reserved in ClusterQueue " + cq, "", {}};
  Condition admitted = d.admitted
                           ? Condition{"Admitted", "True", "Admitted", "The workload is admitted", "", {}}
                           : Condition{"Admitted", "False", "UnsatisfiedAdmissionChecks",
                                       "The workload has not all admission checks", "", {}};
  // A new reservation closes the previous eviction (Evicted/Preempted reset).
  if (condition_true(workload, "Evicted") || condition_true(workload, "Preempted")) {
    status["conditions"] = conditions_after(
        workload,
        {reserved, admitted,
         Condition{"Evicted", "False", "QuotaReserved", "Previously: " + std::string(
                                                              workload.condition("Evicted")
                                                                  ? workload.condition("Evicted")->message
                                                                  : ""),
                   "", {}},
         Condition{"Preempted", "False", "QuotaReserved", "", "", {}}},
        now);
  } else {
    status["conditions"] = conditions_after(workload, {reserved, admitted}, now);
  }
  return json::object{{"status", std::move(status)}};
}

json::value pending_status_patch(const Object& workload, const core::PendingDecision& d, core::Time now) {
  json::object status;
  status["conditions"] =
      conditions_after(workload, {Condition{"QuotaReserved", "False", d.reason, d.message, "", {}}}, now);
  return json::object{{"status", std::move(status)}};
}

json::value eviction_status_patch(const Object& workload, const core::EvictionDecision& d, core::Time now) {
  json::object status;
  Condition evicted{"Evicted", "True", d.reason, d.message, "", {}};
  if (d.reason == "Preempted") {
    status["conditions"] = conditions_after(
        workload, {evicted, Condition{"Preempted", "True", d.preemption_reason, d.message, "", {}}}, now);
  } else {
    status["conditions"] = conditions_after(workload, {evicted}, now);
  }
  return json::object{{"status", std::move(status)}};
}

namespace {

json::array flavors_json(const std::vector<core::ClusterQueueView::Usage>& usage, bool with_borrowed) {
  // Grouped by flavor, in the order the view lists them.
  json::array out;
  for (const auto& u : usage) {
    json::object* flavor = nullptr;
    for (auto& f : out) {
      if (f.as_object()["name"].as_string() == u.flavor) flavor = &f.as_object();
    }
    if (flavor == nullptr) {
      out.push_back(json::object{{"name", u.flavor}, {"resources", json::array()}});
      flavor = &out.back().as_object();
    }
    json::object r{{"name", u.resource}, {"total", core::Quantity::from_milli(u.total_milli).to_string()}};
    if (with_borrowed) r["borrowed"] = core::Quantity::from_milli(u.borrowed_milli).to_string();
    (*flavor)["resources"].as_array().push_back(std::move(r));
  }
  return out;
}

json::value active_condition(const json::value* current_status, bool active, const std::string& reason,
                             const std::string& message, std::int64_t generation, core::Time now) {
  Object holder;
  if (current_status != nullptr) {
    if (const auto* c = json::find(*current_status, "conditions")) holder.ensure({"status", "conditions"}) = *c;
  }
  Condition c{"Active", active ? "True" : "False", reason, message, "", {}};
  if (generation > 0) c.observed_generation = generation;
  holder.set_condition(c, core::format_rfc3339(now));
  const auto* out = holder.find({"status", "conditions"});
  return out ? *out : json::value(json::array());
}

}  // namespace

json::value cluster_queue_status(const messages::ClusterQueueSnapshot& s, const json::value* current_status,
                                 core::Time now) {
  const auto& v = s.view;
  json::object status;
  status["pendingWorkloads"] = static_cast<std::int64_t>(v.pending);
  status["reservingWorkloads"] = static_cast<std::int64_t>(v.reserving);
  status["admittedWorkloads"] = static_cast<std::int64_t>(v.admitted);
  status["flavorsReservation"] = flavors_json(v.reservation, true);
  status["flavorsUsage"] = flavors_json(v.usage, true);
  if (v.weighted_share) status["fairSharing"] = json::object{{"weightedShare", *v.weighted_share}};
  std::string reason = v.active ? "Ready" : (v.inactive_reason.empty() ? "Unknown" : v.inactive_reason);
  std::string message = v.active ? "Can admit new workloads"
                                 : (v.inactive_message.empty() ? "Can't admit new workloads" : v.inactive_message);
  status["conditions"] = active_condition(current_status, v.active, reason, message, s.generation, now);
  return status;
}

json::value local_queue_status(const messages::LocalQueueCounts& counts, const messages::ClusterQueueSnapshot& cq,
                               const json::value* current_status, core::Time now) {
  json::object status;
  status["pendingWorkloads"] = counts.pending;
  status["reservingWorkloads"] = counts.reserving;
  status["admittedWorkloads"] = counts.admitted;
  bool active = cq.view.active;
  std::string reason = active ? "Ready" : "ClusterQueueIsInactive";
  std::string message = active ? "Can submit new workloads to localQueue" : "Can't submit new workloads to clusterQueue";
  status["conditions"] = active_condition(current_status, active, reason, message, 0, now);
  return status;
}

}  // namespace kueuepp::actors
