#include "tests/kube/apiserver/schema/test_support.hpp"

namespace kueuepp::kube::schema {
namespace {

using testing::J;

const char* kSchema = R"({
  "type": "object",
  "properties": {
    "spec": {"type": "object", "properties": {
      "name": {"type": "string"},
      "groups": {"type": "array", "items": {"type": "object", "properties": {
        "flavors": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}}}}},
      "labels": {"type": "object", "additionalProperties": {"type": "string"}},
      "opaque": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                 "properties": {"known": {"type": "object", "properties": {"k": {"type": "string"}}}}},
      "bare": {"type": "object"},
      "nested": {"type": "array", "items": {"type": "array", "items": {"type": "object"}}},
      "embedded": {"type": "object", "x-kubernetes-embedded-resource": true,
                   "properties": {"spec": {"type": "object", "properties": {"x": {"type": "string"}}}}},
      "keepNull": {"type": "string", "nullable": true},
      "dropNull": {"type": "string"},
      "nullDefault": {"type": "string", "default": "d"}
    }},
    "status": {"type": "object", "properties": {"phase": {"type": "string"}}}
  }})";

TEST(Prune, DropsUnknownFieldsAndReportsSortedPaths) {
  auto s = testing::inline_schema(kSchema);
  ASSERT_TRUE(s);
  json::value v = J(R"({"apiVersion": "g/v1", "kind": "K", "metadata": {"name": "n", "whatever": 1},
      "foo": 1,
      "spec": {"name": "n", "zzz": true, "labels": {"a": "b", "c": "d"},
               "groups": [{"flavors": [{"name": "f", "bogus": 1}, {"also": 2}], "extra": {}}],
               "bare": {"x": 1, "y": {"z": 2}}},
      "status": {"phase": "P", "unknown": []}})");
  auto paths = prune(*s, v);
  EXPECT_EQ(paths, (std::vector<std::string>{"foo", "spec.bare.x", "spec.bare.y", "spec.groups[0].extra",
                                             "spec.groups[0].flavors[0].bogus", "spec.groups[0].flavors[1].also",
                                             "spec.zzz", "status.unknown"}));
  EXPECT_EQ(v, J(R"({"apiVersion": "g/v1", "kind": "K", "metadata": {"name": "n", "whatever": 1},
      "spec": {"name": "n", "labels": {"a": "b", "c": "d"}, "groups": [{"flavors": [{"name": "f"}, {}]}], "bare": {}},
      "status": {"phase": "P"}})"));
}

TEST(Prune, PreserveUnknownFieldsStillPrunesDeclaredChildren) {
  auto s = testing::inline_schema(kSchema);
  ASSERT_TRUE(s);
  json::value v = J(R"({"spec": {"opaque": {"anything": {"deep": [1]}, "known": {"k": "v", "drop": 1}}}})");
  EXPECT_EQ(prune(*s, v), std::vector<std::string>{"spec.opaque.known.drop"});
  EXPECT_EQ(v, J(R"({"spec": {"opaque": {"anything": {"deep": [1]}, "known": {"k": "v"}}}})"));
}

TEST(Prune, EmbeddedResourcesKeepTypeAndObjectMeta) {
  auto s = testing::inline_schema(kSchema);
  ASSERT_TRUE(s);
  json::value v = J(R"({"spec": {"embedded": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                                             "spec": {"x": "1", "y": 2}, "other": 3}}})");
  EXPECT_EQ(prune(*s, v), (std::vector<std::string>{"spec.embedded.other", "spec.embedded.spec.y"}));
  EXPECT_EQ(v.at("spec").at("embedded"),
            J(R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"x": "1"}})"));
}

