// The API server's timestamps: thin callers of core/model/time.hpp that choose how strict
// to be (the shape only, as the server always checked), and kubectl's ages.

#include "kube/apiserver/server/util/time.hpp"

#include <gtest/gtest.h>

#include "core/model/time.hpp"

namespace kueuepp::kube::server {
namespace {

using std::chrono::seconds;

TEST(ServerTime, NowHasTheShapeOfTimeAndMicroTime) {
  const std::string now = now_rfc3339();
  ASSERT_EQ(now.size(), 20u) << now;
  EXPECT_TRUE(core::parse_rfc3339(now).has_value()) << now;
  const std::string micro = now_micro_time();
  EXPECT_TRUE(is_micro_time(micro)) << micro;
  EXPECT_FALSE(is_micro_time(now));
}

TEST(ServerTime, MicroTimeWantsExactlySixDigits) {
  EXPECT_TRUE(is_micro_time("2024-01-01T00:00:00.000000Z"));
  EXPECT_TRUE(is_micro_time("2024-01-01t00:00:00.123456+02:00"));
  EXPECT_FALSE(is_micro_time("2024-01-01T00:00:00.12345Z"));
  EXPECT_FALSE(is_micro_time("2024-01-01T00:00:00.1234567Z"));
  EXPECT_FALSE(is_micro_time("2024-01-01 00:00:00.123456Z"));
  EXPECT_FALSE(is_micro_time("2024-01-01T00:00:00.123456"));
}

TEST(ServerTime, ParsesTheShapeAndCarriesFieldsOver) {
  using std::chrono::system_clock;
  auto at = [](const char* text) { return system_clock::time_point(*core::parse_rfc3339(text)); };
  EXPECT_EQ(parse_rfc3339("2024-01-01T02:00:00.5+02:00"), at("2024-01-01T00:00:00.5Z"));
  EXPECT_EQ(parse_rfc3339("2024-01-01T00:00:00.1234569Z"), at("2024-01-01T00:00:00.123456Z"));
  EXPECT_EQ(parse_rfc3339("2024-02-30T00:00:00Z"), at("2024-03-01T00:00:00Z"));
  EXPECT_FALSE(parse_rfc3339("2024-01-01 00:00:00Z"));
  EXPECT_FALSE(parse_rfc3339("2024-01-01T00:00:00"));
}

TEST(ServerTime, HumanDurationAsKubectl) {
  EXPECT_EQ(human_duration(seconds(-5)), "<invalid>");
  EXPECT_EQ(human_duration(seconds(-1)), "0s");
  EXPECT_EQ(human_duration(seconds(45)), "45s");
  EXPECT_EQ(human_duration(seconds(190)), "3m10s");
  EXPECT_EQ(human_duration(seconds(5 * 3600)), "5h");
  EXPECT_EQ(human_duration(seconds(12 * 86400)), "12d");
  EXPECT_EQ(human_duration(seconds(3 * 365 * 86400 + 86400)), "3y1d");
}

}  // namespace
}  // namespace kueuepp::kube::server
