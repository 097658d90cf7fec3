// kube/apiserver/patch benchmarks. The target: the API server applies ~20,000 merge patches of a
// Workload's status per second on one core (50 us per patch, everything included), so
// merge_patch itself must stay well below that.

#include <benchmark/benchmark.h>

#include <string>

#include "kube/json/json.hpp"
#include "kube/apiserver/patch/patch.hpp"

namespace {

using namespace kueuepp;

// A Workload as Kueue stores it once admitted: ~2 KB of JSON.
constexpr const char* kWorkload = R"({
  "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
  "metadata": {"name": "job-sample-job-8g2bm-5e1c2", "namespace": "team-a", "uid": "0f7e0e0c-3c1f-4c8e-9d54-1b2f8a9c0d11",
    "resourceVersion": "184467", "generation": 1, "creationTimestamp": "2024-01-01T00:00:00Z",
    "labels": {"kueue.x-k8s.io/job-uid": "2b8e4d1a-5f3c-4b7e-8a9d-0c1e2f3a4b5c"},
    "annotations": {"kueue.x-k8s.io/workload-preemption-gates": "", "example.com/owner-team": "batch-platform",
      "example.com/cost-center": "research-compute-7"},
    "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "sample-job-8g2bm",
      "uid": "2b8e4d1a-5f3c-4b7e-8a9d-0c1e2f3a4b5c", "controller": true, "blockOwnerDeletion": true}],
    "finalizers": ["kueue.x-k8s.io/resource-in-use"]},
  "spec": {"queueName": "user-queue", "priority": 0, "active": true,
    "podSets": [{"name": "main", "count": 3, "template": {"spec": {"restartPolicy": "Never",
      "containers": [{"name": "dummy-job", "image": "registry.k8s.io/e2e-test-images/agnhost:2.53",
        "args": ["entrypoint-tester", "hello", "world"],
        "resources": {"requests": {"cpu": "1", "memory": "200Mi"}}}]}}}]},
  "status": {
    "admission": {"clusterQueue": "cluster-queue", "podSetAssignments": [{"name": "main",
      "flavors": {"cpu": "default-flavor", "memory": "default-flavor"},
      "resourceUsage": {"cpu": "3", "memory": "600Mi"}, "count": 3}]},
    "requeueState": {"count": 1, "requeueAt": "2024-01-01T00:00:30Z"},
    "resourceRequests": [{"name": "main", "resources": {"cpu": "3", "memory": "600Mi"}}],
    "conditions": [
      {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
       "message": "Quota reserved in ClusterQueue cluster-queue", "lastTransitionTime": "2024-01-01T00:00:01Z",
       "observedGeneration": 1},
      {"type": "Admitted", "status": "True", "reason": "Admitted", "message": "The workload is admitted",
       "lastTransitionTime": "2024-01-01T00:00:01Z", "observedGeneration": 1},
      {"type": "PodsReady", "status": "False", "reason": "PodsReady", "message": "Not all pods are ready or succeeded",
       "lastTransitionTime": "2024-01-01T00:00:01Z", "observedGeneration": 1}]}})";

// What a controller sends: the whole conditions list and the admission (~700 bytes).
constexpr const char* kStatusPatch = R"({"status": {
    "admission": {"clusterQueue": "cluster-queue", "podSetAssignments": [{"name": "main",
      "flavors": {"cpu": "default-flavor", "memory": "default-flavor"},
      "resourceUsage": {"cpu": "3", "memory": "600Mi"}, "count": 3}]},
    "requeueState": null,
    "conditions": [
      {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
       "message": "Quota reserved in ClusterQueue cluster-queue", "lastTransitionTime": "2024-01-01T00:00:01Z",
       "observedGeneration": 1},
      {"type": "Admitted", "status": "True", "reason": "Admitted", "message": "The workload is admitted",
       "lastTransitionTime": "2024-01-01T00:00:01Z", "observedGeneration": 1},
      {"type": "PodsReady", "status": "True", "reason": "PodsReady", "message": "All pods reached readiness",
       "lastTransitionTime": "2024-01-01T00:00:09Z", "observedGeneration": 1}]}})";

json::value parse_or_die(const char* text) {
  auto v = json::parse(text);
  if (!v) std::abort();
  return *v;
}

void BM_MergePatchWorkloadStatus(benchmark::State& state) {
  const json::value target = parse_or_die(kWorkload);
  const json::value patch = parse_or_die(kStatusPatch);
  state.counters["target_bytes"] = static_cast<double>(json::dump(target).size());
  state.counters["patch_bytes"] = static_cast<double>(json::dump(patch).size());
  for (auto _ : state) {
    auto result = kube::patch::merge_patch(target, patch);
    benchmark::DoNotOptimize(result);
  }
}
BENCHMARK(BM_MergePatchWorkloadStatus);