// Below an array without an item schema every object key is unknown.
TEST(Prune, NestedArraysAndMissingSchemas) {
  auto s = testing::inline_schema(kSchema);
  ASSERT_TRUE(s);
  json::value v = J(R"({"spec": {"nested": [[{"a": 1}], [{"b": 2}, 3]]}})");
  EXPECT_EQ(prune(*s, v), (std::vector<std::string>{"spec.nested[0][0].a", "spec.nested[1][0].b"}));
  auto free_array = testing::inline_schema(R"({"type": "object", "properties": {"l": {"type": "array"}}})");
  json::value w = J(R"({"l": [{"a": 1}, [{"b": 1}]]})");
  EXPECT_EQ(prune(*free_array, w), (std::vector<std::string>{"l[0].a", "l[1][0].b"}));
}

// Like kube-apiserver's decoder: nulls of non-nullable fields without default go away
// silently; nullable ones stay, defaulted ones are left for apply_defaults.
TEST(Prune, DropsNonNullableNullsWithoutDefault) {
  auto s = testing::inline_schema(kSchema);
  ASSERT_TRUE(s);
  json::value v = J(R"({"spec": {"keepNull": null, "dropNull": null, "nullDefault": null, "labels": {"a": null}},
                        "status": null})");
  EXPECT_TRUE(prune(*s, v).empty());
  EXPECT_EQ(v, J(R"({"spec": {"keepNull": null, "nullDefault": null, "labels": {}}})"));
  apply_defaults(*s, v);
  EXPECT_EQ(v.at("spec").at("nullDefault"), "d");
}

// Nulls go wherever a schema reaches (list items, nested lists, additionalProperties);
// below a value with no schema (metadata, an unknown key kept by
// x-kubernetes-preserve-unknown-fields, an array without items) they stay.
TEST(Prune, NullsStayWhereNoSchemaReaches) {
  auto s = testing::inline_schema(kSchema);
  ASSERT_TRUE(s);
  json::value v = J(R"({"metadata": {"name": "n", "annotations": null, "managedFields": [{"f": null}]},
      "spec": {"groups": [{"flavors": [{"name": null}, null]}, null], "labels": {"a": null},
               "opaque": {"anything": {"deep": null}, "known": {"k": null}}, "bare": null,
               "nested": [[{"a": null}]]}})");
  prune(*s, v);
  EXPECT_EQ(v, J(R"({"metadata": {"name": "n", "annotations": null, "managedFields": [{"f": null}]},
      "spec": {"groups": [{"flavors": [{}, null]}, null], "labels": {},
               "opaque": {"anything": {"deep": null}, "known": {}}, "nested": [[{}]]}})"));
}

TEST(Prune, KueueClusterQueueWarningPath) {
  KUEUEPP_REQUIRE_SCHEMA(s, "clusterqueues", "v1beta2");
  json::value cq = J(R"({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
      "metadata": {"name": "cq", "labels": {"a": "b"}},
      "spec": {"foo": "bar", "resourceGroups": [{"coveredResources": ["cpu"], "foo": 1,
               "flavors": [{"name": "rf", "resources": [{"name": "cpu", "nominalQuota": 1, "foo": 2}]}]}]}})");
  EXPECT_EQ(prune(*s, cq), (std::vector<std::string>{"spec.foo", "spec.resourceGroups[0].flavors[0].resources[0].foo",
                                                    "spec.resourceGroups[0].foo"}));
  EXPECT_EQ(cq.at("metadata"), J(R"({"name": "cq", "labels": {"a": "b"}})"));
}

TEST(Prune, DeepDocumentsDoNotExhaustTheStack) {
  auto s = testing::inline_schema(R"({"type": "object", "properties": {"l": {"type": "array"}}})");
  std::string deep = R"({"l": )" + std::string(5000, '[') + std::string(5000, ']') + "}";
  boost::json::parse_options opts;
  opts.max_depth = 20000;
  json::value v = boost::json::parse(deep, {}, opts);
  EXPECT_TRUE(prune(*s, v).empty());
  apply_defaults(*s, v);
  EXPECT_TRUE(validate(*s, v, &v).empty());
}

}  // namespace
}  // namespace kueuepp::kube::schema
