// OpenAPI value validation, list-type invariants, embedded resources and the blocking
// rule, one keyword per row: the cause types and fields must be kube-apiserver's, and the
// first cause's message its wording.

#include "tests/kube/apiserver/schema/test_support.hpp"

namespace kueuepp::kube::schema {
namespace {

using testing::causes;
using testing::J;

struct Case {
  const char* name;
  const char* schema;  // the schema of property "x" of the root object
  const char* value;   // the value of "x"
  std::vector<std::string> expected;  // "type field"
  const char* first_message = nullptr;
};

class Keyword : public ::testing::TestWithParam<Case> {};

TEST_P(Keyword, Causes) {
  const Case& c = GetParam();
  auto s = testing::inline_schema(std::string(R"({"type": "object", "properties": {"x": )") + c.schema + "}}");
  ASSERT_TRUE(s);
  json::value obj = J(std::string(R"({"x": )") + c.value + "}");
  auto errors = validate(*s, obj, nullptr);
  EXPECT_EQ(causes(errors), c.expected) << describe(errors);
  if (c.first_message != nullptr && !errors.empty()) {
    EXPECT_EQ(errors[0].message, c.first_message);
  }
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(
    OpenApi, Keyword,
    ::testing::Values(
        Case{"TypeString", R"({"type": "string"})", "1", {"FieldValueTypeInvalid x"},
             R"(Invalid value: "integer": x in body must be of type string: "integer")"},
        Case{"TypeObject", R"({"type": "object"})", "[]", {"FieldValueTypeInvalid x"},
             R"(Invalid value: "array": x in body must be of type object: "array")"},
        Case{"TypeIntegerAcceptsIntegralDouble", R"({"type": "integer"})", "2.0", {}},
        Case{"TypeIntegerRejectsFraction", R"({"type": "integer"})", "2.5", {"FieldValueTypeInvalid x"},
             R"(Invalid value: "number": x in body must be of type integer: "number")"},
        Case{"TypeNumberAcceptsInteger", R"({"type": "number"})", "2", {}},
        Case{"TypeBoolean", R"({"type": "boolean"})", "\"true\"", {"FieldValueTypeInvalid x"}},
        Case{"NullNotNullable", R"({"type": "string"})", "null", {"FieldValueTypeInvalid x"},
             R"(Invalid value: "null": x in body must be of type string: "null")"},
        Case{"NullNullable", R"({"type": "string", "nullable": true})", "null", {}},
        Case{"Untyped", R"({})", "[1, {\"a\": 2}]", {}},
        Case{"IntOrStringInt", R"({"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]})",
             "3", {}},
        Case{"IntOrStringString", R"({"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]})",
             "\"3\"", {}},
        Case{"IntOrStringBool", R"({"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]})",
             "true", {"FieldValueTypeInvalid x", "FieldValueInvalid <nil>", "FieldValueTypeInvalid x"},
             R"(Invalid value: "boolean": x in body must be of type integer,string: "boolean")"},
        Case{"QuantityPattern",
             R"({"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}], "pattern": "^[0-9]+(m|Gi)?$"})",
             "\"1x\"", {"FieldValueInvalid x"}, R"(Invalid value: "1x": x in body should match '^[0-9]+(m|Gi)?$')"},
        Case{"QuantityPatternSkipsIntegers",
             R"({"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}], "pattern": "^[a]$"})",
             "10", {}},
        Case{"Enum", R"({"type": "string", "enum": ["A", "B"]})", "\"C\"", {"FieldValueNotSupported x"},
             R"(Unsupported value: "C": supported values: "A", "B")"},
        Case{"EnumOk", R"({"type": "string", "enum": ["A", "B"]})", "\"B\"", {}},
        Case{"EnumNumbers", R"({"type": "integer", "enum": [1, 2]})", "3", {"FieldValueNotSupported x"},
             R"(Unsupported value: 3: supported values: "1", "2")"},
        Case{"EnumNumericEquality", R"({"type": "number", "enum": [1.0]})", "1", {}},
        Case{"MaxLength", R"({"type": "string", "maxLength": 3})", "\"abcd\"", {"FieldValueTooLong x"},
             "Too long: may not be longer than 3"},
        Case{"MaxLengthCountsCodePoints", R"({"type": "string", "maxLength": 3})", "\"éé\"", {}},
        Case{"MinLength", R"({"type": "string", "minLength": 2})", "\"a\"", {"FieldValueInvalid x"},
             R"(Invalid value: "a": x in body should be at least 2 chars long)"},
        Case{"LengthStopsAtFirstFailure", R"({"type": "string", "maxLength": 1, "pattern": "^z$"})", "\"ab\"",
             {"FieldValueTooLong x"}},
        Case{"Pattern", R"({"type": "string", "pattern": "^[a-z]+$"})", "\"A\"", {"FieldValueInvalid x"}},
        Case{"Minimum", R"({"type": "integer", "minimum": 1})", "0", {"FieldValueInvalid x"},
             "Invalid value: 0: x in body should be greater than or equal to 1"},
        Case{"ExclusiveMinimum", R"({"type": "integer", "minimum": 1, "exclusiveMinimum": true})", "1",
             {"FieldValueInvalid x"}, "Invalid value: 1: x in body should be greater than 1"},
        Case{"Maximum", R"({"type": "number", "maximum": 1.5})", "2.5", {"FieldValueInvalid x"},
             "Invalid value: 2.5: x in body should be less than or equal to 1.5"},
        Case{"ExclusiveMaximum", R"({"type": "integer", "maximum": 5, "exclusiveMaximum": true})", "5",
             {"FieldValueInvalid x"}, "Invalid value: 5: x in body should be less than 5"},
        Case{"MultipleOf", R"({"type": "integer", "multipleOf": 3})", "7", {"FieldValueInvalid x"},
             "Invalid value: 7: x in body should be a multiple of 3"},
        Case{"MultipleOfFraction", R"({"type": "number", "multipleOf": 0.5})", "1.5", {}},
        Case{"MinItems", R"({"type": "array", "minItems": 1})", "[]", {"FieldValueInvalid x"},
             "Invalid value: 0: x in body should have at least 1 items"},
        Case{"MaxItems", R"({"type": "array", "maxItems": 1})", "[1, 2]", {"FieldValueTooMany x"},
             "Too many: 2: must have at most 1 items"},
        Case{"UniqueItems", R"({"type": "array", "uniqueItems": true})", "[1, 1]", {"FieldValueInvalid x"}},
        Case{"ItemsBeforeBounds", R"({"type": "array", "maxItems": 1, "items": {"type": "string"}})", "[1, \"a\"]",
             {"FieldValueTypeInvalid x[0]", "FieldValueTooMany x"}},
        Case{"MinProperties", R"({"type": "object", "minProperties": 1})", "{}", {"FieldValueInvalid x"}},
        Case{"MaxProperties", R"({"type": "object", "maxProperties": 1})", R"({"a": 1, "b": 2})",
             {"FieldValueTooMany x"}},
        Case{"Required", R"({"type": "object", "required": ["a", "b"], "properties": {"a": {"type": "string"}}})",
             R"({"a": 1})", {"FieldValueTypeInvalid x.a", "FieldValueRequired x.b"}, "Invalid value: \"integer\": x.a in body must be of type string: \"integer\""},
        Case{"RequiredPresentNull", R"({"type": "object", "required": ["a"], "properties": {"a": {"type": "string", "nullable": true}}})",
             R"({"a": null})", {}},
        Case{"AdditionalPropertiesUseDotPaths", R"({"type": "object", "additionalProperties": {"type": "integer"}})",
             R"({"kueue.x-k8s.io/k": "v"})", {"FieldValueTypeInvalid x.kueue.x-k8s.io/k"}},
        Case{"AdditionalPropertiesFalse", R"({"type": "object", "properties": {"a": {}}, "additionalProperties": false})",
             R"({"a": 1, "b": 2})", {"FieldValueInvalid x"}, "Invalid value: \"\": x.b in body is a forbidden property"},
        Case{"DateTime", R"({"type": "string", "format": "date-time"})", "\"yesterday\"", {"FieldValueTypeInvalid x"},
             R"(Invalid value: "yesterday": x in body must be of type date-time: "yesterday")"},
        Case{"DateTimeOk", R"({"type": "string", "format": "date-time"})", "\"2024-01-01T00:00:00Z\"", {}},
        Case{"Int32FormatIsNotChecked", R"({"type": "integer", "format": "int32"})", "9999999999", {}},
        Case{"AnyOf", R"({"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 5}]})", "1",
             {"FieldValueInvalid <nil>", "FieldValueInvalid x"},
             R"(Invalid value: "": "x" must validate at least one schema (anyOf))"},
        Case{"OneOfNone", R"({"oneOf": [{"type": "string"}, {"type": "boolean"}]})", "1",
             {"FieldValueInvalid <nil>", "FieldValueTypeInvalid x"},
             R"(Invalid value: "": "x" must validate one and only one schema (oneOf). Found none valid)"},
        Case{"OneOfTwo", R"({"oneOf": [{"minimum": 0}, {"maximum": 10}]})", "5", {"FieldValueInvalid <nil>"},
             R"(Invalid value: "": "x" must validate one and only one schema (oneOf). Found 2 valid alternatives)"},
        Case{"AllOf", R"({"allOf": [{"minimum": 0}, {"maximum": 10}]})", "11",
             {"FieldValueInvalid x", "FieldValueInvalid <nil>"}},
        Case{"Not", R"({"not": {"type": "string"}})", "\"s\"", {"FieldValueInvalid <nil>"},
             R"(Invalid value: "": "x" must not validate the schema (not))"},
        Case{"ListSetDuplicates", R"({"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}})",
             R"(["a", "b", "a", "a", "b"])", {"FieldValueDuplicate x[2]", "FieldValueDuplicate x[4]"},
             R"(Duplicate value: "a")"},
        Case{"ListSetKeepsIntAndDoubleApart", R"({"type": "array", "x-kubernetes-list-type": "set"})", "[1, 1.0]", {}},
        Case{"ListSetObjects", R"({"type": "array", "x-kubernetes-list-type": "set"})", R"([{"a": 1}, {"a": 1}])",
             {"FieldValueDuplicate x[1]"}},
        Case{"ListMapDuplicateKey",
             R"({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                 "items": {"type": "object", "properties": {"name": {"type": "string"}, "v": {"type": "integer"}}}})",
             R"([{"name": "a", "v": 1}, {"name": "b"}, {"name": "a", "v": 2}])", {"FieldValueDuplicate x[2]"},
             R"(Duplicate value: map[string]interface {}{"name":"a"})"},
        Case{"ListMapCompositeKey",
             R"({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["port", "protocol"]})",
             R"([{"port": 80, "protocol": "TCP"}, {"port": 80, "protocol": "UDP"}, {"port": 80, "protocol": "TCP"}])",
             {"FieldValueDuplicate x[2]"}},
        Case{"ListMapMissingKeysCollide",
             R"({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]})",
             R"([{}, {"other": 1}])", {"FieldValueDuplicate x[1]"}, "Duplicate value: map[string]interface {}{}"},
        Case{"ListMapNonObject",
             R"({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]})",
             R"([{"name": "a"}, 1, 2])", {"FieldValueInvalid x[1]"},
             "Invalid value: 1: must be an object for an array of list-type map"},
        Case{"ListTypesInsideMaps",
             R"({"type": "object", "additionalProperties": {"type": "array", "x-kubernetes-list-type": "set"}})",
             R"({"k": [1, 1]})", {"FieldValueDuplicate x[k][1]"}},
        Case{"EmbeddedResourceNeedsTypeMeta", R"({"type": "object", "x-kubernetes-embedded-resource": true,
                                                "x-kubernetes-preserve-unknown-fields": true})",
             R"({"metadata": {}})", {"FieldValueRequired x.apiVersion", "FieldValueRequired x.kind"},
             "Required value: must not be empty"},
        Case{"EmbeddedResourceBadApiVersion", R"({"type": "object", "x-kubernetes-embedded-resource": true,
                                                 "x-kubernetes-preserve-unknown-fields": true})",
             R"({"apiVersion": "a/b/c", "kind": ""})", {"FieldValueInvalid x.apiVersion", "FieldValueInvalid x.kind"}}),
    case_name);

