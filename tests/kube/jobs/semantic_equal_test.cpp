#include "kube/jobs/semantic_equal.hpp"

#include <gtest/gtest.h>

#include "fixtures.hpp"

namespace kueuepp::kube::jobs {
namespace {

using testing::yaml;

TEST(SemanticEqual, IdenticalDocuments) {
  EXPECT_TRUE(semantically_equal(yaml("{a: 1, b: [x, y]}"), yaml("{b: [x, y], a: 1}")));
}

TEST(SemanticEqual, MissingEqualsZeroValues) {
  EXPECT_TRUE(semantically_equal(yaml("{a: 1}"), yaml("{a: 1, b: null, c: [], d: {}, e: false, f: 0, g: ''}")));
  EXPECT_FALSE(semantically_equal(yaml("{a: 1}"), yaml("{a: 1, b: true}")));
}

TEST(SemanticEqual, NullPointersEqualZero) {
  json::value empty = json::array{};
  EXPECT_TRUE(semantically_equal(nullptr, &empty));
  EXPECT_TRUE(semantically_equal(static_cast<const json::value*>(nullptr), nullptr));
  json::value one = json::array{1};
  EXPECT_FALSE(semantically_equal(nullptr, &one));
}

TEST(SemanticEqual, QuantitiesCompareByAmountWhereExpected) {
  EXPECT_TRUE(semantically_equal(yaml("{resources: {requests: {cpu: '1'}}}"),
                                 yaml("{resources: {requests: {cpu: 1000m}}}")));
  EXPECT_TRUE(semantically_equal(yaml("{limits: {memory: 1Gi}}"), yaml("{limits: {memory: '1073741824'}}")));
  EXPECT_TRUE(semantically_equal(yaml("{total: '2'}"), yaml("{total: 2}")));
  EXPECT_FALSE(semantically_equal(yaml("{requests: {cpu: '1'}}"), yaml("{requests: {cpu: '2'}}")));
  // Elsewhere strings are strings.
  EXPECT_FALSE(semantically_equal(yaml("{image: '1'}"), yaml("{image: 1000m}")));
}

TEST(SemanticEqual, ArraysKeepOrder) {
  EXPECT_FALSE(semantically_equal(yaml("[a, b]"), yaml("[b, a]")));
  EXPECT_FALSE(semantically_equal(yaml("[a]"), yaml("[a, b]")));
}

TEST(SemanticEqual, NumbersByValue) {
  json::value a = std::int64_t{5};
  json::value b = std::uint64_t{5};
  json::value c = 5.0;
  EXPECT_TRUE(semantically_equal(a, b));
  EXPECT_TRUE(semantically_equal(a, c));
  EXPECT_FALSE(semantically_equal(a, json::value(std::int64_t{6})));
  EXPECT_FALSE(semantically_equal(json::value(std::int64_t{-1}), json::value(std::uint64_t{18446744073709551615ULL})));
}

TEST(SemanticEqual, KindMismatch) {
  EXPECT_FALSE(semantically_equal(yaml("{a: x}"), yaml("{a: [x]}")));
}

}  // namespace
}  // namespace kueuepp::kube::jobs
