// The FieldsV1 format of managedFields (structured-merge-diff's set serialization).

#include <gtest/gtest.h>

#include "kube/apiserver/patch/field_set.hpp"
#include "tests/kube/apiserver/patch/test_json.hpp"

namespace kueuepp::kube::patch::detail {
namespace {

using kube::patch::testing::J;
using kube::patch::testing::JsonEq;

Path path(std::initializer_list<PathElement> elements) { return Path(elements); }
PathElement f(std::string_view n) { return PathElement::of_field(n); }

TEST(FieldSet, RoundTripsFieldsV1) {
  const auto text = J(R"({"f:metadata":{"f:labels":{".":{},"f:app":{}}},
      "f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{}}},"f:finalizers":{"v:\"a\"":{}}}})");
  auto set = FieldSet::from_fields_v1(text);
  ASSERT_TRUE(set.has_value()) << set.error().message;
  EXPECT_TRUE(JsonEq(json::value(set->to_fields_v1()), text));
  EXPECT_TRUE(set->has(path({f("metadata"), f("labels")})));
  EXPECT_TRUE(set->has(path({f("metadata"), f("labels"), f("app")})));
  EXPECT_FALSE(set->has(path({f("metadata")})));
  EXPECT_TRUE(set->touches(path({f("metadata")})));
  EXPECT_TRUE(set->has(path({f("spec"), f("containers"), PathElement::of_key(J(R"({"name":"c"})").as_object())})));
}

TEST(FieldSet, KeysAreSortedByName) {
  const PathElement pe = PathElement::of_key(J(R"({"protocol":"TCP","containerPort":80})").as_object());
  EXPECT_EQ(pe.serialize(), R"(k:{"containerPort":80,"protocol":"TCP"})");
  EXPECT_EQ(pe.display(), R"([containerPort=80,protocol="TCP"])");
}

TEST(FieldSet, ElementOrderIsFieldsKeysValuesIndexes) {
  FieldSet s;
  s.insert(path({PathElement::of_value(J("1"))}));
  s.insert(path({f("b")}));
  s.insert(path({PathElement::of_key(J(R"({"a":1})").as_object())}));
  s.insert(path({f("a")}));
  EXPECT_EQ(json::dump(json::value(s.to_fields_v1())), R"({"f:a":{},"f:b":{},"k:{\"a\":1}":{},"v:1":{}})");
}

TEST(FieldSet, SetOperations) {
  FieldSet a, b;
  a.insert(path({f("x"), f("y")}));
  a.insert(path({f("x"), f("z")}));
  b.insert(path({f("x"), f("z")}));
  b.insert(path({f("w")}));
  EXPECT_TRUE(JsonEq(json::value(a.minus(b).to_fields_v1()), J(R"({"f:x":{"f:y":{}}})")));
  EXPECT_TRUE(JsonEq(json::value(a.intersected(b).to_fields_v1()), J(R"({"f:x":{"f:z":{}}})")));
  EXPECT_TRUE(JsonEq(json::value(a.united(b).to_fields_v1()), J(R"({"f:w":{},"f:x":{"f:y":{},"f:z":{}}})")));
  EXPECT_TRUE(a.minus(a).empty());
}

TEST(FieldSet, DisplayPaths) {
  const Path p{f("spec"), f("containers"), PathElement::of_key(J(R"({"name":"c"})").as_object()), f("image")};
  EXPECT_EQ(display_path(p), R"(.spec.containers[name="c"].image)");
  EXPECT_EQ(PathElement::of_value(J(R"("x")")).display(), R"([="x"])");
}

TEST(FieldSet, CanonicalNumbersLikeGo) {
  EXPECT_EQ(canonical_json(J("80.0")), "80");
  EXPECT_EQ(canonical_json(J("0.5")), "0.5");
  EXPECT_EQ(canonical_json(J(R"({"b":1,"a":[true,null]})")), R"({"a":[true,null],"b":1})");
}

TEST(FieldSet, UnknownElementTypesAreSkippedAndBadOnesRefused) {
  auto skipped = FieldSet::from_fields_v1(J(R"({"x:future":{},"f:a":{}})"));
  ASSERT_TRUE(skipped.has_value());
  EXPECT_TRUE(JsonEq(json::value(skipped->to_fields_v1()), J(R"({"f:a":{}})")));
  EXPECT_FALSE(FieldSet::from_fields_v1(J(R"({"k:notjson":{}})")).has_value());
  EXPECT_FALSE(FieldSet::from_fields_v1(J(R"({"k:[1]":{}})")).has_value());
  EXPECT_FALSE(FieldSet::from_fields_v1(J(R"({"i:x":{}})")).has_value());
  EXPECT_FALSE(FieldSet::from_fields_v1(J(R"({"f":{}})")).has_value());
  EXPECT_FALSE(FieldSet::from_fields_v1(J(R"({"f:a":1})")).has_value());
  EXPECT_FALSE(FieldSet::from_fields_v1(J("[]")).has_value());
  EXPECT_TRUE(FieldSet::from_fields_v1(J("null")).has_value());
}

TEST(FieldSet, IndexesParse) {
  auto s = FieldSet::from_fields_v1(J(R"({"f:l":{"i:3":{}}})"));
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(json::dump(json::value(s->to_fields_v1())), R"({"f:l":{"i:3":{}}})");
}

}  // namespace
}  // namespace kueuepp::kube::patch::detail
