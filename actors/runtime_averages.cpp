#include "actors/runtime_averages.hpp"

namespace kueuepp::actors {

void RuntimeAverages::record(std::string_view cluster_queue, core::Duration runtime) {
  if (cluster_queue.empty() || runtime.count() < 0) return;
  auto it = queues_.find(cluster_queue);
  if (it == queues_.end()) it = queues_.emplace(std::string(cluster_queue), Queue{}).first;
  Queue& q = it->second;
  q.last.push_back(runtime);
  q.sum += runtime;
  if (q.last.size() > window_) {
    q.sum -= q.last.front();
    q.last.pop_front();
  }
}

std::map<std::string, core::Duration, std::less<>> RuntimeAverages::averages() const {
  std::map<std::string, core::Duration, std::less<>> out;
  for (const auto& [name, q] : queues_) {
    if (!q.last.empty()) out.emplace(name, q.sum / static_cast<core::Duration::rep>(q.last.size()));
  }
  return out;
}

std::optional<core::Duration> runtime_of(const core::Workload& wl) {
  const core::Condition* admitted = wl.condition("Admitted");
  const core::Condition* finished = wl.condition("Finished");
  if (admitted == nullptr || finished == nullptr || !wl.condition_true("Admitted") || !wl.condition_true("Finished")) {
    return std::nullopt;
  }
  if (admitted->last_transition == core::Time{} || finished->last_transition < admitted->last_transition) {
    return std::nullopt;
  }
  return std::chrono::duration_cast<core::Duration>(finished->last_transition - admitted->last_transition);
}

}  // namespace kueuepp::actors
