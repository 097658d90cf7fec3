#include "core/quantity.hpp"

#include <gtest/gtest.h>

namespace kueuepp::core {
namespace {

std::int64_t milli(std::string_view s) {
  auto q = Quantity::parse(s);
  EXPECT_TRUE(q.has_value()) << s << ": " << (q ? "" : q.error().message);
  return q ? q->milli() : -1;
}

std::string canon(std::string_view s) {
  auto q = Quantity::parse(s);
  EXPECT_TRUE(q.has_value()) << s;
  return q ? q->to_string() : "";
}

TEST(Quantity, ParsesEveryFormKubeApiserverAccepts) {
  EXPECT_EQ(milli("500m"), 500);
  EXPECT_EQ(milli("2"), 2000);
  EXPECT_EQ(milli("1.5"), 1500);
  EXPECT_EQ(milli("1Gi"), 1073741824000LL);
  EXPECT_EQ(milli("1e3"), 1000000);
  EXPECT_EQ(milli("1E3"), 1000000);
  EXPECT_EQ(milli("100Mi"), 104857600000LL);
  EXPECT_EQ(milli("1k"), 1000000);
  EXPECT_EQ(milli("1M"), 1000000000);
  EXPECT_EQ(milli("+3"), 3000);
  EXPECT_EQ(milli("-3"), -3000);
  EXPECT_EQ(milli(".5"), 500);
  EXPECT_EQ(milli("5."), 5000);
  EXPECT_EQ(milli("0"), 0);
  EXPECT_EQ(milli("0.000"), 0);
  EXPECT_EQ(milli("1.5Gi"), 1610612736000LL);
  EXPECT_EQ(milli("12e-3"), 12);
}

TEST(Quantity, RoundsSubMilliValuesUpLikeKubernetes) {
  EXPECT_EQ(milli("1n"), 1);
  EXPECT_EQ(milli("100u"), 1);
  EXPECT_EQ(milli("1500u"), 2);
  EXPECT_EQ(milli("0.0001"), 1);
  EXPECT_EQ(milli("-0.0001"), -1);
  EXPECT_EQ(milli("0.1Ki"), 102400);
  EXPECT_EQ(milli("0.0001Ki"), 103);
}

TEST(Quantity, RejectsGarbageWithAClearError) {
  for (std::string_view bad : {"", "abc", "1.2.3", "1KB", "1K", "1 Gi", "--1", "1e", "Gi",
                               ".", "1Gb", "1mi", "0x10", "1e3.5", "1i"}) {
    auto q = Quantity::parse(bad);
    EXPECT_FALSE(q.has_value()) << "accepted \"" << bad << "\"";
    if (!q) {
      EXPECT_FALSE(q.error().message.empty());
    }
  }
}

TEST(Quantity, RejectsOverflowInsteadOfWrapping) {
  for (std::string_view big : {"10Ei", "100P", "1e19", "99999999999999999999", "1e999999"}) {
    auto q = Quantity::parse(big);
    EXPECT_FALSE(q.has_value()) << "accepted \"" << big << "\"";
    if (!q) {
      EXPECT_NE(q.error().message.find("too large"), std::string::npos);
    }
  }
  EXPECT_EQ(milli("9223372036854775807m"), INT64_MAX);
  EXPECT_FALSE(Quantity::parse("9223372036854775808m").has_value());
}

TEST(Quantity, LongMantissasKeepTheirValue) {
  EXPECT_EQ(milli("0.000000000000000000000000000000000000001"), 1);
  EXPECT_EQ(milli("000000000000000000000000000000000000000000002"), 2000);
  EXPECT_EQ(milli("1.0000000000000000000000000000000000000000"), 1000);
}

TEST(Quantity, PrintsCanonicallyAsKubeApiserver) {
  EXPECT_EQ(canon("1000m"), "1");
  EXPECT_EQ(canon("1500m"), "1500m");
  EXPECT_EQ(canon("1.5"), "1500m");
  EXPECT_EQ(canon("2048Mi"), "2Gi");
  EXPECT_EQ(canon("1536Mi"), "1536Mi");
  EXPECT_EQ(canon("1024"), "1024");
  EXPECT_EQ(canon("1000"), "1k");
  EXPECT_EQ(canon("1500000"), "1500k");
  EXPECT_EQ(canon("0.5Ki"), "512");
  EXPECT_EQ(canon("1e3"), "1e3");
  EXPECT_EQ(canon("1.5e3"), "1500");
  EXPECT_EQ(canon("0"), "0");
  EXPECT_EQ(canon("-2Gi"), "-2Gi");
  EXPECT_EQ(canon("100Mi"), "100Mi");
  EXPECT_EQ(canon("9Gi"), "9Gi");
  EXPECT_EQ(canon("200Mi"), "200Mi");
}

TEST(Quantity, CanonicalTextParsesBackToTheSameValue) {
  for (std::string_view s : {"1", "1500m", "3Gi", "7k", "123456789m", "1e6", "0.25", "512Ki"}) {
    auto q = Quantity::parse(s);
    ASSERT_TRUE(q.has_value());
    auto back = Quantity::parse(q->to_string());
    ASSERT_TRUE(back.has_value()) << q->to_string();
    EXPECT_EQ(back->milli(), q->milli()) << s;
  }
}

TEST(Quantity, UnitsRoundUp) {
  EXPECT_EQ(Quantity::from_milli(1500).units_ceil(), 2);
  EXPECT_EQ(Quantity::from_milli(2000).units_ceil(), 2);
  EXPECT_EQ(Quantity::from_milli(1).units_ceil(), 1);
  EXPECT_EQ(Quantity::from_milli(0).units_ceil(), 0);
}

TEST(Quantity, SaturatingArithmeticNeverWraps) {
  EXPECT_EQ(sat_add(kMilliMax, 1), kMilliMax);
  EXPECT_EQ(sat_sub(kMilliMin, 1), kMilliMin);
  EXPECT_EQ(sat_mul(kMilliMax / 2, 3), kMilliMax);
  EXPECT_EQ(sat_mul(-(kMilliMax / 2), 3), kMilliMin);
  EXPECT_EQ(sat_add(2, 3), 5);
}

}  // namespace
}  // namespace kueuepp::core
