// Incremental validation (ValidateOptions::old_stamp): parts of an object identical to an
// old object that passed against the same schema are not checked again; everything else,
// and every transition rule, is; the errors are exactly those of a full validation.

#include "tests/kube/apiserver/schema/test_support.hpp"

namespace kueuepp::kube::schema {
namespace {

using testing::causes;
using testing::J;

// spec: a pattern, a CEL rule, a list-type=set list and a transition rule one level down;
// status: a pattern and a CEL rule.
constexpr std::string_view kSchema = R"j({"type": "object", "properties": {
    "metadata": {"type": "object"},
    "spec": {"type": "object",
      "x-kubernetes-validations": [{"rule": "self.name != 'forbidden'", "message": "no forbidden name"}],
      "properties": {
        "name": {"type": "string", "pattern": "^a+$"},
        "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
        "counter": {"type": "object",
          "x-kubernetes-validations": [{"rule": "self.n >= oldSelf.n", "message": "n must not go down"}],
          "properties": {"n": {"type": "integer"}}}}},
    "status": {"type": "object",
      "x-kubernetes-validations": [{"rule": "self.phase != 'Bad'", "message": "no bad phase"}],
      "properties": {"phase": {"type": "string", "pattern": "^[A-Z][a-z]+$"}}}}})j";

std::string describe_all(const std::vector<FieldError>& errors) {
  std::string out;
  for (const auto& e : errors) out += e.type + " " + e.field + ": " + e.message + "\n";
  return out;
}

ValidateOptions after(const Schema& schema, std::uint64_t cel_cost = 0) {
  ValidateOptions o;
  o.old_stamp = ValidationStamp{serial(schema), cel_cost};
  return o;
}

// Whether `old` passes; its stamp in `stamp`.
bool passes(const Schema& schema, const json::value& old, ValidationStamp& stamp) {
  ValidateOptions o;
  o.stamp = &stamp;
  return validate(schema, old, nullptr, o).empty();
}

TEST(IncrementalValidation, AStampRecordsThePassingSchema) {
  auto s = testing::inline_schema(kSchema);
  ASSERT_TRUE(s);
  ValidationStamp stamp;
  ASSERT_TRUE(passes(*s, J(R"j({"spec": {"name": "aa", "counter": {"n": 1}}, "status": {"phase": "Ok"}})j"), stamp));
  EXPECT_EQ(stamp.schema_serial, serial(*s));
  EXPECT_NE(stamp.schema_serial, 0u);

  // A failing validation leaves the stamp alone.
  ValidationStamp untouched{7, 9};
  ValidateOptions o;
  o.stamp = &untouched;
  EXPECT_FALSE(validate(*s, J(R"j({"spec": {"name": "b"}})j"), nullptr, o).empty());
  EXPECT_EQ(untouched.schema_serial, 7u);
  EXPECT_EQ(untouched.cel_cost, 9u);

  // Every compiled schema has its own serial, even from the same text.
  auto again = testing::inline_schema(kSchema);
  ASSERT_TRUE(again);
  EXPECT_NE(serial(*again), serial(*s));
}

TEST(IncrementalValidation, UnchangedPartsAreNotCheckedAgain) {
  auto s = testing::inline_schema(kSchema);
  ASSERT_TRUE(s);
  // The stamp says this old object passed (it would not: the point is to see that its
  // unchanged spec is not looked at again).
  json::value old = J(R"j({"spec": {"name": "forbidden", "tags": ["x", "x"]}, "status": {"phase": "Ok"}})j");
  json::value next = J(R"j({"spec": {"name": "forbidden", "tags": ["x", "x"]}, "status": {"phase": "Fine"}})j");
  EXPECT_EQ(causes(validate(*s, next, &old)),
            (std::vector<std::string>{"FieldValueInvalid spec.name", "FieldValueDuplicate spec.tags[1]",
                                      "FieldValueInvalid spec"}));
  EXPECT_TRUE(validate(*s, next, &old, after(*s)).empty());
}

