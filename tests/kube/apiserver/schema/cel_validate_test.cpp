// x-kubernetes-validations as kube-apiserver runs them: where errors point, how they are
// worded, reasons, fieldPath, messageExpression, transition rules and old-value
// correlation, optionalOldSelf, schema typing of values, cost limits.

#include "tests/kube/apiserver/schema/test_support.hpp"

namespace kueuepp::kube::schema {
namespace {

using testing::causes;
using testing::J;

std::vector<FieldError> check(const SchemaPtr& s, std::string_view object, const char* old = nullptr) {
  json::value v = J(object);
  json::value o = old != nullptr ? J(old) : json::value(nullptr);
  return validate(*s, v, old != nullptr ? &o : nullptr);
}

TEST(CelRules, ErrorsPointAtTheNodeCarryingTheRule) {
  auto s = testing::inline_schema(R"j({"type": "object",
      "x-kubernetes-validations": [{"rule": "has(self.spec)", "message": "spec required"}],
      "properties": {"spec": {"type": "object",
        "x-kubernetes-validations": [{"rule": "self.size() < 3"}],
        "properties": {
          "list": {"type": "array", "items": {"type": "object",
                   "x-kubernetes-validations": [{"rule": "self.v > 0", "message": "  positive  "}],
                   "properties": {"v": {"type": "integer"}}}},
          "m": {"type": "object", "additionalProperties": {"type": "string",
                "x-kubernetes-validations": [{"rule": "self != 'bad'", "message": "no bad"}]}}}}}})j");
  ASSERT_TRUE(s);
  auto e = check(s, "{}");
  EXPECT_EQ(causes(e), std::vector<std::string>{"FieldValueInvalid <nil>"});
  EXPECT_EQ(e[0].message, "Invalid value: \"object\": spec required");
  e = check(s, R"j({"spec": {"list": [{"v": 1}, {"v": 0}], "m": {"a.b/c": "bad", "ok": "x"}}})j");
  EXPECT_EQ(causes(e), (std::vector<std::string>{"FieldValueInvalid spec.list[1]", "FieldValueInvalid spec.m[a.b/c]"}));
  EXPECT_EQ(e[0].message, "Invalid value: \"object\": positive");
  EXPECT_EQ(e[1].message, "Invalid value: \"string\": no bad");
  e = check(s, R"j({"spec": {"list": [], "m": {}, "x": 1}})j");
  EXPECT_EQ(causes(e), std::vector<std::string>{"FieldValueInvalid spec"});
  EXPECT_EQ(e[0].message, "Invalid value: \"object\": failed rule: self.size() < 3");
}

TEST(CelRules, ReasonsAndFieldPaths) {
  auto s = testing::inline_schema(R"j({"type": "object", "properties": {"spec": {"type": "object",
      "properties": {"replicas": {"type": "integer"}, "m": {"type": "object", "additionalProperties": {"type": "string"}}},
      "x-kubernetes-validations": [
        {"rule": "false", "message": "forbidden", "reason": "FieldValueForbidden", "fieldPath": ".replicas"},
        {"rule": "false", "message": "required", "reason": "FieldValueRequired", "fieldPath": ".m['a.b']"},
        {"rule": "false", "message": "dup", "reason": "FieldValueDuplicate"},
        {"rule": "false", "message": "invalid", "reason": "FieldValueInvalid"}]}}})j");
  ASSERT_TRUE(s);
  auto e = check(s, R"j({"spec": {}})j");
  EXPECT_EQ(causes(e), (std::vector<std::string>{"FieldValueForbidden spec.replicas", "FieldValueRequired spec.m[a.b]",
                                                "FieldValueDuplicate spec", "FieldValueInvalid spec"}));
  EXPECT_EQ(e[0].message, "Forbidden: forbidden");
  EXPECT_EQ(e[1].message, "Required value: required");
  EXPECT_EQ(e[2].message, "Duplicate value: \"object\"");
  EXPECT_EQ(e[3].message, "Invalid value: \"object\": invalid");
}

