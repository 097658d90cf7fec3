#pragma once

// Helpers for the kube/apiserver/schema tests: the shared data directory (Kueue CRDs, recorded
// kube-apiserver traces), CRD loading with a per-process cache (the Workload CRD is
// 1.4 MB of YAML), JSON literals.

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>

#include "kube/json/json.hpp"
#include "kube/json/yaml.hpp"
#include "kube/apiserver/schema/schema.hpp"

namespace kueuepp::kube::schema::testing {

inline std::string shared_dir() {
  const char* env = std::getenv("KUEUEPP_SOURCE_DIR");
  std::string root = env != nullptr ? env : KUEUEPP_SOURCE_DIR;
  return root + "/../shared";
}

inline std::optional<std::string> read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Parses a JSON literal; a test bug if it does not parse.
inline json::value J(std::string_view text) {
  auto v = json::parse(text);
  EXPECT_TRUE(v.has_value()) << text;
  return v ? *v : json::value(nullptr);
}

inline const std::vector<std::string>& crd_files() {
  static const std::vector<std::string> files = {
      "admissionchecks",  "clusterqueues",   "cohorts",         "localqueues",
      "multikueueclusters", "multikueueconfigs", "provisioningrequestconfigs", "resourceflavors",
      "topologies",       "workloadpriorityclasses", "workloads"};
  return files;
}

/// The CRD document of kueue.x-k8s.io_<plural>.yaml, or null when the data is absent.
inline const json::value* crd(const std::string& plural) {
  static std::map<std::string, json::value> cache;
  auto it = cache.find(plural);
  if (it != cache.end()) return &it->second;
  auto text = read_text(shared_dir() + "/kueue-crds/kueue.x-k8s.io_" + plural + ".yaml");
  if (!text) return nullptr;
  auto docs = json::parse_yaml_documents(*text);
  if (!docs || docs->empty()) {
    ADD_FAILURE() << plural << ": " << (docs ? "empty" : docs.error().message);
    return nullptr;
  }
  return &cache.emplace(plural, std::move((*docs)[0])).first->second;
}

inline const json::value* openapi_schema(const json::value& crd_doc, std::string_view version) {
  const json::value* versions = json::find_path(crd_doc, {"spec", "versions"});
  if (versions == nullptr || !versions->is_array()) return nullptr;
  for (const auto& v : versions->get_array()) {
    if (json::get_string(v, "name") == version) return json::find_path(v, {"schema", "openAPIV3Schema"});
  }
  return nullptr;
}

/// The compiled schema of one CRD version (cached), or null when the data is absent.
inline SchemaPtr kueue_schema(const std::string& plural, std::string_view version = "v1beta2") {
  static std::map<std::string, SchemaPtr> cache;
  std::string key = plural + "/" + std::string(version);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  const json::value* doc = crd(plural);
  if (doc == nullptr) return nullptr;
  const json::value* s = openapi_schema(*doc, version);
  if (s == nullptr) {
    ADD_FAILURE() << key << ": no such version";
    return nullptr;
  }
  auto compiled = compile(*s);
  if (!compiled) {
    ADD_FAILURE() << key << ": " << compiled.error().message;
    return nullptr;
  }
  cache[key] = *compiled;
  return *compiled;
}

#define KUEUEPP_REQUIRE_SCHEMA(var, plural, version)                                  \
  auto var = ::kueuepp::kube::schema::testing::kueue_schema(plural, version);        \
  if (!var) GTEST_SKIP() << "Kueue CRDs not found under " << ::kueuepp::kube::schema::testing::shared_dir()

/// Compiles an inline schema (JSON text); a test bug if it does not compile.
inline SchemaPtr inline_schema(std::string_view json_text) {
  auto compiled = compile(J(json_text));
  EXPECT_TRUE(compiled.has_value()) << (compiled ? "" : compiled.error().message);
  return compiled ? *compiled : nullptr;
}

/// "type field" pairs, compact for assertions.
inline std::vector<std::string> causes(const std::vector<FieldError>& errors) {
  std::vector<std::string> out;
  for (const auto& e : errors) out.push_back(e.type + " " + e.field);
  return out;
}

}  // namespace kueuepp::kube::schema::testing