TEST(IncrementalValidation, ChangedPartsGetTheFullValidationsErrors) {
  auto s = testing::inline_schema(kSchema);
  ASSERT_TRUE(s);
  ValidationStamp stamp;
  json::value old = J(R"j({"spec": {"name": "aa", "tags": ["x"], "counter": {"n": 2}}, "status": {"phase": "Ok"}})j");
  ASSERT_TRUE(passes(*s, old, stamp));
  ValidateOptions incremental;
  incremental.old_stamp = stamp;
  for (const char* next : {
           R"j({"spec": {"name": "aa", "tags": ["x"], "counter": {"n": 2}}, "status": {"phase": "bad!"}})j",
           R"j({"spec": {"name": "aa", "tags": ["x"], "counter": {"n": 2}}, "status": {"phase": "Bad"}})j",
           R"j({"spec": {"name": "b", "tags": ["x", "x"], "counter": {"n": 1}}, "status": {"phase": "Ok"}})j",
           R"j({"spec": {"name": "forbidden", "tags": ["x"], "counter": {"n": 2}}, "status": {"phase": "Ok"}})j",
           R"j({"spec": {"name": "aa", "tags": "x", "counter": {"n": 2}}, "status": {"phase": "Ok"}})j",
           R"j({"spec": {"tags": ["x"], "counter": {"n": 2}, "name": "aa"}, "status": {"phase": "Ok"}})j",
           R"j({"spec": {"name": "aa", "tags": ["x"], "counter": {"n": 2.0}}, "status": {"phase": "Ok"}})j"}) {
    json::value v = J(next);
    auto full = validate(*s, v, &old);
    EXPECT_EQ(describe_all(validate(*s, v, &old, incremental)), describe_all(full)) << next;
  }
}

TEST(IncrementalValidation, AnotherSchemaMeansAFullValidation) {
  // The CRD changed: spec.name may now be one character at most. The stored object passed
  // the old schema; its unchanged spec fails the new one and is reported.
  auto before = testing::inline_schema(kSchema);
  std::string stricter(kSchema);
  stricter.replace(stricter.find(R"("pattern": "^a+$")"), 17, R"("pattern": "^a$")");
  auto now = testing::inline_schema(stricter);
  ASSERT_TRUE(before && now);
  ValidationStamp stamp;
  json::value old = J(R"j({"spec": {"name": "aa"}, "status": {"phase": "Ok"}})j");
  ASSERT_TRUE(passes(*before, old, stamp));
  json::value next = J(R"j({"spec": {"name": "aa"}, "status": {"phase": "Fine"}})j");
  ValidateOptions o;
  o.old_stamp = stamp;
  auto errors = validate(*now, next, &old, o);
  EXPECT_EQ(causes(errors), std::vector<std::string>{"FieldValueInvalid spec.name"});
  EXPECT_EQ(describe_all(errors), describe_all(validate(*now, next, &old)));
}

TEST(IncrementalValidation, TransitionRulesStillRunInUnchangedParts) {
  auto s = testing::inline_schema(kSchema);
  ASSERT_TRUE(s);
  // spec.counter is unchanged, and its rule reads oldSelf: it runs (and here fails).
  std::string rule = R"("self.n >= oldSelf.n")";
  std::string schema(kSchema);
  schema.replace(schema.find(rule), rule.size(), R"("self.n > oldSelf.n")");
  auto growing = testing::inline_schema(schema);
  ASSERT_TRUE(growing);
  json::value old = J(R"j({"spec": {"name": "aa", "counter": {"n": 2}}, "status": {"phase": "Ok"}})j");
  json::value next = J(R"j({"spec": {"name": "aa", "counter": {"n": 2}}, "status": {"phase": "Fine"}})j");
  auto errors = validate(*growing, next, &old, after(*growing));
  EXPECT_EQ(causes(errors), std::vector<std::string>{"FieldValueInvalid spec.counter"});
  EXPECT_EQ(errors[0].message, "Invalid value: \"object\": n must not go down");
}

