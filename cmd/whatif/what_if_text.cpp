#include "cmd/whatif/what_if_text.hpp"

namespace kueuepp::cmd {

namespace {

std::string str(const json::value* v) {
  if (v == nullptr) return "";
  if (v->is_string()) return std::string(v->as_string());
  return json::dump(*v);
}

std::string at(const json::value& v, std::initializer_list<std::string_view> path) {
  return str(json::find_path(v, path));
}

/// "pod set main: cpu on default-flavor (2), memory on default-flavor (1Gi)"
std::string flavors(const json::value& admission) {
  std::string out;
  const json::value* sets = json::find(admission, "podSetAssignments");
  if (sets == nullptr || !sets->is_array()) return out;
  for (const auto& ps : sets->as_array()) {
    out += "    pod set " + at(ps, {"name"});
    if (const json::value* count = json::find(ps, "count")) out += " (" + str(count) + " pods)";
    out += ":";
    const json::value* f = json::find(ps, "flavors");
    std::string sep = " ";
    for (const auto& [resource, flavor] : f != nullptr && f->is_object() ? f->as_object() : json::object{}) {
      const std::string name(resource.data(), resource.size());
      out += sep + name + " on flavor " + str(&flavor);
      if (const json::value* usage = json::find_path(ps, {"resourceUsage", name})) out += " (" + str(usage) + ")";
      sep = ", ";
    }
    out += "\n";
  }
  return out;
}

}  // namespace

std::string what_if_text(const json::value& result, const std::string& local_queue) {
  const json::value* status = json::find(result, "status");
  if (status == nullptr) return "the answer has no status\n";
  const std::string workload = at(result, {"metadata", "namespace"}) + "/" + at(result, {"metadata", "name"});
  const std::string cq = at(*status, {"clusterQueueName"});
  const std::string outcome = at(*status, {"outcome"});
  std::string out = "Workload " + workload + " on LocalQueue " + local_queue +
                    (cq.empty() ? std::string(" (no ClusterQueue)") : " (ClusterQueue " + cq + ")") + ", asked at " +
                    at(*status, {"askedAt"}) + ":\n";
  const json::value* admission = json::find(*status, "admission");
  if (outcome == "Admitted") {
    out += "  admitted now";
    if (const json::value* ready = json::find(*status, "admissionChecksReady"); ready != nullptr && ready->is_bool() &&
                                                                              !ready->as_bool()) {
      out += " (quota reserved; it starts once its admission checks are Ready)";
    }
    out += ", on:\n";
    if (admission != nullptr) out += flavors(*admission);
    return out;
  }
  if (outcome == "Preempting") {
    const json::value* victims = json::find(*status, "preemptions");
    const std::size_t n = victims != nullptr && victims->is_array() ? victims->as_array().size() : 0;
    out += "  admitted after preempting " + std::to_string(n) + " workload(s):\n";
    for (std::size_t i = 0; i < n; ++i) {
      const json::value& v = victims->as_array()[i];
      out += "    " + at(v, {"workload", "namespace"}) + "/" + at(v, {"workload", "name"}) + " in ClusterQueue " +
             at(v, {"clusterQueue"}) + ", by " + at(v, {"reason"}) + ": " + at(v, {"message"}) + "\n";
    }
    if (admission != nullptr) out += "  then admitted on:\n" + flavors(*admission);
    return out;
  }
  out += "  pending: " + at(*status, {"pending", "reason"}) + ": " + at(*status, {"pending", "message"}) + "\n";
  out += "  position " + at(*status, {"positionInClusterQueue"}) + " in its ClusterQueue, " +
         at(*status, {"positionInLocalQueue"}) + " in its LocalQueue (0 is next)\n";
  if (const json::value* est = json::find(*status, "estimatedStart")) {
    std::string basis;
    const json::value* b = json::find(*est, "basis");
    for (const auto& x : b != nullptr && b->is_array() ? b->as_array() : json::array{}) {
      if (!basis.empty()) basis += " and ";
      basis += str(&x) == "MaximumExecutionTime" ? "their maximum execution time" : "their ClusterQueue's average runtime";
    }
    out += "  estimated start: " + at(*est, {"time"}) + ", if running workloads end at " + basis + " (" +
           at(*est, {"workloadsEndingFirst"}) + " end first) and nothing else arrives\n";
  } else if (const json::value* why = json::find(*status, "estimateUnavailable")) {
    out += "  no start estimate: " + str(why) + "\n";
  }
  return out;
}

}  // namespace kueuepp::cmd
