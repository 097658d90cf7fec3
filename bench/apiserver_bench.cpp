// The embedded API server under load, over real HTTP on loopback:
//  - BM_WorkloadStatusMergePatch: merge patches of Workload status (the write Kueue does
//    on admission), one object after another, one client, one keep-alive connection.
//    Arg 0: memory only; 1: data directory with fsync (group commit); 2: data directory
//    without fsync; 3: memory only, every Workload's status written once before timing
//    (the steady state, where a write replaces a status: the case to profile); 4: as 3,
//    cycling over 10 Workloads only. At 20,000 writes/s a Workload is written again 50 ms
//    after its previous write, within the same second (managedFields then stay as they
//    were); under callgrind, 50 times slower, only few Workloads keep that, so profile
//    that regime with 4 and the one of writes seconds apart with 3.
//    items_per_second = acknowledged writes per second.
//    Under callgrind, the counters are dumped when timing starts and when it ends: the
//    last dump ("merge patches: N"), less the client's part (main), divided by N is the
//    server's instructions per write.
//  - BM_WatchFanout: one write, 100 watchers of the Workloads; latency from sending the
//    write to each watcher's receipt of the event (p50/p99 counters, microseconds).
// Reference: kube-apiserver 1.28 + etcd did ~430 merge patches/s from one connection.

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
// A dump, not CALLGRIND_ZERO_STATS: zeroing reaches only the calling thread, a dump
// resets the counters of every thread.
#define KUEUEPP_CALLGRIND_ZERO() CALLGRIND_DUMP_STATS_AT("setup")
#define KUEUEPP_CALLGRIND_DUMP(what) CALLGRIND_DUMP_STATS_AT(what)
#else
#define KUEUEPP_CALLGRIND_ZERO() ((void)0)
#define KUEUEPP_CALLGRIND_DUMP(what) ((void)0)
#endif

#include "kube/apiserver/server/api_server.hpp"
#include "tests/kube/apiserver/server/test_http.hpp"

namespace {

using kueuepp::kube::server::ApiServer;
using kueuepp::kube::server::ApiServerOptions;
using kueuepp::testing::HttpConnection;

constexpr int kWorkloads = 1000;

std::string workload(const std::string& name) {
  return R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":")" + name +
         R"(","labels":{"app":"bench"}},"spec":{"queueName":"lq","podSets":[{"name":"main","count":2,"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"1","memory":"1Gi"}}}]}}}]}})";
}

std::string status_patch(std::size_t i) {
  return R"({"status":{"admission":{"clusterQueue":"cq","podSetAssignments":[{"name":"main","flavors":{"cpu":"default","memory":"default"},"resourceUsage":{"cpu":"2","memory":"2Gi"},"count":2}]},"conditions":[{"type":"QuotaReserved","status":"True","reason":"QuotaReserved","message":"Quota reserved in ClusterQueue cq, round )" +
         std::to_string(i) +
         R"(","lastTransitionTime":"2024-01-01T00:00:00Z","observedGeneration":1}]}})";
}

/// A server with the Kueue CRDs and `kWorkloads` Workloads in namespace "bench".
struct Fixture {
  std::unique_ptr<ApiServer> server;
  std::string data_dir;

  explicit Fixture(int mode) {
    spdlog::set_level(spdlog::level::warn);
    ApiServerOptions o;
    o.listen = "127.0.0.1:0";
    o.crd_paths = {std::string(KUEUEPP_SOURCE_DIR) + "/../shared/kueue-crds"};
    o.watch_history = 200000;
    if (mode != 0) {
      data_dir = "/tmp/kueuepp-apiserver-bench-" + std::to_string(::getpid());
      std::filesystem::remove_all(data_dir);
      o.data_dir = data_dir;
      o.fsync = mode == 1;
    }
    auto s = ApiServer::start(o);
    if (!s) {
      std::fprintf(stderr, "cannot start the API server: %s\n", s.error().message.c_str());
      std::abort();
    }
    server = std::move(*s);
    HttpConnection c(server->port());
    c.request("POST", "/api/v1/namespaces", R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"bench"}})");
    for (int i = 0; i < kWorkloads; ++i) {
      c.request("POST", "/apis/kueue.x-k8s.io/v1beta2/namespaces/bench/workloads", workload("wl-" + std::to_string(i)));
    }
  }
  ~Fixture() {
    server->stop();
    if (!data_dir.empty()) std::filesystem::remove_all(data_dir);
  }
};

/// CPU seconds of the whole process and of the calling thread: their difference over a
/// run is what the server's threads spent (the machine may be shared, so wall-clock
/// throughput understates what one core does).
double process_cpu() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
double thread_cpu() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

/// Adds server_cpu_us (server CPU per item) and writes_per_server_cpu_s counters.
void report_server_cpu(benchmark::State& state, double process0, double thread0, std::size_t items) {
  double server = (process_cpu() - process0) - (thread_cpu() - thread0);
  if (items == 0) return;
  state.counters["server_cpu_us"] = server / static_cast<double>(items) * 1e6;
  state.counters["writes_per_server_cpu_s"] = static_cast<double>(items) / server;
}

