// What one object of each workload kind costs the controller's caches: the packed text
// it keeps (kube::client::PackedObject) against the same object decoded as a Boost.JSON
// document, and the time to pack it. The objects are Kueue's example manifests
// (../shared/kueue-examples) with the metadata the API server adds (uid, resourceVersion,
// generation, creationTimestamp; managedFields are never kept), so a figure is per
// object as the watch delivers it before its controller writes any status.
//
//   build/bench/packed_kinds_bench [--examples DIR]   (counters: packed_bytes, decoded_bytes)

#include <benchmark/benchmark.h>

#include <boost/container/pmr/memory_resource.hpp>
#include <boost/json/parse.hpp>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include "kube/client/object.hpp"
#include "kube/client/packed_object.hpp"
#include "kube/json/json.hpp"
#include "kube/json/yaml.hpp"

namespace {

using namespace kueuepp;

/// Counts what a Boost.JSON document allocates (every member, table and string).
class CountingResource final : public boost::container::pmr::memory_resource {
 public:
  std::size_t allocated = 0;

 private:
  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    allocated += bytes;
    return ::operator new(bytes, std::align_val_t(alignment));
  }
  void do_deallocate(void* p, std::size_t, std::size_t alignment) override {
    ::operator delete(p, std::align_val_t(alignment));
  }
  bool do_is_equal(const memory_resource& other) const noexcept override { return this == &other; }
};

struct Example {
  const char* kind;
  const char* file;  ///< under the examples directory
};

constexpr Example kExamples[] = {
    {"Job", "jobs/sample-job.yaml"},
    {"JobSet", "jobs/sample-jobset.yaml"},
    {"PyTorchJob", "jobs/sample-pytorchjob.yaml"},
    {"TFJob", "jobs/sample-tfjob.yaml"},
    {"XGBoostJob", "jobs/sample-xgboostjob.yaml"},
    {"PaddleJob", "jobs/sample-paddlejob.yaml"},
    {"JAXJob", "jobs/sample-jaxjob.yaml"},
    {"MPIJob", "jobs/sample-mpijob.yaml"},
    {"RayJob", "jobs/ray-job-sample.yaml"},
    {"RayCluster", "jobs/ray-cluster-sample.yaml"},
    {"AppWrapper", "appwrapper/pytorch-sample.yaml"},
};

/// The first document of `kind` in the file, with the API server's metadata added.
std::optional<json::value> load(const std::filesystem::path& path, std::string_view kind) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  auto docs = json::parse_yaml_documents(text.str());
  if (!docs) return std::nullopt;
  for (json::value& doc : *docs) {
    if (!doc.is_object() || json::get_string(doc, "kind") != kind) continue;
    json::object& meta = doc.as_object()["metadata"].as_object();
    if (meta.contains("generateName") && !meta.contains("name")) {
      meta["name"] = std::string(meta["generateName"].as_string()) + "x7k2q";
      meta.erase("generateName");
    }
    if (!meta.contains("namespace")) meta["namespace"] = "team-a";
    meta["uid"] = "6c0b4d2e-8f3a-4a51-9d7e-0c3b2f1a9e57";
    meta["resourceVersion"] = "184467";
    meta["generation"] = 1;
    meta["creationTimestamp"] = "2026-11-28T12:41:07Z";
    return std::move(doc);
  }
  return std::nullopt;
}

void measure(benchmark::State& state, const json::value& doc) {
  const kube::client::Object object(doc);
  const std::string text = json::dump(doc);
  CountingResource counting;
  {
    auto decoded = boost::json::parse(text, boost::json::storage_ptr(&counting));
    benchmark::DoNotOptimize(decoded);
  }
  std::size_t packed_bytes = 0;
  for (auto _ : state) {
    auto packed = kube::client::PackedObject::pack(object);
    packed_bytes = packed.text().size();
    benchmark::DoNotOptimize(packed);
  }
  state.counters["packed_bytes"] = static_cast<double>(packed_bytes);
  state.counters["decoded_bytes"] = static_cast<double>(counting.allocated);
}

}  // namespace

int main(int argc, char** argv) {
  std::filesystem::path dir = std::filesystem::path(KUEUEPP_SOURCE_DIR) / ".." / "shared" / "kueue-examples";
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--examples") == 0 && i + 1 < argc) {
      dir = argv[++i];
    } else {
      rest.push_back(argv[i]);
    }
  }
  int registered = 0;
  for (const Example& e : kExamples) {
    auto doc = load(dir / e.file, e.kind);
    if (!doc) {
      std::fprintf(stderr, "packed_kinds_bench: no %s in %s; skipped\n", e.kind, (dir / e.file).c_str());
      continue;
    }
    benchmark::RegisterBenchmark((std::string("BM_Packed/") + e.kind).c_str(),
                                 [doc = std::move(*doc)](benchmark::State& s) { measure(s, doc); });
    ++registered;
  }
  if (registered == 0) {
    std::fprintf(stderr, "packed_kinds_bench: no examples found under %s; pass --examples DIR (Kueue's config/samples)\n",
                 dir.c_str());
    return 1;
  }
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