TEST(CelRules, MessageExpressions) {
  auto s = testing::inline_schema(R"j({"type": "object", "properties": {"n": {"type": "integer",
      "x-kubernetes-validations": [
        {"rule": "self < 10", "messageExpression": "'n is ' + string(self)"},
        {"rule": "self < 9", "message": "fallback", "messageExpression": "1"},
        {"rule": "self < 8", "message": "fallback", "messageExpression": "'  '"},
        {"rule": "self < 7", "message": "fallback", "messageExpression": "'a\\nb'"},
        {"rule": "self < 6", "message": "fallback", "messageExpression": "string(1 / 0)"},
        {"rule": "self < 5", "messageExpression": "string(1 / 0)"}]}}})j");
  ASSERT_TRUE(s);
  auto e = check(s, R"j({"n": 12})j");
  ASSERT_EQ(e.size(), 6u);
  EXPECT_EQ(e[0].message, "Invalid value: \"integer\": n is 12");
  for (int i = 1; i <= 4; ++i) EXPECT_EQ(e[i].message, "Invalid value: \"integer\": fallback") << i;
  EXPECT_EQ(e[5].message, "Invalid value: \"integer\": failed rule: self < 5");
}

TEST(CelRules, EvaluationErrors) {
  auto s = testing::inline_schema(R"j({"type": "object", "properties": {"spec": {"type": "object",
      "properties": {"q": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]},
                     "a": {"type": "string"}},
      "x-kubernetes-validations": [{"rule": "self.a == 'x'", "message": "a must be x"},
                                   {"rule": "self.q > 1"},
                                   {"rule": "1 / 0 == 1"}]}}})j");
  ASSERT_TRUE(s);
  auto e = check(s, R"j({"spec": {"q": "1Gi"}})j");
  ASSERT_EQ(causes(e), (std::vector<std::string>{"FieldValueInvalid spec", "FieldValueInvalid spec", "FieldValueInvalid spec"}));
  EXPECT_EQ(e[0].message, "Invalid value: \"object\": no such key: a evaluating rule: a must be x");
  EXPECT_EQ(e[1].message,
            "Invalid value: \"object\": 'no such overload': call arguments did not match a supported operator, "
            "function or macro signature for rule: self.q > 1");
  EXPECT_EQ(e[2].message, "Invalid value: \"object\": division by zero evaluating rule: 1 / 0 == 1");
  EXPECT_TRUE(causes(check(s, R"j({"spec": {"q": 2, "a": "x"}})j")).size() == 1u);  // only 1 / 0
}

TEST(CelRules, TransitionRulesNeedAnOldValue) {
  auto s = testing::inline_schema(R"j({"type": "object", "properties": {"spec": {"type": "object", "properties": {
      "name": {"type": "string", "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "immutable"}]},
      "plain": {"type": "string", "x-kubernetes-validations": [{"rule": "self != 'x'"}]}}}}})j");
  ASSERT_TRUE(s);
  EXPECT_TRUE(check(s, R"j({"spec": {"name": "a"}})j").empty());  // create
  EXPECT_TRUE(check(s, R"j({"spec": {"name": "a"}})j", R"j({"spec": {"name": "a"}})j").empty());
  EXPECT_EQ(causes(check(s, R"j({"spec": {"name": "b"}})j", R"j({"spec": {"name": "a"}})j")),
            std::vector<std::string>{"FieldValueInvalid spec.name"});
  // The field did not exist before: there is nothing to compare with.
  EXPECT_TRUE(check(s, R"j({"spec": {"name": "b"}})j", R"j({"spec": {}})j").empty());
  EXPECT_TRUE(check(s, R"j({"spec": {"name": "b"}})j", R"j({})j").empty());
  // Rules without oldSelf run on updates too.
  EXPECT_EQ(causes(check(s, R"j({"spec": {"plain": "x"}})j", R"j({"spec": {"plain": "x"}})j")),
            std::vector<std::string>{"FieldValueInvalid spec.plain"});
}

