#include <chrono>

#include "kube/apiserver/schema/schema.hpp"
#include "tests/kube/apiserver/schema/test_support.hpp"

namespace kueuepp::kube::schema {
namespace {

using testing::J;

// Every version of every Kueue CRD compiles, with every CEL rule (no compile errors).
TEST(Compile, EveryVersionOfEveryKueueCrd) {
  int versions = 0;
  for (const std::string& plural : testing::crd_files()) {
    const json::value* doc = testing::crd(plural);
    if (doc == nullptr) GTEST_SKIP() << "Kueue CRDs not found";
    for (const auto& v : json::find_path(*doc, {"spec", "versions"})->get_array()) {
      std::string name(json::get_string(v, "name"));
      const json::value* s = json::find_path(v, {"schema", "openAPIV3Schema"});
      ASSERT_NE(s, nullptr) << plural << "/" << name;
      auto start = std::chrono::steady_clock::now();
      auto compiled = compile(*s);
      auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      ASSERT_TRUE(compiled.has_value()) << plural << "/" << name << ": " << compiled.error().message;
      EXPECT_TRUE(rule_compile_errors(**compiled).empty())
          << plural << "/" << name << ": " << rule_compile_errors(**compiled).front();
      EXPECT_LT(ms, 2000.0) << plural << "/" << name << " compiled too slowly";
      ++versions;
    }
  }
  EXPECT_EQ(versions, 22);  // 11 CRDs, v1beta1 and v1beta2 each
}

struct BadSchema {
  const char* schema;
  const char* error_contains;
};

class CompileRejects : public ::testing::TestWithParam<BadSchema> {};

TEST_P(CompileRejects, WithThePath) {
  auto r = compile(J(GetParam().schema));
  ASSERT_FALSE(r.has_value()) << GetParam().schema;
  EXPECT_NE(r.error().message.find(GetParam().error_contains), std::string::npos) << r.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, CompileRejects,
    ::testing::Values(
        BadSchema{R"("string")", "openAPIV3Schema: must be an object"},
        BadSchema{R"({"type": 1})", "openAPIV3Schema.type: must be a string"},
        BadSchema{R"({"type": "strin"})", "unsupported type"},
        BadSchema{R"({"properties": {"a": {"type": "object", "properties": []}}})",
                  "openAPIV3Schema.properties[a].properties: must be an object"},
        BadSchema{R"({"properties": {"a": {"pattern": "(unclosed"}}})", "properties[a].pattern: error parsing regexp"},
        BadSchema{R"({"properties": {"a": {"maxLength": -1}}})", "maxLength: must be a non-negative integer"},
        BadSchema{R"({"required": "a"})", "required: must be an array of strings"},
        BadSchema{R"({"enum": "a"})", "enum: must be an array"},
        BadSchema{R"({"items": [{"type": "string"}]})", "items: an array of schemas is not supported"},
        BadSchema{R"({"$ref": "#/definitions/x"})", "$ref: not supported"},
        BadSchema{R"({"patternProperties": {}})", "patternProperties: not supported"},
        BadSchema{R"({"x-kubernetes-list-type": "bag"})", "must be atomic, set or map"},
        BadSchema{R"({"x-kubernetes-list-map-keys": ["a"]})", "requires x-kubernetes-list-type: map"},
        BadSchema{R"({"x-kubernetes-map-type": "bag"})", "must be granular or atomic"},
        BadSchema{R"({"x-kubernetes-validations": {"rule": "true"}})", "x-kubernetes-validations: must be an array"},
        BadSchema{R"({"x-kubernetes-validations": [{"rule": 1}]})", "x-kubernetes-validations[0].rule: must be a string"},
        BadSchema{R"({"anyOf": {}})", "anyOf: must be an array"},
        BadSchema{R"({"minimum": "1"})", "minimum: must be a number"},
        BadSchema{R"({"nullable": "yes"})", "nullable: must be a boolean"}));

// A schema nested deeper than any real CRD is refused instead of exhausting the stack.
TEST(Compile, RefusesHostileNesting) {
  std::string s;
  for (int i = 0; i < 5000; ++i) s += R"({"type":"object","properties":{"a":)";
  s += "{}";
  for (int i = 0; i < 5000; ++i) s += "}}";
  boost::json::parse_options opts;
  opts.max_depth = 20000;
  json::value v = boost::json::parse(s, {}, opts);
  auto r = compile(v);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("nested too deeply"), std::string::npos);
}

// A rule that does not compile does not fail the schema (kube-apiserver keeps serving such
// a stored CRD) but is listed, and reported on the objects it applies to.
TEST(Compile, BadRulesAreListedAndReported) {
  auto s = compile(J(R"j({"type": "object", "properties": {"spec": {"type": "object",
      "x-kubernetes-validations": [{"rule": "self.a +"}, {"rule": "nosuchfn(self)"},
                                   {"rule": "true", "reason": "Bogus"},
                                   {"rule": "true", "fieldPath": ".nope"},
                                   {"rule": "self.x.matches('[')"}]}}})j"));
  ASSERT_TRUE(s.has_value()) << s.error().message;
  auto errors = rule_compile_errors(**s);
  ASSERT_EQ(errors.size(), 5u);
  EXPECT_NE(errors[0].find("openAPIV3Schema.properties[spec].x-kubernetes-validations[0]: ERROR: <input>:1:"),
            std::string::npos)
      << errors[0];
  EXPECT_NE(errors[1].find("undeclared reference to 'nosuchfn'"), std::string::npos) << errors[1];
  EXPECT_NE(errors[2].find("reason"), std::string::npos) << errors[2];
  EXPECT_NE(errors[3].find("fieldPath"), std::string::npos) << errors[3];
  EXPECT_NE(errors[4].find("error parsing regexp"), std::string::npos) << errors[4];
  auto v = validate(**s, J(R"({"spec": {}})"), nullptr);
  ASSERT_EQ(v.size(), 5u);
  EXPECT_EQ(v[0].type, "FieldValueInvalid");
  EXPECT_EQ(v[0].field, "spec");
  EXPECT_EQ(v[0].message.rfind("Invalid value: \"object\": rule compile error: ", 0), 0u) << v[0].message;
}

}  // namespace
}  // namespace kueuepp::kube::schema
