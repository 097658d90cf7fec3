// Admission engine benchmarks on the shapes of Kueue's scheduler performance tests
// (../shared/perf): baseline (5 cohorts x 6 queues, 15,000 pending) and large-scale
// (10 cohorts x 100 queues, 50,000 pending). Every queue: nominal 20 cpu, borrowing
// limit 100, reclaimWithinCohort Any, withinClusterQueue LowerPriority; workloads of
// 1 cpu (priority 50), 5 cpu (100) and 20 cpu (200).
//
// Reported: the cold pass (everything pending, run to quiescence), the generator's
// timeline replayed with zero API latency (the engine's cost over a whole perf run, and
// the per-class waits an ideal controller with this engine would get: the floor under
// `kueuepp perf`'s figures), the incremental pass after one workload finishes,
// nanoseconds per head evaluated and per admission, and bytes of engine memory per
// pending workload.

#include <benchmark/benchmark.h>
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/engine/engine.hpp"

namespace {

using namespace kueuepp::core;

struct Shape {
  int cohorts;
  int queues_per_cohort;
  int small, medium, large;                                  // per queue
  int small_every_ms, medium_every_ms, large_every_ms;       // creation intervals
  int small_runs_ms, medium_runs_ms, large_runs_ms;          // runtime once admitted
};
// As in ../shared/perf/kueue-baseline and kueue-large-scale/generator.yaml.
constexpr Shape kBaseline{5, 6, 350, 100, 50, 100, 500, 1200, 200, 500, 1000};
constexpr Shape kLargeScale{10, 100, 35, 11, 4, 60, 300, 700, 150, 350, 700};

enum class WorkloadClass { Small, Medium, Large };

WorkloadClass class_of(const Workload& w) {
  if (w.priority == 200) return WorkloadClass::Large;
  return w.priority == 100 ? WorkloadClass::Medium : WorkloadClass::Small;
}

std::chrono::milliseconds runtime_of(const Shape& s, const Workload& w) {
  switch (class_of(w)) {
    case WorkloadClass::Small: return std::chrono::milliseconds(s.small_runs_ms);
    case WorkloadClass::Medium: return std::chrono::milliseconds(s.medium_runs_ms);
    case WorkloadClass::Large: break;
  }
  return std::chrono::milliseconds(s.large_runs_ms);
}

std::vector<Workload> workloads_for(const Shape& s) {
  std::vector<Workload> out;
  struct Class {
    const char* name;
    int count;
    int interval_ms;
    int priority;
    int cpu;
  };
  const Class classes[] = {{"small", s.small, s.small_every_ms, 50, 1},
                           {"medium", s.medium, s.medium_every_ms, 100, 5},
                           {"large", s.large, s.large_every_ms, 200, 20}};
  for (int c = 0; c < s.cohorts; ++c) {
    for (int q = 0; q < s.queues_per_cohort; ++q) {
      std::string ns = "ns-" + std::to_string(c) + "-" + std::to_string(q);
      for (const auto& cls : classes) {
        for (int i = 0; i < cls.count; ++i) {
          Workload w;
          w.ns = ns;
          w.name = std::string(cls.name) + "-" + std::to_string(i);
          w.uid = ns + "/" + w.name;
          w.creation = Time(std::chrono::milliseconds(static_cast<std::int64_t>(i) * cls.interval_ms));
          w.queue_name = "lq";
          w.priority = cls.priority;
          PodSet ps;
          ps.name = "main";
          ps.count = 1;
          ps.per_pod_requests["cpu"] = Quantity::from_units(cls.cpu);
          w.pod_sets.push_back(std::move(ps));
          out.push_back(std::move(w));
        }
      }
    }
  }
  return out;
}

void configure(Engine& e, const Shape& s) {
  e.apply(ResourceFlavor{"rf", {}, {}, {}, {}});
  for (int c = 0; c < s.cohorts; ++c) {
    for (int q = 0; q < s.queues_per_cohort; ++q) {
      ClusterQueue cq;
      cq.name = "cq-" + std::to_string(c) + "-" + std::to_string(q);
      cq.cohort = "cohort-" + std::to_string(c);
      cq.namespace_selector = LabelSelector{};
      cq.preemption.within_cluster_queue = PreemptionPolicy::LowerPriority;
      cq.preemption.reclaim_within_cohort = PreemptionPolicy::Any;
      ResourceGroup rg;
      rg.covered_resources = {"cpu"};
      rg.flavors.push_back({"rf", {{"cpu", Quantity::from_units(20), Quantity::from_units(100), std::nullopt}}});
      cq.resource_groups.push_back(rg);
      e.apply(cq);
      e.apply(LocalQueue{"ns-" + std::to_string(c) + "-" + std::to_string(q), "lq", cq.name, StopPolicy::None, 1.0});
    }
  }
}

struct Totals {
  std::size_t cycles = 0;
  std::size_t heads = 0;
  std::size_t admitted = 0;
  std::size_t preempted = 0;
};

// Runs cycles until nothing can change, completing evictions at once.
Totals run_to_quiescence(Engine& e, Time& now) {
  Totals t;
  std::size_t idle = 0;
  while (true) {
    CycleSummary s = e.run_cycle(now);
    now += std::chrono::milliseconds(1);
    ++t.cycles;
    t.heads += s.heads;
    t.admitted += s.admitted;
    t.preempted += s.preempted;
    Decisions d = e.take_decisions();
    for (const auto& ev : d.evictions) (void)e.complete_eviction(ev.workload);
    if (s.heads == 0 && d.evictions.empty()) break;
    if (s.changed || !d.evictions.empty()) {
      idle = 0;
    } else if (++idle > 4) {
      break;
    }
  }
  return t;
}

/// A fresh engine with the shape's flavors, cohorts and queues (no workloads yet).
std::unique_ptr<Engine> configured_engine(const Shape& shape) {
  auto engine = std::make_unique<Engine>();
  configure(*engine, shape);
  return engine;
}

std::size_t heap_in_use() {
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

void BM_ColdPass(benchmark::State& state, Shape shape) {
  auto wls = workloads_for(shape);
  Totals last;
  for (auto _ : state) {
    state.PauseTiming();
    auto engine = configured_engine(shape);
    for (const auto& w : wls) (void)engine->apply(w);
    Time now = time_from_seconds(1000);
    state.ResumeTiming();
    last = run_to_quiescence(*engine, now);
    state.PauseTiming();
    engine.reset();
    state.ResumeTiming();
  }
  state.counters["pending"] = static_cast<double>(wls.size());
  state.counters["cycles"] = static_cast<double>(last.cycles);
  state.counters["heads"] = static_cast<double>(last.heads);
  state.counters["admitted"] = static_cast<double>(last.admitted);
  state.counters["preempted"] = static_cast<double>(last.preempted);
  state.counters["ns_per_head"] = benchmark::Counter(static_cast<double>(last.heads),
                                                     benchmark::Counter::kIsIterationInvariantRate |
                                                         benchmark::Counter::kInvert);
}

void BM_IncrementalAfterFinish(benchmark::State& state, Shape shape) {
  auto wls = workloads_for(shape);
  Engine engine;
  configure(engine, shape);
  for (const auto& w : wls) (void)engine.apply(w);
  Time now = time_from_seconds(1000);
  run_to_quiescence(engine, now);
  std::vector<std::string> admitted;
  for (const auto& v : engine.workloads()) {
    if (v.reserved) admitted.push_back(v.key);
  }
  std::size_t next = 0;
  Totals sum;
  for (auto _ : state) {
    state.PauseTiming();
    if (next == admitted.size()) {
      admitted.clear();
      for (const auto& v : engine.workloads()) {
        if (v.reserved) admitted.push_back(v.key);
      }
      next = 0;
    }
    const std::string key = admitted[next++];
    state.ResumeTiming();
    (void)engine.finish_workload(key);
    Totals t = run_to_quiescence(engine, now);
    sum.heads += t.heads;
    sum.admitted += t.admitted;
  }
  state.counters["heads_per_pass"] = static_cast<double>(sum.heads) / static_cast<double>(state.iterations());
  state.counters["admitted_per_pass"] = static_cast<double>(sum.admitted) / static_cast<double>(state.iterations());
}

// The perf runner's timeline without the API server: workloads arrive at their creation
// times, a cycle runs every 10 ms of simulated time, evictions complete at once and an
// admitted workload finishes its runtime after admission. Small workloads arrive first
// and borrow, larger ones reclaim: this is where classical preemption's search runs.
//
// With a write budget, the controller's client is modelled too: every admission and
// eviction is one write, taken in decision order from a token bucket of `qps` tokens a
// second up to `burst` (the engine holds the quota from its decision, as the controller
// assumes it), and a workload runs only once its admission is written. Everything else
// is instantaneous, and pending explanations and queue status writes are left out (the
// controller sends them only with tokens no admission waits for): the wall time this
// gives is a floor under `kueuepp perf`'s at that budget.
struct WriteBudget {
  double qps = 0;  ///< 0: unlimited, every decision is written in the cycle that made it
  double burst = 0;
};

struct TimelineTotals {
  Totals cycles;
  Time end{};
  std::size_t explanations = 0;       ///< pending explanations to write (PendingDecisions)
  /// Of every cycle's explanations, admissions and evictions, each cycle's sorted (the
  /// order within a cycle follows hashing of addresses): same input, same decisions.
  std::uint64_t explanation_digest = 0;
  std::uint64_t decision_digest = 0;
  double wait_s[3] = {0, 0, 0};       ///< summed creation -> first admission, per class
  double last_wait_s[3] = {0, 0, 0};  ///< summed creation -> last admission (after evictions)
  int count[3] = {0, 0, 0};
  std::size_t writes = 0;          ///< admissions and evictions written
  std::size_t most_queued = 0;     ///< the longest the write queue grew
};

TimelineTotals replay_timeline(Engine& e, const Shape& shape, std::vector<Workload> wls, WriteBudget budget = {}) {
  std::stable_sort(wls.begin(), wls.end(), [](const Workload& a, const Workload& b) { return a.creation < b.creation; });
  std::unordered_map<std::string, Time> finishes_at;
  std::unordered_map<std::string, std::chrono::milliseconds> runtime;
  std::unordered_map<std::string, const Workload*> by_key;
  for (const auto& w : wls) {
    runtime.emplace(w.key(), runtime_of(shape, w));
    by_key.emplace(w.key(), &w);
  }
  TimelineTotals t;
  Time now{};
  std::size_t next = 0;
  std::size_t finished = 0;
  std::unordered_set<std::string> first_admission;
  std::unordered_map<std::string, Time> last_admission;
  constexpr std::chrono::milliseconds kCycle{10};
  struct QueuedWrite {
    std::string workload;
    bool admission = true;  ///< else an eviction
  };
  std::deque<QueuedWrite> writes;
  const bool limited = budget.qps > 0;
  double tokens = budget.burst;
  // Written: the workload runs from now, and the runner sees it admitted now.
  auto land_admission = [&](const std::string& key) {
    finishes_at[key] = now + runtime.at(key);
    const Workload& w = *by_key.at(key);
    const auto c = static_cast<std::size_t>(class_of(w));
    last_admission[key] = now;
    if (first_admission.insert(key).second) {
      t.wait_s[c] += std::chrono::duration<double>(now - w.creation).count();
      ++t.count[c];
    }
  };
  while (finished < wls.size()) {
    for (; next < wls.size() && wls[next].creation <= now; ++next) (void)e.apply(wls[next]);
    for (auto it = finishes_at.begin(); it != finishes_at.end();) {
      if (it->second > now) {
        ++it;
        continue;
      }
      (void)e.finish_workload(it->first);
      ++finished;
      it = finishes_at.erase(it);
    }
    CycleSummary s = e.run_cycle(now);
    ++t.cycles.cycles;
    t.cycles.heads += s.heads;
    t.cycles.admitted += s.admitted;
    t.cycles.preempted += s.preempted;
    Decisions d = e.take_decisions();
    t.explanations += d.pending.size();
    std::vector<std::string> words;
    words.reserve(d.pending.size());
    for (const auto& p : d.pending) words.push_back(p.workload + p.reason + p.message);
    std::sort(words.begin(), words.end());
    for (const auto& w : words) t.explanation_digest = t.explanation_digest * 1099511628211ULL ^ std::hash<std::string>{}(w);
    std::vector<std::string> decided;
    for (const auto& a : d.admissions) decided.push_back("+" + a.workload);
    for (const auto& ev : d.evictions) decided.push_back("-" + ev.workload);
    std::sort(decided.begin(), decided.end());
    for (const auto& w : decided) t.decision_digest = t.decision_digest * 1099511628211ULL ^ std::hash<std::string>{}(w);
    for (const auto& a : d.admissions) writes.push_back({a.workload, true});
    for (const auto& ev : d.evictions) {
      finishes_at.erase(ev.workload);
      auto unwritten = std::find_if(writes.begin(), writes.end(),
                                    [&](const QueuedWrite& w) { return w.admission && w.workload == ev.workload; });
      if (unwritten != writes.end()) {  // never written: taken back in memory, no write
        writes.erase(unwritten);
        (void)e.complete_eviction(ev.workload);
      } else {
        writes.push_back({ev.workload, false});
      }
    }
    t.most_queued = std::max(t.most_queued, writes.size());
    if (limited) tokens = std::min(budget.burst, tokens + budget.qps * kCycle.count() / 1000.0);
    while (!writes.empty() && (!limited || tokens >= 1)) {
      if (limited) tokens -= 1;
      QueuedWrite w = std::move(writes.front());
      writes.pop_front();
      ++t.writes;
      if (w.admission) {
        land_admission(w.workload);
      } else {
        (void)e.complete_eviction(w.workload);
      }
    }
    now += kCycle;
  }
  for (const auto& [key, at] : last_admission) {
    const Workload& w = *by_key.at(key);
    t.last_wait_s[static_cast<std::size_t>(class_of(w))] += std::chrono::duration<double>(at - w.creation).count();
  }
  t.end = now;
  return t;
}

void BM_TimelineWithBudget(benchmark::State& state, Shape shape, WriteBudget budget) {
  auto wls = workloads_for(shape);
  TimelineTotals last;
  for (auto _ : state) {
    state.PauseTiming();
    auto engine = configured_engine(shape);
    state.ResumeTiming();
    last = replay_timeline(*engine, shape, wls, budget);
    state.PauseTiming();
    engine.reset();
    state.ResumeTiming();
  }
  state.counters["cycles"] = static_cast<double>(last.cycles.cycles);
  state.counters["heads"] = static_cast<double>(last.cycles.heads);
  state.counters["admitted"] = static_cast<double>(last.cycles.admitted);
  state.counters["preempted"] = static_cast<double>(last.cycles.preempted);
  state.counters["explanations"] = static_cast<double>(last.explanations);
  state.counters["explanation_digest"] = static_cast<double>(last.explanation_digest % 1000000007ULL);
  state.counters["decision_digest"] = static_cast<double>(last.decision_digest % 1000000007ULL);
  const char* first[] = {"small_first_s", "medium_first_s", "large_first_s"};
  const char* final[] = {"small_final_s", "medium_final_s", "large_final_s"};
  for (int c = 0; c < 3; ++c) {
    if (last.count[c] == 0) continue;
    state.counters[first[c]] = last.wait_s[c] / last.count[c];
    state.counters[final[c]] = last.last_wait_s[c] / last.count[c];
  }
  state.counters["simulated_s"] =
      std::chrono::duration<double>(last.end.time_since_epoch()).count();
  state.counters["writes"] = static_cast<double>(last.writes);
  state.counters["most_queued"] = static_cast<double>(last.most_queued);
}

void BM_Timeline(benchmark::State& state, Shape shape) { BM_TimelineWithBudget(state, shape, WriteBudget{}); }

void BM_MemoryPerPendingWorkload(benchmark::State& state, Shape shape) {
  auto wls = workloads_for(shape);
  double per = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto engine = configured_engine(shape);
    std::size_t before = heap_in_use();
    state.ResumeTiming();
    for (const auto& w : wls) (void)engine->apply(w);
    state.PauseTiming();
    std::size_t after = heap_in_use();
    per = static_cast<double>(after - before) / static_cast<double>(wls.size());
    engine.reset();
    state.ResumeTiming();
  }
  state.counters["bytes_per_pending"] = per;
}

BENCHMARK_CAPTURE(BM_ColdPass, baseline_15k, kBaseline)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_CAPTURE(BM_ColdPass, large_scale_50k, kLargeScale)->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK_CAPTURE(BM_Timeline, baseline_15k, kBaseline)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_Timeline, large_scale_50k, kLargeScale)->Unit(benchmark::kMillisecond)->Iterations(1);
// Kueue's default client budget and the one its TAS perf runner uses.
BENCHMARK_CAPTURE(BM_TimelineWithBudget, baseline_15k_qps300, kBaseline, WriteBudget{300, 500})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_TimelineWithBudget, baseline_15k_qps1000, kBaseline, WriteBudget{1000, 2000})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_TimelineWithBudget, large_scale_50k_qps300, kLargeScale, WriteBudget{300, 500})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_IncrementalAfterFinish, baseline_15k, kBaseline)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_IncrementalAfterFinish, large_scale_50k, kLargeScale)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_MemoryPerPendingWorkload, large_scale_50k, kLargeScale)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
