#include "tests/kube/apiserver/schema/test_support.hpp"

namespace kueuepp::kube::schema {
namespace {

using testing::J;

json::value defaulted(const SchemaPtr& s, std::string_view object) {
  json::value v = J(object);
  apply_defaults(*s, v);
  return v;
}

const char* kSchema = R"({
  "type": "object",
  "default": {"ignored": "the root's own default never applies"},
  "properties": {
    "a": {"type": "string", "default": "x"},
    "n": {"type": "integer", "default": 7, "nullable": true},
    "m": {"type": "integer", "default": 8},
    "obj": {"type": "object", "default": {}, "properties": {
      "inner": {"type": "string", "default": "in"},
      "deeper": {"type": "object", "default": {}, "properties": {"leaf": {"type": "boolean", "default": true}}}}},
    "list": {"type": "array", "items": {"type": "object", "properties": {
      "name": {"type": "string", "default": "main"}, "count": {"type": "integer"}}}},
    "scalars": {"type": "array", "items": {"type": "string", "default": "d"}},
    "map": {"type": "object", "additionalProperties": {"type": "object", "default": {"v": 0},
      "properties": {"v": {"type": "integer", "default": 1}, "w": {"type": "integer", "default": 2}}}},
    "anyOfDefault": {"type": "object", "anyOf": [{"properties": {"z": {"type": "string", "default": "no"}}}]},
    "noDefault": {"type": "string"}
  }})";

TEST(Defaults, AbsentPropertiesGetTheirDefaultRecursively) {
  auto s = testing::inline_schema(kSchema);
  ASSERT_TRUE(s);
  json::value v = defaulted(s, "{}");
  EXPECT_EQ(v, J(R"({"a": "x", "n": 7, "m": 8,
                     "obj": {"inner": "in", "deeper": {"leaf": true}}})"));
}

TEST(Defaults, PresentValuesAreKept) {
  auto s = testing::inline_schema(kSchema);
  ASSERT_TRUE(s);
  json::value v = defaulted(s, R"({"a": "given", "obj": {"inner": "mine", "extra": 1}})");
  EXPECT_EQ(v.at("a"), "given");
  EXPECT_EQ(v.at("obj"), J(R"({"inner": "mine", "extra": 1, "deeper": {"leaf": true}})"));
}

// A null replaces its default only when the field is nullable.
TEST(Defaults, NullsOfNonNullableFieldsAreDefaulted) {
  auto s = testing::inline_schema(kSchema);
  ASSERT_TRUE(s);
  json::value v = defaulted(s, R"({"n": null, "m": null, "noDefault": null})");
  EXPECT_TRUE(v.at("n").is_null());
  EXPECT_EQ(v.at("m"), 8);
  EXPECT_TRUE(v.at("noDefault").is_null());
}

TEST(Defaults, ArrayItemsAndMapValues) {
  auto s = testing::inline_schema(kSchema);
  ASSERT_TRUE(s);
  json::value v = defaulted(s, R"({"list": [{"count": 1}, {"name": "w"}],
                                   "scalars": ["a", null],
                                   "map": {"k1": {}, "k2": null, "k3": {"v": 5}}})");
  EXPECT_EQ(v.at("list"), J(R"([{"count": 1, "name": "main"}, {"name": "w"}])"));
  EXPECT_EQ(v.at("scalars"), J(R"(["a", "d"])"));
  EXPECT_EQ(v.at("map"), J(R"({"k1": {"v": 1, "w": 2}, "k2": {"v": 0, "w": 2}, "k3": {"v": 5, "w": 2}})"));
}

TEST(Defaults, JunctorsAndScalarsAreLeftAlone) {
  auto s = testing::inline_schema(kSchema);
  ASSERT_TRUE(s);
  json::value v = defaulted(s, R"({"anyOfDefault": {}, "list": "not a list", "obj": 3})");
  EXPECT_EQ(v.at("anyOfDefault"), J("{}"));
  EXPECT_EQ(v.at("list"), "not a list");
  EXPECT_EQ(v.at("obj"), 3);
  json::value scalar = 5;
  apply_defaults(*s, scalar);
  EXPECT_EQ(scalar, 5);
}

// The defaults kube-apiserver filled in, as recorded in the s18/s19 traces.
TEST(Defaults, KueueClusterQueue) {
  KUEUEPP_REQUIRE_SCHEMA(s, "clusterqueues", "v1beta2");
  json::value cq = J(R"({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "cq"},
      "spec": {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["cpu"],
               "flavors": [{"name": "rf", "resources": [{"name": "cpu", "nominalQuota": "1000m"}]}]}]}})");
  apply_defaults(*s, cq);
  EXPECT_EQ(cq.at("spec").at("flavorFungibility"), J(R"({"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"})"));
  EXPECT_EQ(cq.at("spec").at("preemption"),
            J(R"({"borrowWithinCohort": {"policy": "Never"}, "reclaimWithinCohort": "Never", "withinClusterQueue": "Never"})"));
  EXPECT_EQ(cq.at("spec").at("queueingStrategy"), "BestEffortFIFO");
  EXPECT_EQ(cq.at("spec").at("stopPolicy"), "None");
  EXPECT_EQ(cq.at("spec").at("resourceGroups").at(0).at("flavors").at(0).at("resources").at(0).at("nominalQuota"),
            "1000m");  // quantities are not canonicalized
  EXPECT_FALSE(cq.at("metadata").as_object().contains("labels"));
}

TEST(Defaults, KueueWorkloadAndLocalQueue) {
  KUEUEPP_REQUIRE_SCHEMA(wl, "workloads", "v1beta2");
  json::value w = J(R"({"spec": {"podSets": [{"count": 1, "template": {"spec": {"containers": [
      {"name": "c", "image": "i", "ports": [{"containerPort": 80}]}]}}}]}})");
  apply_defaults(*wl, w);
  EXPECT_EQ(w.at("spec").at("active"), true);
  const json::value& ps = w.at("spec").at("podSets").at(0);
  EXPECT_EQ(ps.at("name"), "main");
  EXPECT_EQ(ps.at("template").at("spec").at("containers").at(0).at("ports").at(0).at("protocol"), "TCP");
  KUEUEPP_REQUIRE_SCHEMA(lq, "localqueues", "v1beta2");
  json::value q = J(R"({"spec": {"clusterQueue": "cq"}})");
  apply_defaults(*lq, q);
  EXPECT_EQ(q.at("spec"), J(R"({"clusterQueue": "cq", "stopPolicy": "None"})"));
}

}  // namespace
}  // namespace kueuepp::kube::schema
