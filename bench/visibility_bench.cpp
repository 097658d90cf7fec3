// The visibility API with 50,000 pending workloads in one ClusterQueue (the pending
// count of Kueue's large-scale perf shape), limit=100 (p50/p99, microseconds):
//   - Page: the tree's answer (actors::visibility_page: the engine's queue order for the
//     first offset+limit workloads, positions, each item's metadata read from its cached
//     Workload text), for the head of the queue, a page at its end, and a LocalQueue page
//     (which walks the whole order);
//   - Https: the whole request over one kept-alive TLS connection as the front proxy
//     makes it (client certificate verified per request, authorization cached, page,
//     JSON), the page computed on the server's thread;
//   - WhatIf: a what-if question on the same state (actors::answer_what_if: a Job built
//     into its Workload, the engine copied, the Workload applied to the copy and one
//     cycle run), and the engine's part alone (Engine::what_if) and its state digest.
// The workloads: 1 cpu each, in 10 LocalQueues, priorities 0-2, creation times spread
// over seconds; the ClusterQueue has no quota, so all stay pending.

#include <benchmark/benchmark.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <unordered_map>
#include <vector>

#include "actors/visibility_page.hpp"
#include "actors/what_if_request.hpp"
#include "core/engine/engine.hpp"
#include "kube/json/json.hpp"
#include "kube/visibility/visibility_server.hpp"
#include "tests/core/engine/test_objects.hpp"
#include "tests/kube/tls/test_certificates.hpp"

namespace {

using namespace kueuepp;
namespace vis = kube::visibility;
namespace auth = kube::auth;
using Clock = std::chrono::steady_clock;

constexpr int kPending = 50'000;
constexpr int kQueues = 10;

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

/// An engine holding kPending pending workloads in ClusterQueue "cq", and their texts.
struct State {
  core::Engine engine;
  std::unordered_map<std::string, std::string> texts;

  State() {
    engine.apply(core::ResourceFlavor{"default-flavor", {}, {}, {}, {}});
    engine.apply(core::testing::cpu_cluster_queue("cq", {core::testing::cpu_quota("default-flavor", 0)}));
    engine.apply(core::testing::default_namespace());
    for (int lq = 0; lq < kQueues; ++lq) {
      engine.apply(core::LocalQueue{"default", "lq-" + std::to_string(lq), "cq", core::StopPolicy::None, 1.0});
    }
    for (int i = 0; i < kPending; ++i) {
      core::Workload wl;
      wl.ns = "default";
      wl.name = "job-" + std::to_string(i) + "-abcde";
      wl.uid = "uid-" + std::to_string(i);
      wl.creation = core::time_from_seconds(1'000'000 + i / 20);
      wl.queue_name = "lq-" + std::to_string(i % kQueues);
      wl.priority = i % 3;
      core::PodSet ps;
      ps.name = "main";
      ps.count = 1;
      ps.per_pod_requests["cpu"] = core::Quantity::from_units(1);
      wl.pod_sets.push_back(ps);
      engine.apply(wl);
      texts[wl.ns + "/" + wl.name] = workload_text(wl);
    }
    engine.run_cycle(core::time_from_seconds(2'000'000));
    engine.take_decisions();
  }

  static std::string workload_text(const core::Workload& wl) {
    // A Workload as a Job's: about the size of one in a watch cache.
    return R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":")" + wl.name +
           R"(","namespace":"default","uid":")" + wl.uid +
           R"(","creationTimestamp":"2026-01-01T00:00:00Z","labels":{"kueue.x-k8s.io/job-uid":")" + wl.uid +
           R"("},"ownerReferences":[{"apiVersion":"batch/v1","kind":"Job","name":"job","uid":")" + wl.uid +
           R"(","controller":true,"blockOwnerDeletion":true}],"finalizers":["kueue.x-k8s.io/resource-in-use"]},)" +
           R"("spec":{"queueName":")" + wl.queue_name +
           R"(","priority":1,"active":true,"podSets":[{"name":"main","count":1,"template":{"spec":{"restartPolicy":"Never",)" +
           R"("containers":[{"name":"c","image":"registry.k8s.io/e2e-test-images/agnhost:2.53","args":["pause"],)" +
           R"("resources":{"requests":{"cpu":"1","memory":"200Mi"}}}]}}}]},"status":{"conditions":[{"type":"QuotaReserved",)" +
           R"J("status":"False","reason":"Pending","message":"couldn't assign flavors to pod set main: insufficient )J"
           R"J(quota for cpu in flavor default-flavor, request > maximum capacity (1 > 0)",)J"
           R"J("lastTransitionTime":"2026-01-01T00:00:01Z"}]}})J";
  }

  vis::PendingWorkloadsResult page(const vis::PendingWorkloadsQuery& q) const {
    return actors::visibility_page(engine, q, [this](std::string_view key) -> std::string_view {
      auto it = texts.find(std::string(key));
      return it == texts.end() ? std::string_view{} : std::string_view(it->second);
    });
  }
};

State& state_50k() {
  static State s;
  return s;
}