constexpr int kSteadyState = 3;
constexpr int kSteadyStateFew = 4;

void BM_WorkloadStatusMergePatch(benchmark::State& state) {
  const int mode = static_cast<int>(state.range(0));
  const bool steady = mode == kSteadyState || mode == kSteadyStateFew;
  const std::size_t cycle = mode == kSteadyStateFew ? 10 : kWorkloads;
  Fixture f(steady ? 0 : mode);
  HttpConnection c(f.server->port());
  std::size_t i = 0;
  if (steady) {
    for (; i < kWorkloads; ++i) {
      c.request("PATCH", "/apis/kueue.x-k8s.io/v1beta2/namespaces/bench/workloads/wl-" + std::to_string(i) + "/status",
                status_patch(i), "application/merge-patch+json");
    }
  }
  const std::size_t first = i;
  double p0 = process_cpu();
  double t0 = thread_cpu();
  KUEUEPP_CALLGRIND_ZERO();
  for (auto _ : state) {
    std::string target = "/apis/kueue.x-k8s.io/v1beta2/namespaces/bench/workloads/wl-" +
                         std::to_string(i % cycle) + "/status";
    auto reply = c.request("PATCH", target, status_patch(i), "application/merge-patch+json");
    if (reply.status != 200) {
      state.SkipWithError(("PATCH answered " + std::to_string(reply.status) + ": " + reply.body).c_str());
      break;
    }
    ++i;
  }
  KUEUEPP_CALLGRIND_DUMP(("merge patches: " + std::to_string(i - first)).c_str());
  report_server_cpu(state, p0, t0, i - first);
  state.SetItemsProcessed(static_cast<std::int64_t>(i - first));
}
BENCHMARK(BM_WorkloadStatusMergePatch)
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Arg(kSteadyState)
    ->Arg(kSteadyStateFew)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

/// The floor under every write: one keep-alive GET of a stored Workload (routing, the
/// HTTP round trip, the stored serialization sent as is).
void BM_WorkloadGet(benchmark::State& state) {
  Fixture f(0);
  HttpConnection c(f.server->port());
  std::size_t i = 0;
  double p0 = process_cpu();
  double t0 = thread_cpu();
  for (auto _ : state) {
    auto reply = c.request("GET", "/apis/kueue.x-k8s.io/v1beta2/namespaces/bench/workloads/wl-" +
                                      std::to_string(i % kWorkloads));
    if (reply.status != 200) {
      state.SkipWithError(("GET answered " + std::to_string(reply.status)).c_str());
      break;
    }
    ++i;
  }
  report_server_cpu(state, p0, t0, i);
  state.SetItemsProcessed(static_cast<std::int64_t>(i));
}
BENCHMARK(BM_WorkloadGet)->Unit(benchmark::kMicrosecond)->UseRealTime();

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  std::size_t idx = std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())));
  return v[idx];
}

void BM_WatchFanout(benchmark::State& state) {
  const int watchers = static_cast<int>(state.range(0));
  Fixture f(0);
  std::vector<std::unique_ptr<HttpConnection>> streams;
  for (int w = 0; w < watchers; ++w) {
    auto c = std::make_unique<HttpConnection>(f.server->port());
    auto head = c->start_stream(
        "/apis/kueue.x-k8s.io/v1beta2/namespaces/bench/workloads?watch=1&fieldSelector=metadata.name%3Dwl-0");
    if (!head || head->status != 200) {
      state.SkipWithError("cannot open a watch");
      return;
    }
    // The initial ADDED event of wl-0.
    if (!c->next_line(std::chrono::seconds(5))) {
      state.SkipWithError("no initial event");
      return;
    }
    streams.push_back(std::move(c));
  }
  HttpConnection writer(f.server->port());
  std::vector<double> latencies;
  std::size_t i = 0;
  for (auto _ : state) {
    auto sent = std::chrono::steady_clock::now();
    auto reply = writer.request("PATCH", "/apis/kueue.x-k8s.io/v1beta2/namespaces/bench/workloads/wl-0/status",
                                status_patch(i), "application/merge-patch+json");
    if (reply.status != 200) {
      state.SkipWithError("write failed");
      return;
    }
    for (auto& s : streams) {
      auto line = s->next_line(std::chrono::seconds(5));
      if (!line) {
        state.SkipWithError("a watcher missed the event");
        return;
      }
      latencies.push_back(
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - sent).count());
    }
    ++i;
  }
  state.counters["p50_us"] = percentile(latencies, 0.50);
  state.counters["p99_us"] = percentile(latencies, 0.99);
  state.counters["max_us"] = percentile(latencies, 1.0);
  state.SetItemsProcessed(static_cast<std::int64_t>(i));
}
BENCHMARK(BM_WatchFanout)->Arg(100)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
