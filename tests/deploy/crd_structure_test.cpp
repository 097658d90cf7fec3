// deploy/crds: one CustomResourceDefinition per kind the controller watches, stored as
// kueue.x-k8s.io/v1beta2 and serving v1beta1 through kueuepp's conversion webhook
// (Kueue's own v1beta1 schema), with structural schemas that a real kube-apiserver 1.28
// accepts (every node typed, int-or-string and preserve-unknown-fields as the
// apiextensions rules allow, list-map keys required or defaulted, no selectableFields),
// and validating what Kueue's own CRDs validate: every node of Kueue's v1beta2 schema
// outside the Workload's pod template is there with the same type, format, enum,
// pattern, default, bounds, required fields, list and map semantics and CEL rules.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "kube/json/json.hpp"
#include "kube/json/yaml.hpp"
#include "tests/support/source_tree.hpp"

namespace kueuepp {
namespace {

using test_support::source_dir;
using test_support::read_file;

namespace fs = std::filesystem;

std::string shared_dir() {
  if (const char* env = std::getenv("KUEUEPP_SHARED_DIR"); env != nullptr && *env != '\0') return env;
#ifdef KUEUEPP_SHARED_DIR
  return KUEUEPP_SHARED_DIR;
#else
  return source_dir() + "/../shared";
#endif
}

/// The one document of a CRD file (the test fails when there is not exactly one).
json::value load_crd(const fs::path& file) {
  auto docs = json::parse_yaml_documents(read_file(file));
  if (!docs) {
    ADD_FAILURE() << file << ": " << docs.error().message;
    return {};
  }
  std::vector<json::value> crds;
  for (auto& d : *docs) {
    if (!d.is_null()) crds.push_back(std::move(d));
  }
  EXPECT_EQ(crds.size(), 1u) << file << " must hold exactly one CustomResourceDefinition";
  return crds.empty() ? json::value() : crds.front();
}

/// deploy/crds/*.yaml by kind.
std::map<std::string, json::value> our_crds() {
  std::map<std::string, json::value> out;
  for (const auto& entry : fs::directory_iterator(source_dir() + "/deploy/crds")) {
    if (entry.path().extension() != ".yaml") continue;
    json::value crd = load_crd(entry.path());
    std::string kind(json::get_string(*json::find_path(crd, {"spec", "names"}), "kind"));
    EXPECT_FALSE(out.count(kind)) << kind << " is defined twice";
    out[kind] = std::move(crd);
  }
  return out;
}

const std::set<std::string> kKinds = {"ResourceFlavor", "ClusterQueue",          "LocalQueue",    "Cohort",
                                      "Workload",       "WorkloadPriorityClass", "AdmissionCheck"};

/// The only version of `crd` (null when there is not exactly one).
const json::value* version_of(const json::value& crd, std::string_view name) {
  const json::value* versions = json::find_path(crd, {"spec", "versions"});
  if (versions == nullptr || !versions->is_array()) return nullptr;
  for (const auto& v : versions->as_array()) {
    if (json::get_string(v, "name") == name) return &v;
  }
  return nullptr;
}

const json::value* schema_of(const json::value& version) {
  return json::find_path(version, {"schema", "openAPIV3Schema"});
}

bool flag(const json::value& node, std::string_view key) {
  const json::value* v = json::find(node, key);
  return v != nullptr && v->is_bool() && v->get_bool();
}

// -- the structural-schema rules of apiextensions.k8s.io ------------------------------

const std::set<std::string> kTypes = {"object", "array", "string", "integer", "number", "boolean"};
const std::set<std::string> kScalars = {"string", "integer", "number", "boolean"};

struct Walker {
  std::string crd;
  std::vector<std::string> problems;

  void problem(const std::string& path, const std::string& what) { problems.push_back(crd + " " + path + ": " + what); }

