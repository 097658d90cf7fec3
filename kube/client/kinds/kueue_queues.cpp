#include "kube/client/kinds/kueue_queues.hpp"

namespace kueuepp::kube::client {

std::vector<Taint> ResourceFlavor::node_taints() const {
  std::vector<Taint> out;
  const json::value* list = find({"spec", "nodeTaints"});
  if (list == nullptr || !list->is_array()) return out;
  for (const json::value& t : list->get_array()) {
    if (t.is_object()) out.push_back(Taint::from_json(t));
  }
  return out;
}

std::string_view ClusterQueue::stop_policy() const {
  const std::string_view p = string_at({"spec", "stopPolicy"});
  return p.empty() ? "None" : p;
}

std::string_view ClusterQueue::queueing_strategy() const {
  const std::string_view s = string_at({"spec", "queueingStrategy"});
  return s.empty() ? "BestEffortFIFO" : s;
}

void ClusterQueue::set_workload_counts(std::int64_t pending, std::int64_t reserving,
                                       std::int64_t admitted) {
  ensure({"status", "pendingWorkloads"}) = pending;
  ensure({"status", "reservingWorkloads"}) = reserving;
  ensure({"status", "admittedWorkloads"}) = admitted;
}

std::string_view LocalQueue::stop_policy() const {
  const std::string_view p = string_at({"spec", "stopPolicy"});
  return p.empty() ? "None" : p;
}

void LocalQueue::set_workload_counts(std::int64_t pending, std::int64_t reserving,
                                     std::int64_t admitted) {
  ensure({"status", "pendingWorkloads"}) = pending;
  ensure({"status", "reservingWorkloads"}) = reserving;
  ensure({"status", "admittedWorkloads"}) = admitted;
}

}  // namespace kueuepp::kube::client
