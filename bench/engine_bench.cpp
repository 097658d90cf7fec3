// Admission engine benchmarks on the shapes of Kueue's scheduler performance tests
// (../shared/perf): baseline (5 cohorts x 6 queues, 15,000 pending) and large-scale
// (10 cohorts x 100 queues, 50,000 pending). Every queue: nominal 20 cpu, borrowing
// limit 100, reclaimWithinCohort Any, withinClusterQueue LowerPriority; workloads of
// 1 cpu (priority 50), 5 cpu (100) and 20 cpu (200).
//
// Reported: the cold pass (everything pending, run to quiescence), the incremental pass
// after one workload finishes, nanoseconds per head evaluated and per admission, and
// bytes of engine memory per pending workload.

#include <benchmark/benchmark.h>
#include <malloc.h>

#include <memory>
#include <string>
#include <vector>

#include "core/engine/engine.hpp"

namespace {

using namespace kueuepp::core;

struct Shape {
  int cohorts;
  int queues_per_cohort;
  int small, medium, large;  // per queue
};
constexpr Shape kBaseline{5, 6, 350, 100, 50};
constexpr Shape kLargeScale{10, 100, 35, 11, 4};

std::vector<Workload> workloads_for(const Shape& s) {
  std::vector<Workload> out;
  struct Class {
    const char* name;
    int count;
    int interval_ms;
    int priority;
    int cpu;
  };
  const Class classes[] = {{"small", s.small, 100, 50, 1}, {"medium", s.medium, 500, 100, 5}, {"large", s.large, 1200, 200, 20}};
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

std::size_t heap_in_use() {
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

void BM_ColdPass(benchmark::State& state, Shape shape) {
  auto wls = workloads_for(shape);
  Totals last;
  for (auto _ : state) {
    state.PauseTiming();
    auto engine = std::make_unique<Engine>();
    configure(*engine, shape);
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

void BM_MemoryPerPendingWorkload(benchmark::State& state, Shape shape) {
  auto wls = workloads_for(shape);
  double per = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto engine = std::make_unique<Engine>();
    configure(*engine, shape);
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
BENCHMARK_CAPTURE(BM_IncrementalAfterFinish, baseline_15k, kBaseline)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_IncrementalAfterFinish, large_scale_50k, kLargeScale)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_MemoryPerPendingWorkload, large_scale_50k, kLargeScale)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
