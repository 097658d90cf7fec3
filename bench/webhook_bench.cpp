// The admission webhook server under kube-apiserver's load: Job creations reviewed at a
// fixed rate (default 200 a second) over kept-alive TLS connections, each answered by
// the controller's webhook actor (CAF, as in `kueuepp controller`) with mjob's patch.
// Prints the latency p50/p99/max seen by the caller (request written to answer read)
// and the CPU the server side spent per review (the process's CPU time less the client
// threads'). A second run opens a new TLS connection per review (a worst case: the API
// server keeps its connections).
//
// usage: webhook_bench [RATE] [SECONDS] [CONNECTIONS] [direct]
//   direct: the server's thread decides itself, without the actor (what the hop costs)

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scheduler/coordinator.hpp>
#include <caf/send.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <thread>
#include <vector>

#include "actors/wake_on_backlog_policy.hpp"
#include "actors/webhook_actor.hpp"
#include "kube/webhook/webhook_dispatch.hpp"
#include "kube/webhook/cert_rotation.hpp"
#include "kube/webhook/webhook_server.hpp"
#include "tests/kube/webhook/tls_test_client.hpp"

namespace {

using namespace kueuepp;
namespace wh = kube::webhook;
using Clock = std::chrono::steady_clock;

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return s(u.ru_utime) + s(u.ru_stime);
}

std::string review(int i) {
  // A Job as kubectl sends it after defaulting: about 2 KB.
  return fmt::format(
      R"({{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{{"uid":"uid-{0}",)"
      R"("kind":{{"group":"batch","version":"v1","kind":"Job"}},"resource":{{"group":"batch","version":"v1","resource":"jobs"}},)"
      R"("namespace":"team","operation":"CREATE","userInfo":{{"username":"alice"}},"object":{{"apiVersion":"batch/v1","kind":"Job",)"
      R"("metadata":{{"name":"job-{0}","namespace":"team","labels":{{"kueue.x-k8s.io/queue-name":"lq","app":"bench"}}}},)"
      R"("spec":{{"parallelism":3,"completions":3,"backoffLimit":6,"completionMode":"NonIndexed","suspend":false,)"
      R"("manualSelector":false,"podReplacementPolicy":"TerminatingOrFailed","template":{{"metadata":{{"labels":{{"app":"bench"}}}},)"
      R"("spec":{{"restartPolicy":"Never","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","schedulerName":"default-scheduler",)"
      R"("securityContext":{{}},"containers":[{{"name":"main","image":"registry.k8s.io/e2e-test-images/agnhost:2.53",)"
      R"("args":["entrypoint-tester","hello","world"],"resources":{{"requests":{{"cpu":"1","memory":"200Mi"}}}},)"
      R"("terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}}]}}}}}}}}}}}})",
      i);
}

struct Result {
  std::vector<double> latencies_ms;
  double client_cpu = 0;
  int failures = 0;
};

Result run(std::uint16_t port, const std::string& ca, double rate, double seconds, int connections, bool reconnect) {
  const int total = static_cast<int>(rate * seconds);
  const auto start = Clock::now() + std::chrono::milliseconds(100);
  const auto interval = std::chrono::duration<double>(1.0 / rate);
  std::mutex mutex;
  Result result;
  std::vector<std::thread> threads;
  for (int c = 0; c < connections; ++c) {
    threads.emplace_back([&, c] {
      std::vector<double> mine;
      int failed = 0;
      const double cpu0 = thread_cpu_seconds();
      std::unique_ptr<wh::testing::TlsClient> client;
      for (int i = c; i < total; i += connections) {
        std::this_thread::sleep_until(start + std::chrono::duration_cast<Clock::duration>(interval * i));
        const auto t0 = Clock::now();
        if (!client || reconnect) client = std::make_unique<wh::testing::TlsClient>(port, ca);
        auto answer = client->post("/mutate-batch-v1-job?timeout=10s", review(i));
        const auto t1 = Clock::now();
        if (answer.status != 200) {
          ++failed;
          client.reset();
          continue;
        }
        mine.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      }
      const double cpu = thread_cpu_seconds() - cpu0;
      std::lock_guard lock(mutex);
      result.latencies_ms.insert(result.latencies_ms.end(), mine.begin(), mine.end());
      result.client_cpu += cpu;
      result.failures += failed;
    });
  }
  for (auto& t : threads) t.join();
  std::sort(result.latencies_ms.begin(), result.latencies_ms.end());
  return result;
}

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  auto i = static_cast<std::size_t>(p * static_cast<double>(sorted.size() - 1));
  return sorted[i];
}

}  // namespace

