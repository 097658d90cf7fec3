// Reading a Workload watch event into the engine's model, the two ways the controller
// can: building the Boost.JSON document first (simdjson -> Boost.JSON -> decoder, then
// destroying the document), or reading the text in place (simdjson -> decoder through
// json::JsonNode). The Workload is an admitted one of the perf baseline's shape, as the
// API server sends it (managedFields already left out).

#include <benchmark/benchmark.h>

#include <string>

#include "kube/client/json_decode.hpp"
#include "kube/client/object.hpp"
#include "kube/client/packed_object.hpp"
#include "kube/objects/decoders.hpp"

namespace {

using namespace kueuepp;

const std::string kWorkload = R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload","metadata":{"name":"small-17-4411","namespace":"cohort-2","uid":"6c0b4d2e-8f3a-4a51-9d7e-0c3b2f1a9e57","resourceVersion":"184467","generation":1,"creationTimestamp":"2026-11-28T12:41:07Z","labels":{"kueue.x-k8s.io/perf-running-time-ms":"200","kueue.x-k8s.io/perf-class":"small"}},"spec":{"queueName":"lq-cq-2-0-17","priority":50,"active":true,"podSets":[{"name":"main","count":1,"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]}}}]},"status":{"conditions":[{"type":"QuotaReserved","status":"True","observedGeneration":1,"lastTransitionTime":"2026-11-28T12:42:11Z","reason":"QuotaReserved","message":"Quota reserved in ClusterQueue cq-2-0"},{"type":"Admitted","status":"True","observedGeneration":1,"lastTransitionTime":"2026-11-28T12:42:11Z","reason":"Admitted","message":"The workload is admitted"}],"admission":{"clusterQueue":"cq-2-0","podSetAssignments":[{"name":"main","flavors":{"cpu":"default"},"resourceUsage":{"cpu":"1"},"count":1}]}}})";

void BM_WorkloadToModelThroughBoostJson(benchmark::State& state) {
  std::string padded = kWorkload + std::string(kube::client::kJsonPadding, '\0');
  const std::string_view text(padded.data(), kWorkload.size());
  for (auto _ : state) {
    auto doc = kube::client::parse_json_padded(text);
    auto wl = kube::decode_workload(*doc);
    benchmark::DoNotOptimize(wl);
  }
}
BENCHMARK(BM_WorkloadToModelThroughBoostJson);

void BM_WorkloadToModelInPlace(benchmark::State& state) {
  for (auto _ : state) {
    auto wl = kube::decode_workload_text(kWorkload);
    benchmark::DoNotOptimize(wl);
  }
}
BENCHMARK(BM_WorkloadToModelInPlace);

void BM_WorkloadModelFromBuiltDocument(benchmark::State& state) {
  auto doc = json::parse(kWorkload);
  for (auto _ : state) {
    auto wl = kube::decode_workload(*doc);
    benchmark::DoNotOptimize(wl);
  }
}
BENCHMARK(BM_WorkloadModelFromBuiltDocument);

void BM_WorkloadDocumentBuiltAndDestroyed(benchmark::State& state) {
  std::string padded = kWorkload + std::string(kube::client::kJsonPadding, '\0');
  const std::string_view text(padded.data(), kWorkload.size());
  for (auto _ : state) {
    auto doc = kube::client::parse_json_padded(text);
    benchmark::DoNotOptimize(doc);
  }
}
BENCHMARK(BM_WorkloadDocumentBuiltAndDestroyed);

void BM_WorkloadPacked(benchmark::State& state) {
  auto doc = json::parse(kWorkload);
  const kube::client::Object object(*doc);
  for (auto _ : state) {
    auto packed = kube::client::PackedObject::pack(object);
    benchmark::DoNotOptimize(packed);
  }
}
BENCHMARK(BM_WorkloadPacked);

}  // namespace

BENCHMARK_MAIN();
