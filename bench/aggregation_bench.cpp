// What proxying to an aggregated API server costs on the embedded API server: GETs of a
// small object under an APIService (proxied over HTTPS to the test backend of
// tests/kube/apiserver/server/aggregation/, a new connection and TLS handshake each,
// as the proxy opens one per request), against GETs of a Namespace served locally,
// both over one keep-alive connection from the client. Prints p50/p99 of each, and
// the API server's CPU per request (the process's CPU less the backend's threads' is not
// separable here: the backend's share is in the total).
//
//   build/bench/aggregation_bench [requests]

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>

#include "kube/json/json.hpp"
#include "kube/apiserver/server/api_server.hpp"
#include "tests/kube/apiserver/server/aggregation/test_backend_server.hpp"
#include "tests/kube/apiserver/server/test_http.hpp"

namespace {

using kueuepp::kube::server::ApiServer;
using kueuepp::kube::server::ApiServerOptions;
using kueuepp::kube::server::testing::TestBackendServer;
using kueuepp::testing::HttpConnection;
namespace json = kueuepp::json;

double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void report(const char* what, std::vector<double> us, double cpu_seconds) {
  std::sort(us.begin(), us.end());
  auto at = [&](double q) { return us[static_cast<std::size_t>(q * static_cast<double>(us.size() - 1))]; };
  std::printf("%-40s n=%zu p50=%.0f us p99=%.0f us cpu/request=%.0f us\n", what, us.size(), at(0.5), at(0.99),
              cpu_seconds * 1e6 / static_cast<double>(us.size()));
}

std::vector<double> measure(HttpConnection& conn, const std::string& target, int n, double& cpu) {
  std::vector<double> us;
  us.reserve(static_cast<std::size_t>(n));
  double cpu_before = process_cpu_seconds();
  for (int i = 0; i < n; ++i) {
    auto start = std::chrono::steady_clock::now();
    auto reply = conn.request("GET", target);
    auto end = std::chrono::steady_clock::now();
    if (reply.status != 200) {
      std::fprintf(stderr, "GET %s answered %d: %s\n", target.c_str(), reply.status, reply.body.c_str());
      std::exit(1);
    }
    us.push_back(std::chrono::duration<double, std::micro>(end - start).count());
  }
  cpu = process_cpu_seconds() - cpu_before;
  return us;
}

}  // namespace

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 2000;
  spdlog::set_level(spdlog::level::warn);
  ApiServerOptions options;
  options.listen = "127.0.0.1:0";
  auto server = ApiServer::start(options);
  if (!server) {
    std::fprintf(stderr, "%s\n", server.error().message.c_str());
    return 1;
  }
  TestBackendServer backend({"bench.bench.svc"});
  backend.serve_discovery("bench.example.com", "v1", "things", "Thing");
  std::string thing = R"({"apiVersion":"bench.example.com/v1","kind":"Thing","metadata":{"name":"a","namespace":"default"}})";
  backend.on("/apis/bench.example.com/v1/namespaces/", [thing](const TestBackendServer::Request&) {
    return TestBackendServer::Answer{200, "application/json", thing, {}, false, ""};
  });
  HttpConnection conn((*server)->port());
  conn.request("POST", "/api/v1/namespaces", R"({"metadata":{"name":"bench"}})");
  conn.request("POST", "/api/v1/namespaces/bench/services",
               R"({"metadata":{"name":"bench"},"spec":{"ports":[{"port":443,"targetPort":)" +
                   std::to_string(backend.port()) + "}]}}");
  json::value svc = json::object{
      {"apiVersion", "apiregistration.k8s.io/v1"},
      {"kind", "APIService"},
      {"metadata", json::object{{"name", "v1.bench.example.com"}}},
      {"spec", json::object{{"group", "bench.example.com"},
                            {"version", "v1"},
                            {"groupPriorityMinimum", 100},
                            {"versionPriority", 100},
                            {"caBundle", backend.ca_bundle()},
                            {"service", json::object{{"namespace", "bench"}, {"name", "bench"}}}}}};
  conn.request("POST", "/apis/apiregistration.k8s.io/v1/apiservices", json::dump(svc));
  std::string proxied = "/apis/bench.example.com/v1/namespaces/default/things/a";
  for (int i = 0; i < 500 && conn.request("GET", proxied).status != 200; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  double cpu = 0;
  measure(conn, proxied, 100, cpu);  // warm-up
  auto local = measure(conn, "/api/v1/namespaces/default", n, cpu);
  report("local GET (Namespace)", local, cpu);
  auto remote = measure(conn, proxied, n, cpu);
  report("proxied GET (aggregated API)", remote, cpu);
  return 0;
}