  void node(const json::value& n, const std::string& path, bool root_metadata = false) {
    if (!n.is_object()) return problem(path, "is not a schema object");
    std::string type(json::get_string(n, "type"));
    bool int_or_string = flag(n, "x-kubernetes-int-or-string");
    bool preserve = flag(n, "x-kubernetes-preserve-unknown-fields");
    if (int_or_string) {
      if (!type.empty()) problem(path, "x-kubernetes-int-or-string with a type");
      const json::value* any_of = json::find(n, "anyOf");
      json::value want = json::array{json::object{{"type", "integer"}}, json::object{{"type", "string"}}};
      if (any_of != nullptr && !json::equal(*any_of, want)) {
        problem(path, "x-kubernetes-int-or-string allows only anyOf: [{type: integer}, {type: string}]");
      }
    } else if (type.empty()) {
      problem(path, "has no type");
    } else if (!kTypes.count(type)) {
      problem(path, "unknown type " + type);
    }
    if (preserve && type != "object") problem(path, "x-kubernetes-preserve-unknown-fields needs type: object");
    for (const char* junctor : {"allOf", "oneOf", "not"}) {
      if (json::find(n, junctor) != nullptr) problem(path, std::string(junctor) + " is not used by these schemas");
    }
    if (json::find(n, "anyOf") != nullptr && !int_or_string) problem(path, "anyOf outside int-or-string");
    if (flag(n, "nullable")) problem(path, "nullable");
    const json::value* props = json::find(n, "properties");
    const json::value* additional = json::find(n, "additionalProperties");
    const json::value* items = json::find(n, "items");
    if (props != nullptr && additional != nullptr) problem(path, "both properties and additionalProperties");
    if (additional != nullptr && !additional->is_object()) problem(path, "additionalProperties must be a schema");
    if ((props != nullptr || additional != nullptr) && type != "object") problem(path, "properties on a non-object");
    if (type == "array" && items == nullptr) problem(path, "array without items");
    if (items != nullptr && type != "array") problem(path, "items on a non-array");
    if (root_metadata) {
      // Only metadata.name and metadata.generateName may be restricted.
      for (const auto& kv : n.as_object()) {
        if (kv.key() != "type") problem(path, "metadata may only be {type: object}, not " + std::string(kv.key()));
      }
    }
    if (const json::value* rules = json::find(n, "x-kubernetes-validations")) {
      if (!rules->is_array()) problem(path, "x-kubernetes-validations is not a list");
      for (const auto& r : rules->is_array() ? rules->as_array() : json::array{}) {
        if (json::get_string(r, "rule").empty()) problem(path, "a validation without a rule");
        if (json::get_string(r, "message").empty()) problem(path, "a validation without a message");
      }
    }
    if (const json::value* map_type = json::find(n, "x-kubernetes-map-type"); map_type != nullptr) {
      if (type != "object") problem(path, "x-kubernetes-map-type on a non-object");
    }
    list_type(n, type, items, path);
    if (props != nullptr && props->is_object()) {
      for (const auto& kv : props->as_object()) {
        std::string child = path + "." + std::string(kv.key());
        node(kv.value(), child, path.empty() && kv.key() == "metadata");
      }
    }
    if (additional != nullptr && additional->is_object()) node(*additional, path + "{}");
    if (items != nullptr) node(*items, path + "[]");
  }

