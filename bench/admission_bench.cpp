// What admission webhooks add to a create on the embedded API server: batch/v1 Job
// creates over one keep-alive connection (latency of each, p50/p99), with
//   /0/0  no webhook configuration at all,
//   /1/0  ten configurations whose webhooks match no Job (rules on other resources, and a
//         namespaceSelector that excludes the namespace): the matching cost alone,
//   /2/K  one validating webhook that matches and allows (an HTTPS call per create to the
//         test webhook in this process),
//   /3/K  one mutating webhook that matches and adds a label (JSON patch applied);
// K = 0: the webhook answers "Connection: close" (a new connection and TLS handshake per
// call); K = 1: it keeps connections alive and the server reuses them.

#include <benchmark/benchmark.h>

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "kube/json/json.hpp"
#include "kube/apiserver/server/api_server.hpp"
#include "tests/kube/apiserver/server/admission/test_webhook_server.hpp"
#include "tests/kube/apiserver/server/test_http.hpp"

namespace {

using kueuepp::kube::server::ApiServer;
using kueuepp::kube::server::ApiServerOptions;
using kueuepp::kube::server::testing::TestWebhookServer;
using kueuepp::testing::HttpConnection;
namespace json = kueuepp::json;

std::string job(std::size_t i) {
  return R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"job-)" + std::to_string(i) +
         R"(","labels":{"kueue.x-k8s.io/queue-name":"lq"}},"spec":{"suspend":true,"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox","command":["sleep","10"],"resources":{"requests":{"cpu":"1"}}}]}}}})";
}

std::string configuration(std::string_view kind, std::string_view name, const std::string& url,
                          const std::string& ca_bundle, std::string_view resource, std::string_view ns_selector) {
  json::value hook = json::object{
      {"name", std::string(name) + ".bench.example.com"},
      {"clientConfig", json::object{{"url", url}, {"caBundle", ca_bundle}}},
      {"rules", json::array{json::object{{"operations", json::array{"CREATE", "UPDATE"}},
                                         {"apiGroups", json::array{"*"}},
                                         {"apiVersions", json::array{"*"}},
                                         {"resources", json::array{resource}}}}},
      {"sideEffects", "None"},
      {"admissionReviewVersions", json::array{"v1"}}};
  if (!ns_selector.empty()) {
    hook.as_object()["namespaceSelector"] = json::object{{"matchLabels", json::object{{"env", ns_selector}}}};
  }
  json::value c = json::object{{"apiVersion", "admissionregistration.k8s.io/v1"},
                               {"kind", kind},
                               {"metadata", json::object{{"name", name}}},
                               {"webhooks", json::array{hook}}};
  return json::dump(c);
}

double cpu_seconds(clockid_t clock) {
  timespec t{};
  ::clock_gettime(clock, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

void BM_JobCreate(benchmark::State& state) {
  spdlog::set_level(spdlog::level::warn);
  const int mode = static_cast<int>(state.range(0));
  TestWebhookServer webhook;
  // 1: the webhook keeps connections alive, as a Go or controller-runtime webhook does.
  webhook.keep_alive(state.range(1) == 1);
  webhook.on("/allow", [](const json::value& r) { return TestWebhookServer::allow(r); });
  webhook.on("/label", [](const json::value& r) {
    return TestWebhookServer::allow(
        r, json::array{json::object{{"op", "add"}, {"path", "/metadata/labels/seen"}, {"value", "yes"}}});
  });
  ApiServerOptions o;
  o.listen = "127.0.0.1:0";
  auto server = ApiServer::start(o);
  if (!server) {
    state.SkipWithError(server.error().message.c_str());
    return;
  }
  HttpConnection c((*server)->port());
  c.request("POST", "/api/v1/namespaces", R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"bench"}})");
  const std::string mwc = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";
  const std::string vwc = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
  if (mode == 1) {
    for (int i = 0; i < 5; ++i) {
      c.request("POST", vwc, configuration("ValidatingWebhookConfiguration", "other-" + std::to_string(i),
                                           webhook.url("/allow"), webhook.ca_bundle(), "pods", ""));
      c.request("POST", mwc, configuration("MutatingWebhookConfiguration", "elsewhere-" + std::to_string(i),
                                           webhook.url("/allow"), webhook.ca_bundle(), "jobs", "prod"));
    }
  } else if (mode == 2) {
    c.request("POST", vwc, configuration("ValidatingWebhookConfiguration", "allow", webhook.url("/allow"),
                                         webhook.ca_bundle(), "jobs", ""));
  } else if (mode == 3) {
    c.request("POST", mwc, configuration("MutatingWebhookConfiguration", "label", webhook.url("/label"),
                                         webhook.ca_bundle(), "jobs", ""));
  }
  std::vector<double> latencies;
  std::size_t i = 0;
  const double process0 = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
  const double client0 = cpu_seconds(CLOCK_THREAD_CPUTIME_ID);
  const double webhook0 = webhook.serving_cpu_seconds();
  for (auto _ : state) {
    auto sent = std::chrono::steady_clock::now();
    auto reply = c.request("POST", "/apis/batch/v1/namespaces/bench/jobs", job(i++));
    latencies.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - sent).count());
    if (reply.status != 201) {
      state.SkipWithError(("create answered " + std::to_string(reply.status) + ": " + reply.body).c_str());
      break;
    }
  }
  // The process's CPU but the client's (this thread) and the test webhook's: the API
  // server's, webhook client side included.
  const double webhook_cpu = webhook.serving_cpu_seconds() - webhook0;
  const double server_cpu = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID) - process0 -
                            (cpu_seconds(CLOCK_THREAD_CPUTIME_ID) - client0) - webhook_cpu;
  if (i > 0) {
    state.counters["server_cpu_us"] = server_cpu * 1e6 / static_cast<double>(i);
    state.counters["webhook_cpu_us"] = webhook_cpu * 1e6 / static_cast<double>(i);
  }
  state.counters["p50_us"] = percentile(latencies, 0.50);
  state.counters["p99_us"] = percentile(latencies, 0.99);
  state.counters["calls"] = static_cast<double>(webhook.received().size());
  state.counters["connections"] = static_cast<double>(webhook.connections_accepted());
  state.SetItemsProcessed(static_cast<std::int64_t>(i));
  (*server)->stop();
}
BENCHMARK(BM_JobCreate)
    ->Args({0, 0})
    ->Args({1, 0})
    ->Args({2, 0})
    ->Args({2, 1})
    ->Args({3, 0})
    ->Args({3, 1})
    ->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
