// JSON equality as Kubernetes sees decoded documents: numbers by value, objects without
// member order, a bounded depth.

#include "kube/json/json_equal.hpp"

#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

namespace kueuepp::json {
namespace {

value parse(std::string_view text) { return *json::parse(text); }

TEST(JsonEqual, ComparesNumbersNumericallyAndStructuresDeeply) {
  EXPECT_TRUE(json_equal(parse("1"), parse("1.0")));
  EXPECT_TRUE(json_equal(parse(R"({"a":[1,{"b":null}]})"), parse(R"({"a":[1.0,{"b":null}]})")));
  EXPECT_TRUE(json_equal(parse(R"({"a":1,"b":"x"})"), parse(R"({"b":"x","a":1})")));
  EXPECT_FALSE(json_equal(parse(R"({"a":1})"), parse(R"({"a":1,"b":2})")));
  EXPECT_FALSE(json_equal(parse(R"({"a":1})"), parse(R"({"b":1})")));
  EXPECT_FALSE(json_equal(parse(R"("1")"), parse("1")));
  EXPECT_FALSE(json_equal(parse("[1,2]"), parse("[2,1]")));
  EXPECT_FALSE(json_equal(parse("null"), parse("false")));
  EXPECT_TRUE(json_equal(parse("null"), parse("null")));
  EXPECT_FALSE(json_equal(parse("true"), parse("false")));
}

TEST(JsonEqual, NumbersCompareExactlyAcrossRepresentations) {
  const value i(std::int64_t{5}), u(std::uint64_t{5}), d(5.0);
  EXPECT_TRUE(numbers_equal(i, u));
  EXPECT_TRUE(numbers_equal(u, d));
  EXPECT_EQ(compare_numbers(i, u), 0);
  const value minus(std::int64_t{-1}), big(std::numeric_limits<std::uint64_t>::max());
  EXPECT_FALSE(numbers_equal(minus, big));  // not equal modulo 2^64
  EXPECT_EQ(compare_numbers(minus, big), -1);
  EXPECT_EQ(compare_numbers(big, minus), 1);
  EXPECT_EQ(compare_numbers(value(2.5), i), -1);
  EXPECT_EQ(compare_numbers(value(std::uint64_t{7}), u), 1);
  // 2^63 + 1 as uint64 and as int64 cannot be the same value.
  EXPECT_FALSE(numbers_equal(value(std::int64_t{std::numeric_limits<std::int64_t>::max()}),
                             value(std::uint64_t{1} << 63)));
}

TEST(JsonEqual, DocumentsDeeperThanTheLimitCompareUnequal) {
  auto nested = [](int depth) {
    value v = array{};
    for (int i = 0; i < depth; ++i) v = array{std::move(v)};
    return v;
  };
  EXPECT_TRUE(json_equal(nested(kMaxEqualDepth), nested(kMaxEqualDepth)));
  EXPECT_FALSE(json_equal(nested(kMaxEqualDepth + 1), nested(kMaxEqualDepth + 1)));
}

}  // namespace
}  // namespace kueuepp::json