// Old values correlate by property and map key, and for list-type=map lists by key; other
// lists do not correlate, so transition rules on their items do not run.
TEST(CelRules, OldValuesCorrelate) {
  auto s = testing::inline_schema(R"j({"type": "object", "properties": {
      "maplist": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                  "items": {"type": "object", "properties": {"name": {"type": "string"}, "v": {"type": "integer"}},
                            "x-kubernetes-validations": [{"rule": "self.v >= oldSelf.v", "message": "no decrease"}]}},
      "atomic": {"type": "array", "items": {"type": "object", "properties": {"v": {"type": "integer"}},
                 "x-kubernetes-validations": [{"rule": "self.v >= oldSelf.v"}]}},
      "m": {"type": "object", "additionalProperties": {"type": "integer",
            "x-kubernetes-validations": [{"rule": "self >= oldSelf"}]}}}})j");
  ASSERT_TRUE(s);
  const char* old = R"j({"maplist": [{"name": "a", "v": 5}, {"name": "b", "v": 1}], "atomic": [{"v": 5}],
                        "m": {"k": 5}})j";
  EXPECT_TRUE(check(s, R"j({"maplist": [{"name": "b", "v": 2}, {"name": "a", "v": 5}, {"name": "c", "v": 0}],
                           "atomic": [{"v": 1}], "m": {"k": 6, "new": 0}})j", old)
                  .empty());
  EXPECT_EQ(causes(check(s, R"j({"maplist": [{"name": "b", "v": 0}], "m": {"k": 4}})j", old)),
            (std::vector<std::string>{"FieldValueInvalid maplist[0]", "FieldValueInvalid m[k]"}));
}

TEST(CelRules, OptionalOldSelf) {
  auto s = testing::inline_schema(R"j({"type": "object", "properties": {"n": {"type": "integer",
      "x-kubernetes-validations": [{"rule": "!oldSelf.hasValue() || self >= oldSelf.value()",
                                    "optionalOldSelf": true, "message": "grow only"},
                                   {"rule": "oldSelf.orValue(0) <= 100", "optionalOldSelf": true}]}}})j");
  ASSERT_TRUE(s);
  EXPECT_TRUE(check(s, R"j({"n": 1})j").empty());  // runs on create, oldSelf is none
  EXPECT_TRUE(check(s, R"j({"n": 3})j", R"j({"n": 2})j").empty());
  EXPECT_EQ(causes(check(s, R"j({"n": 1})j", R"j({"n": 2})j")), std::vector<std::string>{"FieldValueInvalid n"});
  EXPECT_EQ(causes(check(s, R"j({"n": 200})j", R"j({"n": 101})j")), std::vector<std::string>{"FieldValueInvalid n"});
}

TEST(CelRules, ValuesAreTypedByTheSchema) {
  auto s = testing::inline_schema(R"j({"type": "object", "properties": {
      "num": {"type": "number"}, "int": {"type": "integer"},
      "q": {"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]},
      "x-y": {"type": "string"}, "namespace": {"type": "string"}, "a.b": {"type": "string"},
      "labels": {"type": "object", "additionalProperties": {"type": "string"}}},
      "x-kubernetes-validations": [
        {"rule": "!has(self.num) || type(self.num) == double", "message": "num"},
        {"rule": "!has(self.int) || type(self.int) == int", "message": "int"},
        {"rule": "!has(self.q) || type(self.q) == int || type(self.q) == string", "message": "q"},
        {"rule": "!has(self.x__dash__y) || self.x__dash__y == 'dash'", "message": "dash"},
        {"rule": "!has(self.__namespace__) || self.__namespace__ == 'ns'", "message": "keyword"},
        {"rule": "!has(self.a__dot__b) || self.a__dot__b == 'dot'", "message": "dot"},
        {"rule": "!has(self.labels) || self.labels.all(k, k.startsWith('ok'))", "message": "labels"}]})j");
  ASSERT_TRUE(s);
  EXPECT_TRUE(check(s, R"j({"num": 1, "int": 2.0, "q": "1Gi", "x-y": "dash", "namespace": "ns", "a.b": "dot",
                           "labels": {"ok-1": "v"}})j")
                  .empty());
  auto e = check(s, R"j({"q": 5, "x-y": "other", "namespace": "other", "a.b": "other", "labels": {"bad": "v"}})j");
  EXPECT_EQ(e.size(), 4u) << describe(e);
}