int main(int argc, char** argv) {
  const double rate = argc > 1 ? std::atof(argv[1]) : 200;
  const double seconds = argc > 2 ? std::atof(argv[2]) : 10;
  const int connections = argc > 3 ? std::atoi(argv[3]) : 4;
  const bool direct = argc > 4 && std::string_view(argv[4]) == "direct";
  spdlog::set_level(spdlog::level::warn);
  caf::actor_system_config cfg;
  cfg.set("scheduler.max-threads", std::size_t{2});
  // The controller's scheduler (actors/controller.cpp): workers sleep rather than poll.
  cfg.load<caf::scheduler::coordinator<actors::WakeOnBacklogPolicy>>();
  cfg.set("logger.verbosity", caf::atom("quiet"));
  caf::actor_system system{cfg};
  auto introspection = system.spawn([]() -> messages::introspection_actor::behavior_type {
    return {[](messages::ActorRegistered&) {}, [](messages::HttpQuery&) {}};
  });
  wh::JobWebhookPolicy policy;
  policy.managed_jobs_namespace_selector = wh::default_managed_jobs_namespace_selector("kueuepp-system");
  auto actor = actors::spawn_webhook_actor(system, policy, introspection);
  wh::WebhookServerOptions options;
  options.listen = "127.0.0.1:0";
  struct NoFacts : wh::ClusterFacts {
    bool default_local_queue_exists(std::string_view) const override { return false; }
    bool default_priority_class_exists() const override { return false; }
    const core::Labels* namespace_labels(std::string_view) const override { return nullptr; }
  };
  auto server = wh::WebhookServer::start(options, [actor, direct, policy](const wh::WebhookSpec& spec, wh::AdmissionRequest r,
                                                                         wh::AdmissionReply reply) {
    if (direct) {
      reply(wh::decide(spec.kind, r, policy, NoFacts{}));
      return;
    }
    caf::anon_send(actor, actors::AdmissionCall{spec.kind, std::move(r), std::move(reply)});
  });
  if (!server) {
    std::fprintf(stderr, "%s\n", server.error().message.c_str());
    return 1;
  }
  auto bundle = wh::generate_bundle({{"127.0.0.1"}, std::chrono::system_clock::now(), std::chrono::hours(48),
                                     std::chrono::hours(24)});
  if (!bundle || !(*server)->set_certificate(bundle->cert_pem, bundle->key_pem)) return 1;

  // The decision alone, on this thread: decode, decide, encode.
  {
    NoFacts facts;
    const std::string body = review(1);
    constexpr int kRounds = 20000;
    const double cpu0 = thread_cpu_seconds();
    std::size_t bytes = 0;
    for (int i = 0; i < kRounds; ++i) {
      auto r = wh::decode_admission_review(body);
      bytes += wh::encode_admission_review(wh::decide(wh::WebhookKind::MutateJob, *r, policy, facts)).size();
    }
    std::printf("decode + decide + encode of a %zu-byte Job review: %.1f us (%zu bytes answered)\n", body.size(),
                (thread_cpu_seconds() - cpu0) / kRounds * 1e6, bytes / kRounds);
  }

  for (bool reconnect : {false, true}) {
    const double cpu0 = process_cpu_seconds();
    Result r = run((*server)->port(), bundle->ca_cert_pem, rate, seconds, connections, reconnect);
    const double server_cpu = process_cpu_seconds() - cpu0 - r.client_cpu;
    const double n = static_cast<double>(r.latencies_ms.size());
    std::printf(
        "%s: %.0f reviews/s for %.0f s over %d connections: %zu answered, %d failed; latency p50 %.2f ms, p99 %.2f "
        "ms, max %.2f ms; server CPU %.1f us per review (%.1f%% of a core)\n",
        reconnect ? "a new TLS connection per review" : "kept-alive connections", rate, seconds, connections,
        r.latencies_ms.size(), r.failures, percentile(r.latencies_ms, 0.5), percentile(r.latencies_ms, 0.99),
        r.latencies_ms.empty() ? 0.0 : r.latencies_ms.back(), n > 0 ? server_cpu / n * 1e6 : 0.0,
        server_cpu / seconds * 100);
  }
  (*server)->stop();
  caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(introspection, caf::exit_reason::user_shutdown);
  return 0;
}
