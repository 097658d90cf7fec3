#include "kube/visibility/what_if_api.hpp"

#include "kube/json/json.hpp"
#include "kube/visibility/visibility_api.hpp"

namespace kueuepp::kube::visibility {

namespace {

json::object workload_ref(std::string_view key) {
  const auto slash = key.find('/');
  return json::object{{"namespace", key.substr(0, slash)}, {"name", key.substr(slash + 1)}};
}

json::object admission_json(const core::Admission& a) {
  json::array pod_sets;
  for (const auto& ps : a.pod_set_assignments) {
    json::object flavors;
    for (const auto& [r, f] : ps.flavors) flavors[r] = f;
    json::object usage;
    for (const auto& [r, q] : ps.resource_usage) usage[r] = q.to_string();
    json::object o{{"name", ps.name}, {"flavors", std::move(flavors)}, {"resourceUsage", std::move(usage)}};
    if (ps.count) o["count"] = *ps.count;
    pod_sets.push_back(std::move(o));
  }
  return json::object{{"clusterQueue", a.cluster_queue}, {"podSetAssignments", std::move(pod_sets)}};
}

}  // namespace

std::string encode_what_if_result(std::string_view version, const WhatIfResult& result) {
  const core::WhatIfAnswer& a = result.answer;
  json::object status;
  status["outcome"] = core::outcome_name(a.outcome);
  status["clusterQueueName"] = a.cluster_queue;
  status["askedAt"] = core::format_rfc3339(result.asked_at);
  if (a.admission) status["admission"] = admission_json(*a.admission);
  if (a.outcome == core::WhatIfAnswer::Outcome::Admitted) status["admissionChecksReady"] = a.checks_ready;
  if (!a.victims.empty()) {
    json::array victims;
    for (const auto& v : a.victims) {
      victims.push_back(json::object{{"workload", workload_ref(v.workload)},
                                     {"clusterQueue", v.cluster_queue},
                                     {"reason", v.reason},
                                     {"message", v.message}});
    }
    status["preemptions"] = std::move(victims);
  }
  if (a.outcome != core::WhatIfAnswer::Outcome::Admitted) {
    status["pending"] = json::object{{"reason", a.pending.reason}, {"message", a.pending.message}};
    status["positionInClusterQueue"] = a.position_in_cluster_queue;
    status["positionInLocalQueue"] = a.position_in_local_queue;
  }
  if (a.estimate) {
    json::array basis;
    if (a.estimate->used_maximum_execution_time) basis.push_back("MaximumExecutionTime");
    if (a.estimate->used_average_runtime) basis.push_back("AverageRuntime");
    status["estimatedStart"] = json::object{{"time", core::format_rfc3339(a.estimate->at)},
                                            {"basis", std::move(basis)},
                                            {"workloadsEndingFirst", static_cast<std::int64_t>(a.estimate->completions)}};
  } else if (!a.estimate_note.empty()) {
    status["estimateUnavailable"] = a.estimate_note;
  }
  json::object o;
  o["kind"] = "WhatIfResult";
  o["apiVersion"] = std::string(kGroup) + "/" + std::string(version);
  json::object meta = workload_ref(a.workload);
  o["metadata"] = std::move(meta);
  o["status"] = std::move(status);
  return json::dump(o);
}

}  // namespace kueuepp::kube::visibility
