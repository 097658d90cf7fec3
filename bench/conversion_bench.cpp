// Kueue's v1beta1 <-> v1beta2 conversion per object (kube/conversion), as the webhook
// server runs it for each object of a ConversionReview: the case files' Workload (with
// a topology assignment, the stash written) and ClusterQueue, both ways, and a
// ConversionReview of 500 Workloads (a list page kube-apiserver converts at once) from
// body to answer.

#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>
#include <string>

#include "kube/conversion/conversion_review.hpp"
#include "kube/conversion/kueue_conversion.hpp"
#include "kube/json/json.hpp"
#include "kube/json/yaml.hpp"

namespace {

using namespace kueuepp;
using namespace kueuepp::kube::conversion;

json::value case_document(const std::string& file, std::size_t index) {
  std::ifstream in(std::string(KUEUEPP_SOURCE_DIR) + "/tests/kube/conversion/cases/" + file);
  std::stringstream text;
  text << in.rdbuf();
  auto docs = json::parse_yaml_documents(text.str());
  if (!docs || docs->size() <= index) std::abort();
  return (*docs)[index];
}

void convert_one(benchmark::State& state, const char* file, std::size_t index, std::string_view to) {
  const auto object = case_document(file, index);
  for (auto _ : state) {
    auto converted = convert_kueue_object(object, to);
    if (!converted) state.SkipWithError(converted.error().message.c_str());
    benchmark::DoNotOptimize(converted);
  }
}

void BM_WorkloadToV1beta2(benchmark::State& state) { convert_one(state, "workload.yaml", 0, kKueueV1beta2); }
void BM_WorkloadToV1beta1(benchmark::State& state) { convert_one(state, "workload.yaml", 1, kKueueV1beta1); }
void BM_ClusterQueueToV1beta2(benchmark::State& state) { convert_one(state, "clusterqueue.yaml", 0, kKueueV1beta2); }
void BM_ClusterQueueToV1beta1(benchmark::State& state) { convert_one(state, "clusterqueue.yaml", 1, kKueueV1beta1); }

void BM_ReviewOf500WorkloadsToV1beta1(benchmark::State& state) {
  auto workload = case_document("workload.yaml", 1);
  json::array objects;
  for (int i = 0; i < 500; ++i) {
    workload.as_object()["metadata"].as_object()["name"] = json::string("wl-" + std::to_string(i));
    objects.emplace_back(workload);
  }
  json::object request{{"uid", "u"}, {"desiredAPIVersion", kKueueV1beta1}, {"objects", std::move(objects)}};
  const std::string body = json::dump(json::value(json::object{
      {"apiVersion", "apiextensions.k8s.io/v1"}, {"kind", "ConversionReview"}, {"request", std::move(request)}}));
  for (auto _ : state) {
    auto answer = answer_conversion_review(body);
    if (answer.http_status != 200) state.SkipWithError(answer.body.c_str());
    benchmark::DoNotOptimize(answer);
  }
  state.SetItemsProcessed(state.iterations() * 500);
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(body.size()));
}

BENCHMARK(BM_WorkloadToV1beta2);
BENCHMARK(BM_WorkloadToV1beta1);
BENCHMARK(BM_ClusterQueueToV1beta2);
BENCHMARK(BM_ClusterQueueToV1beta1);
BENCHMARK(BM_ReviewOf500WorkloadsToV1beta1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