// Errors come out in kube-apiserver's order: each object's properties in document order,
// a node's own checks after its children's (items, properties), required last.
TEST(Validate, OrderOfCauses) {
  auto s = testing::inline_schema(R"({"type": "object", "required": ["z"], "properties": {
      "b": {"type": "string"}, "a": {"type": "array", "minItems": 3, "items": {"type": "integer"}},
      "z": {"type": "string"}}})");
  json::value v = J(R"({"a": ["x", 1], "b": 2})");
  EXPECT_EQ(causes(validate(*s, v, nullptr)), (std::vector<std::string>{"FieldValueTypeInvalid a[0]", "FieldValueInvalid a",
                                                                        "FieldValueTypeInvalid b", "FieldValueRequired z"}));
}

TEST(Validate, RootErrorsPrintAsNil) {
  auto s = testing::inline_schema(R"({"type": "object", "required": ["spec"]})");
  json::value v = J("[]");
  EXPECT_EQ(causes(validate(*s, v, nullptr)), (std::vector<std::string>{"FieldValueTypeInvalid <nil>"}));
  json::value o = J("{}");
  EXPECT_EQ(causes(validate(*s, o, nullptr)), (std::vector<std::string>{"FieldValueRequired spec"}));
}

// Blocking errors (Required, TooLong, TooMany, TypeInvalid) replace all CEL rules with
// one `<nil>` cause; others (Invalid, NotSupported in 1.28) let the rules run.
TEST(Validate, BlockingErrorsSkipCelRules) {
  auto s = testing::inline_schema(R"({"type": "object", "properties": {
      "a": {"type": "string", "maxLength": 1}, "b": {"type": "string", "enum": ["x"]},
      "c": {"type": "string", "pattern": "^c$"}},
      "x-kubernetes-validations": [{"rule": "false", "message": "always"}]})");
  auto run = [&](const char* doc) {
    json::value v = J(doc);
    return causes(validate(*s, v, nullptr));
  };
  EXPECT_EQ(run(R"({"a": "toolong"})"), (std::vector<std::string>{"FieldValueTooLong a", "FieldValueInvalid <nil>"}));
  EXPECT_EQ(run(R"({"b": "y"})"), (std::vector<std::string>{"FieldValueNotSupported b", "FieldValueInvalid <nil>"}));
  EXPECT_EQ(run(R"({"c": "d"})"), (std::vector<std::string>{"FieldValueInvalid c", "FieldValueInvalid <nil>"}));
  json::value v = J(R"({"a": "toolong"})");
  auto errors = validate(*s, v, nullptr);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[1].message,
            "Invalid value: \"null\": some validation rules were not checked because the object was invalid; correct "
            "the existing errors to complete validation");
  // The rule's own error reads differently from the "not checked" cause.
  json::value ok = J(R"({"b": "y"})");
  EXPECT_EQ(validate(*s, ok, nullptr).back().message, "Invalid value: \"object\": always");
  // A caller's blocking error (e.g. metadata.name Required) also skips the rules.
  FieldError prior{"FieldValueRequired", "metadata.name", "Required value"};
  json::value fine = J("{}");
  ValidateOptions options;
  options.prior_errors = std::span<const FieldError>(&prior, 1);
  EXPECT_EQ(causes(validate(*s, fine, nullptr, options)), (std::vector<std::string>{"FieldValueInvalid <nil>"}));
  EXPECT_TRUE(blocks_cel(prior));
  EXPECT_FALSE(blocks_cel(FieldError{"FieldValueNotSupported", "x", ""}));
}

TEST(Validate, SchemasWithoutRulesAddNoNotCheckedCause) {
  auto s = testing::inline_schema(R"({"type": "object", "required": ["a"]})");
  json::value v = J("{}");
  EXPECT_EQ(causes(validate(*s, v, nullptr)), (std::vector<std::string>{"FieldValueRequired a"}));
}

}  // namespace
}  // namespace kueuepp::kube::schema