TEST(IncrementalValidation, TheRootsMetadataIsAlwaysChecked) {
  auto s = testing::inline_schema(R"j({"type": "object", "properties": {
      "metadata": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 3}}},
      "spec": {"type": "object"}}})j");
  ASSERT_TRUE(s);
  json::value old = J(R"j({"metadata": {"name": "toolong"}, "spec": {"a": 1}})j");
  json::value next = J(R"j({"metadata": {"name": "toolong"}, "spec": {"a": 2}})j");
  EXPECT_EQ(causes(validate(*s, next, &old, after(*s))), std::vector<std::string>{"FieldValueTooLong metadata.name"});
}

TEST(IncrementalValidation, RunningOutOfBudgetGivesTheFullValidationsErrors) {
  // Rules whose cost grows with a list: the skipped spec rule's cost would have counted
  // against the budget, so wherever a full validation runs out, so does the incremental one.
  auto s = testing::inline_schema(R"j({"type": "object", "properties": {
      "spec": {"type": "object", "properties": {"items": {"type": "array", "items": {"type": "string"},
        "x-kubernetes-validations": [{"rule": "self.all(x, x.size() < 10)"}]}}},
      "status": {"type": "object", "properties": {"items": {"type": "array", "items": {"type": "string"},
        "x-kubernetes-validations": [{"rule": "self.all(x, x.size() < 10)"}]}}}}})j");
  ASSERT_TRUE(s);
  json::value old = J(R"j({"spec": {"items": ["a", "b", "c", "d", "e", "f", "g", "h"]}, "status": {"items": ["a"]}})j");
  json::value next = J(R"j({"spec": {"items": ["a", "b", "c", "d", "e", "f", "g", "h"]},
                           "status": {"items": ["a", "b", "c", "d", "e", "f", "g", "h"]}})j");
  ValidationStamp stamp;
  ASSERT_TRUE(passes(*s, old, stamp));
  EXPECT_GT(stamp.cel_cost, 0u);
  bool ran_out_somewhere = false;
  for (std::uint64_t budget = 1; budget < 200; ++budget) {
    ValidateOptions full;
    full.cel_cost_budget = budget;
    ValidateOptions incremental = full;
    incremental.old_stamp = stamp;
    auto expected = validate(*s, next, &old, full);
    ran_out_somewhere = ran_out_somewhere || !expected.empty();
    EXPECT_EQ(describe_all(validate(*s, next, &old, incremental)), describe_all(expected)) << "budget " << budget;
  }
  EXPECT_TRUE(ran_out_somewhere);
}

TEST(IncrementalValidation, StampsChainAcrossWrites) {
  auto s = testing::inline_schema(kSchema);
  ASSERT_TRUE(s);
  ValidationStamp stamp;
  json::value current = J(R"j({"spec": {"name": "aa", "counter": {"n": 1}}, "status": {"phase": "Ok"}})j");
  ASSERT_TRUE(passes(*s, current, stamp));
  for (int i = 2; i < 6; ++i) {
    json::value next = current;
    next.as_object()["spec"].as_object()["counter"].as_object()["n"] = i;
    ValidateOptions o;
    o.old_stamp = stamp;
    ValidationStamp next_stamp;
    o.stamp = &next_stamp;
    EXPECT_TRUE(validate(*s, next, &current, o).empty());
    EXPECT_EQ(next_stamp.schema_serial, serial(*s));
    EXPECT_GE(next_stamp.cel_cost, stamp.cel_cost);  // an upper bound: skipped rules count as before
    stamp = next_stamp;
    current = std::move(next);
  }
}

}  // namespace
}  // namespace kueuepp::kube::schema