  void list_type(const json::value& n, const std::string& type, const json::value* items, const std::string& path) {
    std::string list(json::get_string(n, "x-kubernetes-list-type"));
    const json::value* keys = json::find(n, "x-kubernetes-list-map-keys");
    if (list.empty()) {  // atomic
      if (keys != nullptr) problem(path, "x-kubernetes-list-map-keys without list-type map");
      return;
    }
    if (type != "array") return problem(path, "x-kubernetes-list-type on a non-array");
    if (list == "atomic") return;
    if (list == "set") {
      if (items == nullptr || !kScalars.count(std::string(json::get_string(*items, "type")))) {
        problem(path, "list-type set needs scalar items");
      }
      return;
    }
    if (list != "map") return problem(path, "unknown x-kubernetes-list-type " + list);
    if (items == nullptr || json::get_string(*items, "type") != "object") {
      return problem(path, "list-type map needs object items");
    }
    if (keys == nullptr || !keys->is_array() || keys->as_array().empty()) {
      return problem(path, "list-type map without x-kubernetes-list-map-keys");
    }
    std::set<std::string> required;
    if (const json::value* req = json::find(*items, "required"); req != nullptr && req->is_array()) {
      for (const auto& r : req->as_array()) required.insert(std::string(r.get_string()));
    }
    for (const auto& k : keys->as_array()) {
      std::string key(k.get_string());
      const json::value* prop = json::find_path(*items, {"properties", key});
      if (prop == nullptr) {
        problem(path, "list-map key " + key + " is not a property of the items");
        continue;
      }
      if (!kScalars.count(std::string(json::get_string(*prop, "type")))) {
        problem(path, "list-map key " + key + " is not a scalar");
      }
      if (!required.count(key) && json::find(*prop, "default") == nullptr) {
        problem(path, "list-map key " + key + " must be required or have a default");
      }
    }
  }
};

TEST(DeployCrds, OneFilePerWatchedKind) {
  auto crds = our_crds();
  std::set<std::string> kinds;
  for (const auto& [kind, crd] : crds) kinds.insert(kind);
  EXPECT_EQ(kinds, kKinds);
}

TEST(DeployCrds, ServeV1beta1AndV1beta2AsStorageThroughTheConversionWebhook) {
  for (const auto& [kind, crd] : our_crds()) {
    SCOPED_TRACE(kind);
    EXPECT_EQ(json::get_string(crd, "apiVersion"), "apiextensions.k8s.io/v1");
    EXPECT_EQ(json::get_string(crd, "kind"), "CustomResourceDefinition");
    const json::value* spec = json::find(crd, "spec");
    ASSERT_NE(spec, nullptr);
    EXPECT_EQ(json::get_string(*spec, "group"), "kueue.x-k8s.io");
    std::string plural(json::get_string(*json::find(*spec, "names"), "plural"));
    EXPECT_EQ(json::get_string(*json::find(crd, "metadata"), "name"), plural + ".kueue.x-k8s.io");
    const json::value* versions = json::find(*spec, "versions");
    ASSERT_TRUE(versions != nullptr && versions->is_array());
    ASSERT_EQ(versions->as_array().size(), 2u) << "v1beta1 (served, converted) and v1beta2 (storage)";
    const json::value* old_version = version_of(crd, "v1beta1");
    ASSERT_NE(old_version, nullptr);
    EXPECT_TRUE(flag(*old_version, "served"));
    EXPECT_FALSE(flag(*old_version, "storage"));
    EXPECT_EQ(json::find(*old_version, "selectableFields"), nullptr) << "selectableFields needs Kubernetes 1.30";
    ASSERT_NE(version_of(crd, "v1beta2"), nullptr);
    const json::value& v = *version_of(crd, "v1beta2");
    EXPECT_TRUE(flag(v, "served"));
    EXPECT_TRUE(flag(v, "storage"));
    EXPECT_EQ(json::find(v, "selectableFields"), nullptr) << "selectableFields needs Kubernetes 1.30";
    // Converted by kueuepp's webhook server, whose Service deploy/ ships.
    const json::value* conversion = json::find(*spec, "conversion");
    ASSERT_NE(conversion, nullptr);
    EXPECT_EQ(json::get_string(*conversion, "strategy"), "Webhook");
    const json::value* service = json::find_path(*conversion, {"webhook", "clientConfig", "service"});
    ASSERT_NE(service, nullptr);
    EXPECT_EQ(json::get_string(*service, "name"), "kueuepp-webhook-service");
    EXPECT_EQ(json::get_string(*service, "namespace"), "kueuepp-system");
    EXPECT_EQ(json::get_string(*service, "path"), "/convert");
    EXPECT_EQ(json::dump(*json::find_path(*conversion, {"webhook", "conversionReviewVersions"})), R"(["v1"])");
    EXPECT_NE(schema_of(v), nullptr);
    // A status subresource exactly when there is a status.
    bool has_status = json::find_path(*schema_of(v), {"properties", "status"}) != nullptr;
    EXPECT_EQ(json::find_path(v, {"subresources", "status"}) != nullptr, has_status);
    if (const json::value* cols = json::find(v, "additionalPrinterColumns")) {
      for (const auto& c : cols->as_array()) {
        EXPECT_EQ(json::get_string(c, "jsonPath").substr(0, 1), ".") << json::dump(c);
        EXPECT_FALSE(json::get_string(c, "name").empty());
        EXPECT_FALSE(json::get_string(c, "type").empty());
      }
    }
  }
}

TEST(DeployCrds, SchemasAreStructural) {
  for (const auto& [kind, crd] : our_crds()) {
    const json::value* v = version_of(crd, "v1beta2");
    ASSERT_NE(v, nullptr) << kind;
    const json::value* schema = schema_of(*v);
    ASSERT_NE(schema, nullptr) << kind;
    Walker w{kind, {}};
    w.node(*schema, "");
    EXPECT_EQ(json::get_string(*schema, "type"), "object") << kind;
    for (const auto& p : w.problems) ADD_FAILURE() << p;
  }
}

// kubectl apply (client-side) stores the object in an annotation of at most 256 KiB.
TEST(DeployCrds, SmallEnoughForClientSideApply) {
  for (const auto& [kind, crd] : our_crds()) {
    EXPECT_LT(json::dump(crd).size(), 200u * 1024) << kind;
  }
}

// -- parity with Kueue's CRDs ------------------------------------------------------------

/// The validation-relevant keywords of one schema node (descriptions left out).
json::object essentials(const json::value& node) {
  static const char* kKeys[] = {"type",        "format",      "enum",       "pattern",       "default",
                                "minimum",     "maximum",     "minLength",  "maxLength",     "minItems",
                                "maxItems",    "minProperties", "maxProperties", "required", "anyOf",
                                "x-kubernetes-list-type",     "x-kubernetes-list-map-keys",  "x-kubernetes-map-type",
                                "x-kubernetes-int-or-string", "x-kubernetes-preserve-unknown-fields",
                                "x-kubernetes-embedded-resource", "nullable"};
  json::object out;
  for (const char* k : kKeys) {
    if (const json::value* v = json::find(node, k)) out[k] = *v;
  }
  // CEL rules compared without whitespace, with their messages and options.
  if (const json::value* rules = json::find(node, "x-kubernetes-validations"); rules != nullptr && rules->is_array()) {
    json::array cel;
    for (const auto& r : rules->as_array()) {
      json::object rule = r.as_object();
      std::string text(json::get_string(r, "rule"));
      text.erase(std::remove_if(text.begin(), text.end(), [](unsigned char c) { return std::isspace(c); }), text.end());
      rule["rule"] = text;
      cel.push_back(std::move(rule));
    }
    out["x-kubernetes-validations"] = std::move(cel);
  }
  return out;
}

/// Every schema node by path (`.spec.podSets[].name`, `.status.admission.flavors{}`).
void flatten(const json::value& node, const std::string& path, std::map<std::string, json::object>& out) {
  out[path] = essentials(node);
  if (const json::value* props = json::find(node, "properties"); props != nullptr && props->is_object()) {
    for (const auto& kv : props->as_object()) flatten(kv.value(), path + "." + std::string(kv.key()), out);
  }
  if (const json::value* items = json::find(node, "items")) flatten(*items, path + "[]", out);
  if (const json::value* add = json::find(node, "additionalProperties"); add != nullptr && add->is_object()) {
    flatten(*add, path + "{}", out);
  }
}

/// Where ours may differ from Kueue's: inside the pod template (partly validated, the
/// rest preserved, see deploy/crds/workloads.yaml).
bool in_pod_template(const std::string& path) { return path.rfind(".spec.podSets[].template", 0) == 0; }

TEST(DeployCrds, ValidateWhatKueueValidates) {
  std::string kueue_dir = shared_dir() + "/kueue-crds";
  if (!fs::is_directory(kueue_dir)) GTEST_SKIP() << "needs " << kueue_dir;
  for (const auto& [kind, ours] : our_crds()) {
    SCOPED_TRACE(kind);
    std::string plural(json::get_string(*json::find_path(ours, {"spec", "names"}), "plural"));
    json::value kueue = load_crd(kueue_dir + "/kueue.x-k8s.io_" + plural + ".yaml");
    ASSERT_TRUE(kueue.is_object());
    for (const char* key : {"names", "scope", "group"}) {
      EXPECT_TRUE(json::equal(*json::find_path(ours, {"spec", key}), *json::find_path(kueue, {"spec", key}))) << key;
    }
    const json::value* kv = version_of(kueue, "v1beta2");
    const json::value* ov = version_of(ours, "v1beta2");
    ASSERT_TRUE(kv != nullptr && ov != nullptr);
    auto columns = [](const json::value& v) {
      const json::value* c = json::find(v, "additionalPrinterColumns");
      return c == nullptr ? json::value(json::array{}) : *c;
    };
    EXPECT_TRUE(json::equal(columns(*ov), columns(*kv))) << "printer columns";
    EXPECT_EQ(json::find_path(*ov, {"subresources", "status"}) != nullptr,
              json::find_path(*kv, {"subresources", "status"}) != nullptr);
    std::map<std::string, json::object> k, o;
    flatten(*schema_of(*kv), "", k);
    flatten(*schema_of(*ov), "", o);
    for (const auto& [path, want] : k) {
      auto it = o.find(path);
      if (it == o.end()) {
        if (!in_pod_template(path)) ADD_FAILURE() << "missing " << path;
        continue;
      }
      if (in_pod_template(path)) {
        // A node we declare is declared as Kueue does, except for preserving unknown fields.
        json::object got = it->second;
        got.erase("x-kubernetes-preserve-unknown-fields");
        EXPECT_TRUE(json::equal(got, want)) << path << ": ours " << json::dump(it->second) << ", Kueue's "
                                            << json::dump(want);
      } else {
        EXPECT_TRUE(json::equal(it->second, want)) << path << ": ours " << json::dump(it->second) << ", Kueue's "
                                                   << json::dump(want);
      }
    }
    for (const auto& [path, node] : o) {
      if (!k.count(path)) ADD_FAILURE() << "not in Kueue's CRD: " << path;
    }
  }
}

}  // namespace
}  // namespace kueuepp
