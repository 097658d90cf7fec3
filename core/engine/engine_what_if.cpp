// Engine: "what if I submit this?" answered on a copy of the engine (engine_copy.cpp).
//
// The copy runs the very cycle the live engine would run next, with the workload
// applied: the answer cannot differ from what happens, short of something else
// changing in between. Copying costs O(workloads) (figures: docs/performance.md);
// undoing a trial cycle in place would have to restore every queue, class note, flavor
// scan and counter it touches.

#include <algorithm>

#include "core/engine/engine.hpp"

namespace kueuepp::core {

std::string_view outcome_name(WhatIfAnswer::Outcome o) {
  switch (o) {
    case WhatIfAnswer::Outcome::Admitted:
      return "Admitted";
    case WhatIfAnswer::Outcome::Preempting:
      return "Preempting";
    case WhatIfAnswer::Outcome::Pending:
      return "Pending";
  }
  return "Pending";
}

WhatIfAnswer Engine::what_if(const Workload& wl, Time now, const RuntimeHints& hints) const {
  Engine trial(*this, CopyTag{});
  Workload asked = wl;
  if (asked.uid.empty()) asked.uid = "what-if";
  if (asked.creation == Time{}) asked.creation = now;
  const std::string key = asked.key();
  (void)trial.apply(asked);  // an invalid workload waits with its error, as a real one would
  (void)trial.take_decisions();  // those of the live engine, not this question's
  trial.run_cycle(now);
  Decisions d = trial.take_decisions();

  WhatIfAnswer answer;
  answer.workload = key;
  for (const auto& e : d.evictions) {
    if (e.preemptor == key) answer.victims.push_back({e.workload, e.cluster_queue, e.preemption_reason, e.message});
  }
  auto view = trial.workload(key);
  if (!view) return answer;  // not kept (cannot happen for an applied workload)
  answer.cluster_queue = view->cluster_queue;
  if (view->reserved) {
    answer.outcome = WhatIfAnswer::Outcome::Admitted;
    answer.admission = view->admission;
    answer.checks_ready = view->admitted;
    return answer;
  }
  answer.outcome = answer.victims.empty() ? WhatIfAnswer::Outcome::Pending : WhatIfAnswer::Outcome::Preempting;
  answer.pending = view->pending;
  answer.position_in_cluster_queue = view->position;
  if (view->position >= 0) {
    // Its place among its LocalQueue's workloads: those of its namespace and queue
    // ahead of it in the ClusterQueue's order.
    const std::size_t upto = static_cast<std::size_t>(view->position) + 1;
    auto refs = trial.pending_workloads(view->cluster_queue, upto);
    const std::string_view ns = std::string_view(key).substr(0, key.find('/'));
    int in_local = 0;
    for (std::size_t i = 0; refs && i + 1 < refs->size(); ++i) {
      const auto& r = (*refs)[i];
      if (r.local_queue == asked.queue_name && std::string_view(r.key).substr(0, r.key.find('/')) == ns) ++in_local;
    }
    answer.position_in_local_queue = in_local;
  }
  if (answer.outcome == WhatIfAnswer::Outcome::Preempting) {
    // Once its victims have stopped, the next cycle gives it its flavors.
    for (const auto& v : answer.victims) (void)trial.complete_eviction(v.workload);
    trial.run_cycle(now);
    if (auto after = trial.workload(key, false); after && after->reserved) answer.admission = after->admission;
    return answer;
  }
  trial.estimate_start(key, hints, answer);
  return answer;
}

void Engine::settle(Time now) {
  // Bounded like a tree round: flavor fungibility may resume a scan a few cycles on.
  for (int c = 0, idle = 0; c < 256; ++c) {
    CycleSummary s = run_cycle(now);
    Decisions d = take_decisions();
    for (const auto& e : d.evictions) (void)complete_eviction(e.workload);
    if (s.heads == 0 && d.evictions.empty()) return;
    if (s.changed || !d.evictions.empty()) {
      idle = 0;
    } else if (!s.untried_flavors || ++idle > 8) {
      return;
    }
  }
}

void Engine::estimate_start(const std::string& key, const RuntimeHints& hints, WhatIfAnswer& answer) {
  const int target = by_key_.at(key);
  StartEstimate est;
  Time t = now_;
  // Workloads already told to stop stop now; then whatever fits at once is admitted.
  for (const auto& w : workloads_) {
    if (w && w->reserved && w->evicted) (void)complete_eviction(w->key);
  }
  settle(t);
  for (std::size_t step = 0; step <= hints.max_completions; ++step) {
    const WorkloadRecord& rec = *workloads_[static_cast<std::size_t>(target)];
    if (rec.reserved) {
      est.at = rec.reserved_at;
      answer.estimate = est;
      return;
    }
    if (step == hints.max_completions) break;
    // The running workload that ends first, and what says when it ends.
    std::optional<Time> first_end;
    std::vector<std::pair<int, bool>> ending;  // id, ended at its maximum execution time
    for (const auto& w : workloads_) {
      if (!w || !w->reserved || w->finished || w->cq < 0) continue;
      std::optional<Duration> limit;
      if (hints.maximum_execution_time) limit = hints.maximum_execution_time(w->key);
      bool by_limit = limit.has_value();
      if (!limit) {
        auto avg = hints.average_runtime.find(cqs_[static_cast<std::size_t>(w->cq)].spec.name);
        if (avg != hints.average_runtime.end()) limit = avg->second;
      }
      if (!limit) continue;
      const Time end = std::max(t, w->reserved_at + *limit);
      if (!first_end || end < *first_end) {
        first_end = end;
        ending.clear();
      }
      if (end == *first_end) ending.emplace_back(w->id, by_limit);
    }
    if (!first_end) {
      answer.estimate_note = est.completions == 0
                                 ? "no running workload has a maximum execution time or a ClusterQueue average runtime"
                                 : "it would still wait when every workload with a known runtime has ended";
      return;
    }
    t = *first_end;
    for (const auto& [id, by_limit] : ending) {
      (void)finish_workload(workloads_[static_cast<std::size_t>(id)]->key);
      ++est.completions;
      (by_limit ? est.used_maximum_execution_time : est.used_average_runtime) = true;
    }
    settle(t);
  }
  answer.estimate_note = "it would still wait after " + std::to_string(hints.max_completions) + " workloads end";
}

}  // namespace kueuepp::core
