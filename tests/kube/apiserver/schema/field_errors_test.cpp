#include "kube/apiserver/schema/field_errors.hpp"

#include <gtest/gtest.h>

#include "kube/apiserver/schema/path.hpp"
#include "tests/kube/apiserver/schema/test_support.hpp"

namespace kueuepp::kube::schema {
namespace {

using testing::J;

TEST(GoFormatting, Quote) {
  EXPECT_EQ(go_quote("abc"), "\"abc\"");
  EXPECT_EQ(go_quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(go_quote("a\nb\tc\x01"), "\"a\\nb\\tc\\x01\"");
  EXPECT_EQ(go_quote("é"), "\"é\"");
  EXPECT_EQ(go_quote("\xff"), "\"\\xff\"");
}

TEST(GoFormatting, Floats) {
  EXPECT_EQ(go_float(1.5), "1.5");
  EXPECT_EQ(go_float(2), "2");
  EXPECT_EQ(go_float(123456), "123456");
  EXPECT_EQ(go_float(1e6), "1e+06");
  EXPECT_EQ(go_float(0.0001), "0.0001");
  EXPECT_EQ(go_float(0.00001), "1e-05");
  EXPECT_EQ(go_float(-2.5e-7), "-2.5e-07");
}

TEST(GoFormatting, BadValues) {
  EXPECT_EQ(go_value(nullptr), "\"null\"");
  json::value v = J(R"({"b": [1, "x", true, null, 1.5], "a": {"k": "v"}})");
  EXPECT_EQ(go_value(&v),
            "map[string]interface {}{\"a\":map[string]interface {}{\"k\":\"v\"}, "
            "\"b\":[]interface {}{1, \"x\", true, interface {}(nil), 1.5}}");
  json::value s = "x";
  EXPECT_EQ(go_value(&s), "\"x\"");
  json::value n = 3;
  EXPECT_EQ(go_value(&n), "3");
}

TEST(SchemaFieldErrors, MessagesAsErrorBodyPrintsThem) {
  namespace fe = field_errors;
  EXPECT_EQ(fe::required("spec.x").message, "Required value");
  EXPECT_EQ(fe::required("spec.x", "must be set").message, "Required value: must be set");
  EXPECT_EQ(fe::forbidden("spec.x", "no").message, "Forbidden: no");
  EXPECT_EQ(fe::invalid("spec", "\"object\"", "rule failed").message, "Invalid value: \"object\": rule failed");
  EXPECT_EQ(fe::type_invalid("a", "\"string\"", "a in body must be of type integer: \"string\"").type,
            "FieldValueTypeInvalid");
  EXPECT_EQ(fe::not_supported("spec.q", "\"Bogus\"", {"StrictFIFO", "BestEffortFIFO"}).message,
            "Unsupported value: \"Bogus\": supported values: \"StrictFIFO\", \"BestEffortFIFO\"");
  EXPECT_EQ(fe::duplicate("l[1]", "\"a\"").message, "Duplicate value: \"a\"");
  EXPECT_EQ(fe::too_long("n", 63).message, "Too long: may not be longer than 63");
  EXPECT_EQ(fe::too_many("l", 3, 2).message, "Too many: 3: must have at most 2 items");
  EXPECT_EQ(fe::too_many("l", 3, 2).type, "FieldValueTooMany");
}

TEST(SchemaFieldErrors, DescribeAggregatesAsTheApiServer) {
  std::vector<FieldError> one = {{"FieldValueRequired", "spec.podSets[0].template", "Required value"}};
  EXPECT_EQ(describe(one), "spec.podSets[0].template: Required value");
  std::vector<FieldError> two = {
      one[0],
      {"FieldValueInvalid", "<nil>",
       "Invalid value: \"null\": some validation rules were not checked because the object was invalid; correct the "
       "existing errors to complete validation"},
      one[0]};  // duplicates are dropped
  EXPECT_EQ(describe(two),
            "[spec.podSets[0].template: Required value, <nil>: Invalid value: \"null\": some validation rules were not "
            "checked because the object was invalid; correct the existing errors to complete validation]");
}

TEST(PathStack, BothDialects) {
  PathStack p;
  EXPECT_EQ(p.field_path(), "<nil>");
  EXPECT_EQ(p.openapi(), "");
  p.push_field("spec");
  p.push_field("nodeLabels");
  p.push_key("kueue.x-k8s.io/x");
  EXPECT_EQ(p.field_path(), "spec.nodeLabels[kueue.x-k8s.io/x]");
  EXPECT_EQ(p.openapi(), "spec.nodeLabels.kueue.x-k8s.io/x");
  p.pop();
  p.pop();
  p.push_field("list");
  p.push_index(3);
  p.push_field("name");
  EXPECT_EQ(p.field_path(), "spec.list[3].name");
  EXPECT_EQ(p.openapi(), "spec.list[3].name");
  EXPECT_EQ(p.field_path("a.b"), "spec.list[3].name.a.b");
  EXPECT_EQ(p.field_path("[k]"), "spec.list[3].name[k]");
  PathStack root;
  EXPECT_EQ(root.field_path("spec.x"), "spec.x");
}

}  // namespace
}  // namespace kueuepp::kube::schema