// Kubernetes 1.32 and later (cel-go's parser always did) take a property named by a CEL
// reserved word as written, `self.metadata.namespace`, besides its escaped name
// `__namespace__`, in selections and has(); a map key (labels) is any word.
TEST(CelRules, ReservedWordsAreFieldNames) {
  auto s = testing::inline_schema(R"j({"type": "object", "properties": {
      "metadata": {"type": "object", "properties": {"name": {"type": "string"}, "namespace": {"type": "string"}}},
      "labels": {"type": "object", "additionalProperties": {"type": "string"}},
      "if": {"type": "integer"}},
      "x-kubernetes-validations": [
        {"rule": "!has(self.metadata.namespace) || size(self.metadata.namespace) == 0", "message": "no namespace"},
        {"rule": "!has(self.metadata.__namespace__) || self.metadata.__namespace__ == self.metadata.namespace",
         "message": "escaped"},
        {"rule": "!has(self.labels.namespace) || self.labels.namespace != 'x'", "message": "label"},
        {"rule": "!has(self.if) || self.if == self.__if__", "message": "if"}]})j");
  ASSERT_TRUE(s);
  EXPECT_TRUE(check(s, R"j({"metadata": {"name": "a"}, "labels": {"namespace": "y"}, "if": 1})j").empty());
  EXPECT_TRUE(check(s, R"j({"metadata": {"name": "a", "namespace": ""}, "labels": {}})j").empty());
  auto e = check(s, R"j({"metadata": {"namespace": "ns"}, "labels": {"namespace": "x"}})j");
  ASSERT_EQ(e.size(), 2u) << describe(e);
  EXPECT_EQ(e[0].message, "Invalid value: \"object\": no namespace");
  EXPECT_EQ(e[1].message, "Invalid value: \"object\": label");
}

TEST(CelRules, NullValuesAndJunctorsAreSkipped) {
  auto s = testing::inline_schema(R"j({"type": "object", "properties": {
      "n": {"type": "string", "nullable": true, "x-kubernetes-validations": [{"rule": "false"}]},
      "a": {"type": "string", "anyOf": [{"x-kubernetes-validations": [{"rule": "false"}]}]}}})j");
  ASSERT_TRUE(s);
  EXPECT_TRUE(check(s, R"j({"n": null, "a": "x"})j").empty());
  EXPECT_EQ(causes(check(s, R"j({"n": "x"})j")), std::vector<std::string>{"FieldValueInvalid n"});
}

// List equality follows x-kubernetes-list-type: sets and maps ignore order.
TEST(CelRules, ListEqualityFollowsListType) {
  auto s = testing::inline_schema(R"j({"type": "object", "properties": {
      "set": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"},
              "x-kubernetes-validations": [{"rule": "self == oldSelf"}]},
      "map": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"],
              "items": {"type": "object", "properties": {"k": {"type": "string"}, "v": {"type": "integer"}}},
              "x-kubernetes-validations": [{"rule": "self == oldSelf"}]},
      "atomic": {"type": "array", "items": {"type": "string"}, "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}}})j");
  ASSERT_TRUE(s);
  const char* old = R"j({"set": ["a", "b"], "map": [{"k": "a", "v": 1}, {"k": "b", "v": 2}], "atomic": ["a", "b"]})j";
  EXPECT_EQ(causes(check(s, R"j({"set": ["b", "a"], "map": [{"k": "b", "v": 2}, {"k": "a", "v": 1}], "atomic": ["b", "a"]})j",
                         old)),
            std::vector<std::string>{"FieldValueInvalid atomic"});
  EXPECT_EQ(causes(check(s, R"j({"set": ["a", "c"], "map": [{"k": "b", "v": 3}, {"k": "a", "v": 1}], "atomic": ["a", "b"]})j",
                         old)),
            (std::vector<std::string>{"FieldValueInvalid set", "FieldValueInvalid map"}));
}

TEST(CelRules, CostLimits) {
  auto s = testing::inline_schema(R"j({"type": "object", "properties": {"l": {"type": "array", "items": {"type": "integer"},
      "x-kubernetes-validations": [
        {"rule": "self.all(a, self.all(b, self.all(c, a + b + c >= 0)))", "message": "cubic"},
        {"rule": "false", "message": "never reached"}]}}})j");
  ASSERT_TRUE(s);
  std::string list = "[";
  for (int i = 0; i < 200; ++i) list += (i ? "," : "") + std::to_string(i);
  list += "]";
  auto e = check(s, R"({"l": )" + list + "}");
  ASSERT_EQ(e.size(), 1u) << describe(e);
  EXPECT_EQ(e[0].message,
            "Invalid value: \"array\": 'operation cancelled: actual cost limit exceeded': no further validation rules "
            "will be run due to call cost exceeds limit for rule: cubic");
  // The whole object's budget.
  json::value small = J(R"j({"l": [1, 2, 3]})j");
  ValidateOptions tight;
  tight.cel_cost_budget = 10;
  auto b = validate(*s, small, nullptr, tight);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].message,
            "Invalid value: \"array\": validation failed due to running out of cost budget, no further validation "
            "rules will be run");
}

}  // namespace
}  // namespace kueuepp::kube::schema
