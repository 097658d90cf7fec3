#include "kube/apiserver/conformance/subset_match.hpp"

#include <gtest/gtest.h>

namespace kueuepp::kube::conformance {
namespace {

json::value parse(std::string_view text) { return *json::parse(text); }

std::optional<Difference> diff(std::string_view recorded, std::string_view actual,
                               std::vector<std::string> contains = {}) {
  std::vector<TracePath> paths;
  for (const auto& c : contains) paths.push_back(*parse_trace_path(c, PathUse::Contains));
  return first_difference(parse(recorded), parse(actual), paths);
}

TEST(SubsetMatch, ObjectsAreSubsetsExtraActualKeysAreFine) {
  EXPECT_FALSE(diff(R"({"a":1})", R"({"a":1,"b":2})"));
  auto d = diff(R"({"a":1,"c":{"d":"x"}})", R"({"a":1,"c":{"d":"y"}})");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->path, "c.d");
  EXPECT_EQ(d->message, R"(expected "x", actual "y")");
  auto missing = diff(R"({"metadata":{"labels":{"app":"ct"}}})", R"({"metadata":{}})");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->path, "metadata.labels");
  EXPECT_NE(missing->message.find("missing"), std::string::npos);
}

TEST(SubsetMatch, ARecordedNullMatchesAnAbsentKeyButNotAValue) {
  EXPECT_FALSE(diff(R"({"creationTimestamp":null})", R"({})"));
  EXPECT_FALSE(diff(R"({"creationTimestamp":null})", R"({"creationTimestamp":null})"));
  EXPECT_TRUE(diff(R"({"creationTimestamp":null})", R"({"creationTimestamp":"2024"})"));
}

TEST(SubsetMatch, ArraysAreComparedPairwiseWithTheSameLength) {
  EXPECT_FALSE(diff(R"([1,{"a":1}])", R"([1,{"a":1,"b":2}])"));
  auto longer = diff(R"({"f":["a"]})", R"({"f":["a","b"]})");
  ASSERT_TRUE(longer);
  EXPECT_EQ(longer->path, "f");
  EXPECT_NE(longer->message.find("expected 1 elements, actual 2"), std::string::npos);
  auto order = diff(R"(["a","b"])", R"(["b","a"])");
  ASSERT_TRUE(order);
  EXPECT_EQ(order->path, "0");
}

TEST(SubsetMatch, ContainsArraysMatchDistinctElementsInAnyOrder) {
  const char* recorded = R"({"resources":[{"name":"jobs","verbs":["get"]},{"name":"jobs/status"}]})";
  EXPECT_FALSE(diff(recorded, R"({"resources":[{"name":"x"},{"name":"jobs/status"},{"name":"jobs","verbs":["get"]}]})",
                    {"resources"}));
  auto missing = diff(recorded, R"({"resources":[{"name":"jobs","verbs":["list"]},{"name":"jobs/status"}]})",
                      {"resources"});
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->path, "resources.0.verbs.0");  // points at the same-named element
  EXPECT_NE(missing->message.find("element \"jobs\""), std::string::npos);
  // Distinctness: two recorded elements cannot share one actual element.
  EXPECT_TRUE(diff(R"({"r":[{"k":1},{"k":1}]})", R"({"r":[{"k":1,"x":1},{"k":2}]})", {"r"}));
  // A greedy choice would fail here; a matching exists.
  EXPECT_FALSE(diff(R"({"r":[{"a":1},{"a":1,"b":1}]})", R"({"r":[{"a":1,"b":1},{"a":1}]})", {"r"}));
  // Without the contains path the order matters.
  EXPECT_TRUE(diff(R"({"r":[{"a":1},{"b":1}]})", R"({"r":[{"b":1},{"a":1}]})"));
}

TEST(SubsetMatch, ContainsPathsWithWildcards) {
  EXPECT_FALSE(diff(R"({"groups":[{"versions":[{"v":"b"}]}]})",
                    R"({"groups":[{"versions":[{"v":"a"},{"v":"b"}]}]})", {"groups", "groups.*.versions"}));
  EXPECT_TRUE(diff(R"({"groups":[{"versions":[{"v":"b"}]}]})",
                   R"({"groups":[{"versions":[{"v":"a"},{"v":"b"}]}]})", {"groups"}));
}

TEST(SubsetMatch, StringsUseTokenPatterns) {
  EXPECT_FALSE(diff(R"({"uid":"<uid>","name":"j-<generated>"})", R"({"uid":"abc","name":"j-xyz"})"));
  EXPECT_TRUE(diff(R"({"uid":"<uid>"})", R"({"uid":""})"));
  auto type = diff(R"({"rv":"<rv>"})", R"({"rv":5})");
  ASSERT_TRUE(type);
  EXPECT_NE(type->message.find("a number"), std::string::npos);
}

TEST(SubsetMatch, NumbersCompareNumericallyBooleansAndNullsExactly) {
  EXPECT_FALSE(diff("1", "1.0"));
  EXPECT_FALSE(diff("[0.5, -3]", "[0.5, -3]"));
  EXPECT_FALSE(diff("18446744073709551615", "18446744073709551615"));
  EXPECT_TRUE(diff("1", "2"));
  EXPECT_TRUE(diff("1", "\"1\""));
  EXPECT_TRUE(diff("true", "false"));
  EXPECT_TRUE(diff("true", "1"));
  EXPECT_FALSE(diff("null", "null"));
  EXPECT_TRUE(diff("null", "0"));
  EXPECT_FALSE(diff(R"("404 page not found\n")", R"("404 page not found\n")"));
}

TEST(SubsetMatch, TypeMismatchesAreReported) {
  auto d = diff(R"({"a":{"b":1}})", R"({"a":[1]})");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->path, "a");
  EXPECT_NE(d->message.find("expected an object, actual an array"), std::string::npos);
  auto whole = diff(R"({"kind":"Status"})", R"("text")");
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->path, "(whole body)");
}

TEST(Matching, FindsAPerfectMatchingOrTheUnmatchedElement) {
  EXPECT_FALSE(unmatched_left(2, 2, {{1, 1}, {1, 0}}));
  EXPECT_EQ(unmatched_left(2, 2, {{1, 0}, {1, 0}}), 1u);
  EXPECT_EQ(unmatched_left(1, 0, {{}}), 0u);
  EXPECT_FALSE(unmatched_left(0, 3, {}));
}

}  // namespace
}  // namespace kueuepp::kube::conformance