// The same merge in place, on a copy the caller owns anyway (here: decoded from the
// stored bytes, as a server without an object cache would).
void BM_MergePatchIntoDecodedWorkload(benchmark::State& state) {
  const std::string stored = json::dump(parse_or_die(kWorkload));
  const json::value patch = parse_or_die(kStatusPatch);
  for (auto _ : state) {
    auto target = json::parse(stored);
    auto result = kube::patch::merge_patch_into(*target, patch);
    benchmark::DoNotOptimize(result);
    benchmark::DoNotOptimize(target);
  }
}
BENCHMARK(BM_MergePatchIntoDecodedWorkload);

void BM_DecodeWorkloadOnly(benchmark::State& state) {
  const std::string stored = json::dump(parse_or_die(kWorkload));
  for (auto _ : state) {
    auto target = json::parse(stored);
    benchmark::DoNotOptimize(target);
  }
}
BENCHMARK(BM_DecodeWorkloadOnly);

void BM_CopyWorkloadOnly(benchmark::State& state) {
  const json::value target = parse_or_die(kWorkload);
  for (auto _ : state) {
    json::value copy = target;
    benchmark::DoNotOptimize(copy);
  }
}
BENCHMARK(BM_CopyWorkloadOnly);

void BM_MergePatchWorkloadLabel(benchmark::State& state) {
  const json::value target = parse_or_die(kWorkload);
  const json::value patch = parse_or_die(R"({"metadata":{"labels":{"team":"a"}}})");
  for (auto _ : state) {
    auto result = kube::patch::merge_patch(target, patch);
    benchmark::DoNotOptimize(result);
  }
}
BENCHMARK(BM_MergePatchWorkloadLabel);

// The whole request body path a server runs: parse the patch, merge, serialize.
void BM_MergePatchWorkloadStatusWithParseAndDump(benchmark::State& state) {
  const json::value target = parse_or_die(kWorkload);
  const std::string patch_text = json::dump(parse_or_die(kStatusPatch));
  for (auto _ : state) {
    auto patch = json::parse(patch_text);
    auto result = kube::patch::merge_patch(target, *patch);
    std::string out = json::dump(*result);
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_MergePatchWorkloadStatusWithParseAndDump);

void BM_JsonPatchWorkloadCondition(benchmark::State& state) {
  const json::value target = parse_or_die(kWorkload);
  const json::value ops = parse_or_die(R"([{"op":"test","path":"/metadata/resourceVersion","value":"184467"},
      {"op":"replace","path":"/status/conditions/2/status","value":"True"}])");
  for (auto _ : state) {
    auto result = kube::patch::json_patch(target, ops);
    benchmark::DoNotOptimize(result);
  }
}
BENCHMARK(BM_JsonPatchWorkloadCondition);

void BM_StrategicMergeJobUnsuspend(benchmark::State& state) {
  const json::value job = parse_or_die(R"({"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j","labels":{"a":"b"}},
      "spec":{"suspend":true,"parallelism":1,"template":{"spec":{"containers":[{"name":"c","image":"i",
      "env":[{"name":"A","value":"1"}]}],"nodeSelector":{"x":"y"}}}}})");
  const json::value patch = parse_or_die(R"({"spec":{"suspend":false,"template":{"spec":{"nodeSelector":{"flavor":"f"},
      "containers":[{"name":"c","env":[{"name":"B","value":"2"}]}]}}}})");
  const auto lists = kube::patch::builtin_list_strategies("batch", "Job");
  for (auto _ : state) {
    auto result = kube::patch::strategic_merge_patch(job, patch, lists);
    benchmark::DoNotOptimize(result);
  }
}
BENCHMARK(BM_StrategicMergeJobUnsuspend);

void BM_ServerSideApplyWorkloadStatus(benchmark::State& state) {
  json::value live = parse_or_die(kWorkload);
  kube::patch::record_update(live, nullptr, "kueue", "kueue.x-k8s.io/v1beta2", "2024-01-01T00:00:00Z");
  const json::value config = parse_or_die(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload",
      "metadata":{"name":"job-sample-job-8g2bm-5e1c2","namespace":"team-a"},
      "status":{"conditions":[{"type":"PodsReady","status":"True","reason":"PodsReady","message":"ok",
      "lastTransitionTime":"2024-01-01T00:00:09Z"}]}})");
  kube::patch::ApplyRequest request{&live, &config, "kueue-status", true, "kueue.x-k8s.io/v1beta2", "2024-01-01T00:00:10Z",
                                    {}};
  request.subresource = "status";
  for (auto _ : state) {
    auto result = kube::patch::server_side_apply(request);
    benchmark::DoNotOptimize(result);
  }
}
BENCHMARK(BM_ServerSideApplyWorkloadStatus);

}  // namespace

BENCHMARK_MAIN();
