#include "tests/kube/apiserver/schema/test_support.hpp"

namespace kueuepp::kube::schema {
namespace {

std::string render(const patch::ListStrategy& s) {
  std::string out = s.kind == patch::ListStrategy::Kind::Atomic ? "atomic" : (s.kind == patch::ListStrategy::Kind::Set ? "set" : "map");
  for (const auto& k : s.keys) out += " " + k;
  return out;
}

std::string at(const patch::ListStrategyResolver& r, std::vector<std::string> path) {
  return render(r(patch::FieldPath(path.data(), path.size())));
}

TEST(ListStrategies, FromListTypeExtensions) {
  auto s = testing::inline_schema(R"({"type": "object", "properties": {
      "spec": {"type": "object", "properties": {
        "sets": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
        "maps": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name", "port"],
                 "items": {"type": "object", "properties": {
                   "inner": {"type": "array", "x-kubernetes-list-type": "set"}}}},
        "plain": {"type": "array"},
        "byKey": {"type": "object", "additionalProperties": {"type": "array", "x-kubernetes-list-type": "set"}}}}}})");
  ASSERT_TRUE(s);
  auto r = list_strategies(s);
  EXPECT_EQ(at(r, {"spec", "sets"}), "set");
  EXPECT_EQ(at(r, {"spec", "maps"}), "map name port");
  EXPECT_EQ(at(r, {"spec", "maps", "inner"}), "set");  // array level skipped
  EXPECT_EQ(at(r, {"spec", "plain"}), "atomic");
  EXPECT_EQ(at(r, {"spec", "byKey", "anything"}), "set");  // map key consumed by additionalProperties
  EXPECT_EQ(at(r, {"spec", "nope"}), "atomic");
  EXPECT_EQ(at(r, {}), "atomic");
  EXPECT_EQ(at(list_strategies(nullptr), {"spec"}), "atomic");
}

TEST(AtomicObjects, FromMapTypeExtensions) {
  auto s = testing::inline_schema(R"({"type": "object", "properties": {
      "spec": {"type": "object", "properties": {
        "labels": {"type": "object", "x-kubernetes-map-type": "atomic", "additionalProperties": {"type": "string"}},
        "granular": {"type": "object", "x-kubernetes-map-type": "granular", "additionalProperties": {"type": "string"}},
        "plain": {"type": "object", "additionalProperties": {"type": "string"}}}}}})");
  ASSERT_TRUE(s);
  auto atomic = atomic_objects(s);
  auto is_atomic = [&](std::vector<std::string> path) { return atomic(patch::FieldPath(path.data(), path.size())); };
  EXPECT_TRUE(is_atomic({"spec", "labels"}));
  EXPECT_FALSE(is_atomic({"spec", "granular"}));
  EXPECT_FALSE(is_atomic({"spec", "plain"}));
  EXPECT_FALSE(is_atomic({"spec", "nope"}));
  std::vector<std::string> spec{"spec"};
  EXPECT_FALSE(atomic_objects(nullptr)(patch::FieldPath(spec.data(), spec.size())));
}

TEST(ListStrategies, KueueWorkload) {
  KUEUEPP_REQUIRE_SCHEMA(s, "workloads", "v1beta2");
  auto r = list_strategies(s);
  EXPECT_EQ(at(r, {"spec", "podSets"}), "map name");
  EXPECT_EQ(at(r, {"spec", "podSets", "template", "spec", "containers"}), "map name");
  EXPECT_EQ(at(r, {"status", "conditions"}), "map type");
}

}  // namespace
}  // namespace kueuepp::kube::schema