void BM_Page(benchmark::State& bs) {
  const State& s = state_50k();
  vis::PendingWorkloadsQuery q;
  q.page = core::bounded_page(100, bs.range(0));
  if (bs.range(1) != 0) {
    q.ns = "default";
    q.local_queue = "lq-3";
  } else {
    q.cluster_queue = "cq";
  }
  std::vector<double> us;
  for (auto _ : bs) {
    auto t0 = Clock::now();
    auto r = s.page(q);
    std::string body = vis::encode_summary("v1beta2", r.items);
    benchmark::DoNotOptimize(body);
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    if (r.items.size() != 100) bs.SkipWithError("not a full page");
  }
  bs.counters["p50_us"] = percentile(us, 0.50);
  bs.counters["p99_us"] = percentile(us, 0.99);
}
BENCHMARK(BM_Page)->Args({0, 0})->Args({49'900, 0})->Args({0, 1})->ArgNames({"offset", "lq"})->Iterations(300)
    ->Unit(benchmark::kMicrosecond);

constexpr const char* kWhatIfJob = R"({"apiVersion":"batch/v1","kind":"Job",
  "metadata":{"name":"asked","namespace":"default","labels":{"kueue.x-k8s.io/queue-name":"lq-3"}},
  "spec":{"parallelism":1,"completions":1,"template":{"spec":{"restartPolicy":"Never",
  "containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"1"}}}]}}}})";

/// 0: the tree's whole answer to a Job; 1: Engine::what_if alone; 2: the state digest.
void BM_WhatIf(benchmark::State& bs) {
  const State& s = state_50k();
  const core::Time now = core::time_from_seconds(2'000'100);
  core::Workload wl;
  wl.ns = "default";
  wl.name = "asked";
  wl.queue_name = "lq-3";
  wl.priority = 1;
  core::PodSet ps;
  ps.name = "main";
  ps.per_pod_requests["cpu"] = core::Quantity::from_units(1);
  wl.pod_sets.push_back(ps);
  std::vector<double> us;
  for (auto _ : bs) {
    auto t0 = Clock::now();
    if (bs.range(0) == 0) {
      auto r = actors::answer_what_if(s.engine, vis::WhatIfQuery{"v1beta2", "default", "lq-3", kWhatIfJob}, now, {});
      std::string body = vis::encode_what_if_result("v1beta2", r);
      benchmark::DoNotOptimize(body);
      if (r.answer.outcome != core::WhatIfAnswer::Outcome::Pending) bs.SkipWithError("not pending");
    } else if (bs.range(0) == 1) {
      auto a = s.engine.what_if(wl, now);
      benchmark::DoNotOptimize(a);
    } else {
      benchmark::DoNotOptimize(s.engine.state_digest());
    }
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  bs.counters["p50_us"] = percentile(us, 0.50);
  bs.counters["p99_us"] = percentile(us, 0.99);
}
BENCHMARK(BM_WhatIf)->Arg(0)->Arg(1)->Arg(2)->ArgName("part")->Iterations(40)->Unit(benchmark::kMicrosecond);

class AllowAll : public auth::Authorizer {
 public:
  void authorize(const auth::ResourceAttributes&, Callback done) override { done(auth::AuthorizationDecision{true, ""}); }
};

class EngineQueues : public vis::PendingWorkloadsSource {
 public:
  void pending_workloads(vis::PendingWorkloadsQuery q, Callback done) override { done(state_50k().page(q)); }
};

void BM_Https(benchmark::State& bs) {
  spdlog::set_level(spdlog::level::warn);
  state_50k();
  kube::tls::testing::TestCa proxy_ca("front-proxy-ca");
  kube::tls::testing::TestCa serving_ca("serving-ca");
  auto proxy = proxy_ca.issue("front-proxy-client");
  auto handler = std::make_shared<vis::VisibilityHandler>(
      std::make_shared<EngineQueues>(),
      std::make_shared<auth::CachingAuthorizer>(std::make_shared<AllowAll>(), std::chrono::seconds(10)), nullptr);
  auth::RequestHeaderConfig config;
  config.client_ca_pem = proxy_ca.pem();
  handler->set_request_header_config(config);
  vis::VisibilityServerOptions options;
  options.listen = "127.0.0.1:0";
  auto server = vis::VisibilityServer::start(options, [handler](vis::IncomingRequest r, vis::Reply reply) {
    handler->handle(std::move(r), std::move(reply));
  });
  auto serving = serving_ca.issue("visibility", true);
  (void)(*server)->set_certificate(serving.cert_pem, serving.key_pem);

  namespace asio = boost::asio;
  namespace ssl = asio::ssl;
  namespace bhttp = boost::beast::http;
  asio::io_context io;
  ssl::context ctx(ssl::context::tls_client);
  ctx.set_verify_mode(ssl::verify_none);
  ctx.use_certificate_chain(asio::buffer(proxy.cert_pem));
  ctx.use_private_key(asio::buffer(proxy.key_pem), ssl::context::pem);
  ssl::stream<asio::ip::tcp::socket> stream(io, ctx);
  stream.next_layer().connect(asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), (*server)->port()));
  stream.handshake(ssl::stream_base::client);
  boost::beast::flat_buffer buffer;
  std::vector<double> us;
  std::size_t bytes = 0;
  for (auto _ : bs) {
    auto t0 = Clock::now();
    bhttp::request<bhttp::string_body> req{
        bhttp::verb::get, "/apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/cq/pendingworkloads?limit=100", 11};
    req.set(bhttp::field::host, "127.0.0.1");
    req.set("X-Remote-User", "alice");
    req.keep_alive(true);
    bhttp::write(stream, req);
    bhttp::response<bhttp::string_body> res;
    bhttp::read(stream, buffer, res);
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    bytes = res.body().size();
    if (res.result_int() != 200) bs.SkipWithError("not 200");
  }
  bs.counters["p50_us"] = percentile(us, 0.50);
  bs.counters["p99_us"] = percentile(us, 0.99);
  bs.counters["bytes"] = static_cast<double>(bytes);
  (*server)->stop();
}
BENCHMARK(BM_Https)->Iterations(500)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
