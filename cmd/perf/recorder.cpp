#include "cmd/perf/recorder.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace kueuepp::cmd::perf {

void Recorder::observe(const WorkloadObservation& ev) {
  last_event_ = std::max(last_event_, ev.at);
  auto [it, inserted] = workloads_.try_emplace(ev.uid);
  WorkloadRecord& r = it->second;
  if (inserted) {
    r.ns = ev.ns;
    r.name = ev.name;
    r.class_name = ev.class_name;
    r.first_event = ev.at;
  }
  const bool was_running = r.admitted && !r.finished;
  if (ev.admitted && !r.admitted) {
    r.time_to_admit = ev.at - r.first_event;
    if (!r.time_to_first_admit) {
      r.time_to_first_admit = r.time_to_admit;
      ++ever_admitted_;
    }
  }
  if (ev.evicted && !r.evicted) {
    ++r.evictions;
    ++evictions_;
  }
  if (ev.finished && !r.finished) {
    r.time_to_finish = ev.at - r.first_event;
    ++finished_;
  }
  r.admitted = ev.admitted;
  r.evicted = ev.evicted;
  r.finished = ev.finished;
  const bool is_running = r.admitted && !r.finished;
  running_ += (is_running ? 1 : 0) - (was_running ? 1 : 0);
}

void Recorder::observe(const ClusterQueueObservation& ev) {
  last_event_ = std::max(last_event_, ev.at);
  auto [it, inserted] = queues_.try_emplace(ev.name);
  ClusterQueueRecord& r = it->second;
  if (inserted) {
    r.name = ev.name;
    r.first_event = ev.at;
  } else if (r.last.cpu_usage_milli > 0) {
    // The usage held from the previous event until this one.
    r.cpu_used += r.last.cpu_usage_milli * std::max<Millis>(0, ev.at - r.last.at);
  }
  r.class_name = ev.class_name;
  r.cpu_max_usage = std::max(r.cpu_max_usage, ev.cpu_usage_milli);
  ++r.events;
  r.last = ev;
}

bool Recorder::queues_idle() const { return busy_queues() == 0; }

std::int64_t Recorder::busy_queues() const {
  std::int64_t busy = 0;
  for (const auto& [name, q] : queues_) {
    if (q.last.active && (q.last.pending > 0 || q.last.reserving > 0)) ++busy;
  }
  return busy;
}

std::int64_t ClusterQueueClassSummary::cpu_average_usage() const {
  Millis t = monitoring_ms();
  return t > 0 ? cpu_used / t : 0;
}

double ClusterQueueClassSummary::usage_percent() const {
  Millis t = monitoring_ms();
  if (t <= 0 || nominal_quota <= 0) return 0;
  return static_cast<double>(cpu_used) * 100.0 / (static_cast<double>(nominal_quota) * static_cast<double>(t));
}

namespace {

/// Nearest-rank percentile of a sorted list.
std::int64_t percentile(const std::vector<std::int64_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  rank = std::clamp<std::size_t>(rank, 1, sorted.size());
  return sorted[rank - 1];
}

}  // namespace

Summary summarize(const Recorder& recorder) {
  Summary s;
  for (const auto& [name, q] : recorder.cluster_queues()) {
    auto [it, inserted] = s.cluster_queue_classes.try_emplace(q.class_name);
    ClusterQueueClassSummary& c = it->second;
    if (inserted) {
      c.first_event = q.first_event;
      c.last_event = q.last.at;
    }
    ++c.queues;
    c.cpu_used += q.cpu_used;
    c.nominal_quota += q.last.cpu_nominal_milli;
    c.cpu_max_usage = std::max(c.cpu_max_usage, q.cpu_max_usage);
    c.first_event = std::min(c.first_event, q.first_event);
    c.last_event = std::max(c.last_event, q.last.at);
  }

  std::map<std::string, std::vector<std::int64_t>> admission_times;
  std::map<std::string, std::int64_t> first_admission_totals;
  for (const auto& [uid, w] : recorder.workloads()) {
    WorkloadClassSummary& c = s.workload_classes[w.class_name];
    ++c.count;
    c.total_evictions += w.evictions;
    if (w.time_to_admit) {
      ++c.admitted;
      c.total_time_to_admission_ms += *w.time_to_admit;
      admission_times[w.class_name].push_back(*w.time_to_admit);
      first_admission_totals[w.class_name] += w.time_to_first_admit.value_or(*w.time_to_admit);
    }
    if (w.time_to_finish) {
      ++c.finished;
      c.total_time_to_finish_ms += *w.time_to_finish;
    }
  }
  for (auto& [name, c] : s.workload_classes) {
    if (c.count == 0) continue;
    c.average_time_to_admission_ms = c.total_time_to_admission_ms / c.count;
    c.average_time_to_finish_ms = c.total_time_to_finish_ms / c.count;
    c.average_time_to_first_admission_ms = first_admission_totals[name] / c.count;
    auto& times = admission_times[name];
    std::sort(times.begin(), times.end());
    c.p50_time_to_admission_ms = percentile(times, 0.50);
    c.p90_time_to_admission_ms = percentile(times, 0.90);
    c.max_time_to_admission_ms = times.empty() ? 0 : times.back();
  }
  return s;
}

}  // namespace kueuepp::cmd::perf
