// kube/apiserver/schema on the hot path of the API server: validating a typical admitted Workload
// (2 pod sets, status with conditions and admission) against the Workload v1beta2 CRD
// schema, on create (no old object) and on a status update (transition rules run too),
// plus pruning+defaulting and compiling the 1.4 MB CRD's schema.

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "kube/json/json.hpp"
#include "kube/json/yaml.hpp"
#include "kube/apiserver/schema/schema.hpp"

namespace {

using namespace kueuepp;

const char* kWorkload = R"({
  "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
  "metadata": {"name": "job-sample-7c9d2", "namespace": "team-a", "uid": "3f1c6f5e-1b2a-4c3d-9e8f-0a1b2c3d4e5f",
               "resourceVersion": "1234", "generation": 1, "creationTimestamp": "2024-01-01T00:00:00Z",
               "labels": {"kueue.x-k8s.io/job-uid": "3f1c6f5e"},
               "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "sample", "uid": "3f1c6f5e",
                                    "controller": true, "blockOwnerDeletion": true}]},
  "spec": {
    "active": true, "queueName": "user-queue", "priority": 100,
    "priorityClassRef": {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": "high"},
    "podSets": [
      {"name": "launcher", "count": 1, "template": {"metadata": {"labels": {"app": "sample"}}, "spec": {
        "restartPolicy": "Never",
        "containers": [{"name": "launcher", "image": "registry.k8s.io/e2e-test-images/agnhost:2.53",
                        "args": ["entrypoint-tester", "hello", "world"],
                        "resources": {"requests": {"cpu": "500m", "memory": "256Mi"}, "limits": {"memory": "256Mi"}}}]}}},
      {"name": "worker", "count": 4, "minCount": 2, "template": {"metadata": {"labels": {"app": "sample"}}, "spec": {
        "restartPolicy": "Never", "nodeSelector": {"cloud.provider.com/accelerator": "a100"},
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
        "containers": [{"name": "worker", "image": "registry.k8s.io/e2e-test-images/agnhost:2.53",
                        "args": ["pause"], "env": [{"name": "RANK", "value": "0"}, {"name": "WORLD", "value": "4"}],
                        "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                        "resources": {"requests": {"cpu": "2", "memory": "4Gi", "nvidia.com/gpu": "1"},
                                      "limits": {"nvidia.com/gpu": "1"}}}]}}}]},
  "status": {
    "conditions": [
      {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved", "message": "Quota reserved in ClusterQueue cq",
       "lastTransitionTime": "2024-01-01T00:00:00Z", "observedGeneration": 1},
      {"type": "Admitted", "status": "True", "reason": "Admitted", "message": "The workload is admitted",
       "lastTransitionTime": "2024-01-01T00:00:00Z", "observedGeneration": 1}],
    "admission": {"clusterQueue": "cluster-queue", "podSetAssignments": [
      {"name": "launcher", "count": 1, "flavors": {"cpu": "default", "memory": "default"},
       "resourceUsage": {"cpu": "500m", "memory": "256Mi"}},
      {"name": "worker", "count": 4, "flavors": {"cpu": "default", "memory": "default", "nvidia.com/gpu": "a100"},
       "resourceUsage": {"cpu": "8", "memory": "16Gi", "nvidia.com/gpu": "4"}}]}}
})";

std::string crd_text() {
  const char* env = std::getenv("KUEUEPP_SOURCE_DIR");
  std::string root = env != nullptr ? env : KUEUEPP_SOURCE_DIR;
  std::ifstream in(root + "/../shared/kueue-crds/kueue.x-k8s.io_workloads.yaml");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const json::value* v1beta2(const json::value& crd) {
  for (const auto& v : json::find_path(crd, {"spec", "versions"})->get_array()) {
    if (json::get_string(v, "name") == "v1beta2") return json::find_path(v, {"schema", "openAPIV3Schema"});
  }
  return nullptr;
}

struct Fixture {
  json::value crd;
  kube::schema::SchemaPtr schema;
  json::value workload;

  Fixture() {
    auto docs = json::parse_yaml_documents(crd_text());
    if (!docs || docs->empty()) return;
    crd = (*docs)[0];
    auto compiled = kube::schema::compile(*v1beta2(crd));
    if (!compiled) return;
    schema = *compiled;
    workload = *json::parse(kWorkload);
    kube::schema::prune(*schema, workload);
    kube::schema::apply_defaults(*schema, workload);
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

void BM_ValidateWorkloadCreate(benchmark::State& state) {
  Fixture& f = fixture();
  if (!f.schema) return state.SkipWithError("Workload CRD not found");
  if (!kube::schema::validate(*f.schema, f.workload, nullptr).empty()) return state.SkipWithError("workload invalid");
  for (auto _ : state) benchmark::DoNotOptimize(kube::schema::validate(*f.schema, f.workload, nullptr));
}
BENCHMARK(BM_ValidateWorkloadCreate)->Unit(benchmark::kMicrosecond);

void BM_ValidateWorkloadUpdate(benchmark::State& state) {
  Fixture& f = fixture();
  if (!f.schema) return state.SkipWithError("Workload CRD not found");
  json::value old = f.workload;
  if (!kube::schema::validate(*f.schema, f.workload, &old).empty()) return state.SkipWithError("workload invalid");
  for (auto _ : state) benchmark::DoNotOptimize(kube::schema::validate(*f.schema, f.workload, &old));
}
BENCHMARK(BM_ValidateWorkloadUpdate)->Unit(benchmark::kMicrosecond);

void BM_PruneAndDefaultWorkload(benchmark::State& state) {
  Fixture& f = fixture();
  if (!f.schema) return state.SkipWithError("Workload CRD not found");
  json::value raw = *json::parse(kWorkload);
  for (auto _ : state) {
    json::value w = raw;
    benchmark::DoNotOptimize(kube::schema::prune(*f.schema, w));
    kube::schema::apply_defaults(*f.schema, w);
  }
}
BENCHMARK(BM_PruneAndDefaultWorkload)->Unit(benchmark::kMicrosecond);

void BM_CompileWorkloadSchema(benchmark::State& state) {
  Fixture& f = fixture();
  if (!f.schema) return state.SkipWithError("Workload CRD not found");
  const json::value* s = v1beta2(f.crd);
  for (auto _ : state) benchmark::DoNotOptimize(kube::schema::compile(*s));
}
BENCHMARK(BM_CompileWorkloadSchema)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
