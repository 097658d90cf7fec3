#include "actors/explain_json.hpp"

#include <algorithm>

#include "kube/jobs/workload_status.hpp"
#include "core/quantity.hpp"
#include "kube/json/json.hpp"

namespace kueuepp::actors {

namespace {

json::object workload_json(const core::WorkloadView& v) {
  json::object o;
  o["workload"] = v.key;
  o["clusterQueue"] = v.cluster_queue;
  std::string state = v.finished ? "Finished"
                      : v.evicted ? "Evicting"
                      : v.admitted ? "Admitted"
                      : v.reserved ? "QuotaReserved"
                                   : "Pending";
  o["state"] = state;
  if (!v.reserved && !v.finished) {
    o["reason"] = v.pending.reason;
    o["message"] = v.pending.message;
    if (v.position >= 0) o["position"] = v.position;
  }
  if (v.admission) o["admission"] = kube::jobs::admission_json(*v.admission);
  if (v.preempted) {
    json::object p;
    p["preemptor"] = v.preempted->preemptor_key;
    p["reason"] = v.preempted->reason;
    p["message"] = v.preempted->message;
    p["at"] = core::format_rfc3339(v.preempted->at);
    o["lastPreemption"] = std::move(p);
  }
  return o;
}

json::array usage_json(const std::vector<core::ClusterQueueView::Usage>& usage) {
  json::array out;
  for (const auto& u : usage) {
    json::object o;
    o["flavor"] = u.flavor;
    o["resource"] = u.resource;
    o["total"] = core::Quantity::from_milli(u.total_milli).to_string();
    o["borrowed"] = core::Quantity::from_milli(u.borrowed_milli).to_string();
    out.push_back(std::move(o));
  }
  return out;
}

/// From the Workload as last seen: when it was created, its priority class, and its
/// conditions (each with the time it last changed), which the workload page lays out as
/// its history.
void add_object_facts(json::object& o, std::string_view workload_text) {
  if (workload_text.empty()) return;
  auto doc = json::parse(workload_text);
  if (!doc) return;
  if (const json::value* created = json::find_path(*doc, {"metadata", "creationTimestamp"})) o["createdAt"] = *created;
  if (const json::value* conditions = json::find_path(*doc, {"status", "conditions"}); conditions && conditions->is_array()) {
    json::array out;
    for (const auto& c : conditions->as_array()) {
      json::object kept;
      for (std::string_view field : {"type", "status", "reason", "message", "lastTransitionTime"}) {
        if (const json::value* v = json::find(c, field)) kept[field] = *v;
      }
      out.push_back(std::move(kept));
    }
    o["conditions"] = std::move(out);
  }
  if (const json::value* queue = json::find_path(*doc, {"spec", "queueName"})) o["localQueue"] = *queue;
  if (const json::value* priority = json::find_path(*doc, {"spec", "priority"})) o["priority"] = *priority;
}

}  // namespace

messages::ExplainReply explain(const core::Engine& engine, const messages::Explain& query, const std::string& tree,
                               std::string_view workload_text) {
  messages::ExplainReply reply;
  if (query.what == messages::Explain::What::Workload) {
    auto view = engine.workload(query.key, true);
    if (!view) {
      reply.status = 404;
      reply.json = json::dump(json::object{{"error", "workload " + query.key + " is not known to tree " + tree}});
      return reply;
    }
    json::object o = workload_json(*view);
    o["cohortTree"] = tree;
    add_object_facts(o, workload_text);
    reply.json = json::dump(o);
    return reply;
  }
  auto view = engine.cluster_queue(query.key);
  if (!view) {
    reply.status = 404;
    reply.json = json::dump(json::object{{"error", "ClusterQueue " + query.key + " is not known"}});
    return reply;
  }
  json::object o;
  o["clusterQueue"] = view->name;
  o["cohortTree"] = tree;
  o["active"] = view->active;
  if (!view->active) {
    o["inactiveReason"] = view->inactive_reason;
    o["inactiveMessage"] = view->inactive_message;
  }
  o["pendingWorkloads"] = view->pending;
  o["reservingWorkloads"] = view->reserving;
  o["admittedWorkloads"] = view->admitted;
  o["flavorsReservation"] = usage_json(view->reservation);
  o["flavorsUsage"] = usage_json(view->usage);
  // One page of the queue order: keys and priorities are views into the engine, and only
  // the page's workloads have their reasons looked up.
  json::array pending;
  const std::size_t end = query.offset + std::min(query.limit, messages::Explain::kMaxPendingPage);
  auto refs = engine.pending_workloads(query.key, end);
  if (refs) {
    for (std::size_t i = query.offset; i < refs->size(); ++i) {
      const core::PendingWorkloadRef& ref = (*refs)[i];
      json::object p;
      p["position"] = i;
      p["workload"] = ref.key;
      p["localQueue"] = ref.local_queue;
      p["priority"] = ref.priority;
      if (auto wl = engine.workload(ref.key, false)) {
        p["reason"] = wl->pending.reason;
        p["message"] = wl->pending.message;
      }
      pending.push_back(std::move(p));
    }
  }
  o["offset"] = query.offset;
  o["limit"] = query.limit;
  o["pending"] = std::move(pending);
  reply.json = json::dump(o);
  return reply;
}

}  // namespace kueuepp::actors
