// RFC 3339 as core reads and writes it: the one implementation behind core::Time, the
// client's metav1.Time/MicroTime (kube/client/micro_time.hpp) and the API server's
// (kube/apiserver/server/util/time.hpp).

#include "core/model/time.hpp"

#include <gtest/gtest.h>

namespace kueuepp::core {
namespace {

TEST(Time, ParsesAndFormatsRfc3339) {
  auto t = parse_rfc3339("2026-01-01T00:00:00Z");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(format_rfc3339(*t), "2026-01-01T00:00:00Z");
  auto micro = parse_rfc3339("2024-01-01T10:20:30.123456Z");
  ASSERT_TRUE(micro.has_value());
  EXPECT_EQ(format_rfc3339_micro(*micro), "2024-01-01T10:20:30.123456Z");
  auto offset = parse_rfc3339("2026-01-01T02:00:00+02:00");
  ASSERT_TRUE(offset.has_value());
  EXPECT_EQ(*offset, *t);
  EXPECT_FALSE(parse_rfc3339("2026-13-01T00:00:00Z").has_value());
  EXPECT_FALSE(parse_rfc3339("yesterday").has_value());
  EXPECT_FALSE(parse_rfc3339("2026-02-30T00:00:00Z").has_value());
}

TEST(Time, FormatsEveryFieldAtItsWidthAndRoundTrips) {
  for (const char* text : {"1969-12-31T23:59:59.000042Z", "0001-01-01T00:00:00.000000Z", "9999-12-31T23:59:59.999999Z",
                           "2024-02-29T07:08:09.100000Z", "1970-01-01T00:00:00.000001Z"}) {
    auto t = parse_rfc3339(text);
    ASSERT_TRUE(t.has_value()) << text;
    EXPECT_EQ(format_rfc3339_micro(*t), text);
    EXPECT_EQ(format_rfc3339(*t), std::string(text).substr(0, 19) + "Z");
  }
  // Every second of a leap day, and microseconds across the range, come back as they went.
  Time day = *parse_rfc3339("2028-02-29T00:00:00Z");
  for (std::int64_t s = 0; s < 86400; s += 7) {
    Time t = day + std::chrono::seconds(s) + std::chrono::microseconds((s * 7919) % 1000000);
    auto back = parse_rfc3339(format_rfc3339_micro(t));
    ASSERT_TRUE(back.has_value()) << format_rfc3339_micro(t);
    EXPECT_EQ(*back, t);
    EXPECT_EQ(*parse_rfc3339(format_rfc3339(t)), std::chrono::floor<std::chrono::seconds>(t));
  }
}

TEST(Time, ScanReadsTheShapeOnly) {
  auto f = scan_rfc3339("2024-13-45T99:98:97.1234567891Z");
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->year, 2024);
  EXPECT_EQ(f->month, 13);
  EXPECT_EQ(f->day, 45);
  EXPECT_EQ(f->hour, 99);
  EXPECT_EQ(f->minute, 98);
  EXPECT_EQ(f->second, 97);
  EXPECT_EQ(f->nanos, 123456789);  // truncated, not rounded
  EXPECT_EQ(f->fraction_digits, 10);
  EXPECT_EQ(f->separator, 'T');
  EXPECT_FALSE(f->in_range());
  EXPECT_FALSE(parse_rfc3339("2024-13-45T99:98:97.1234567891Z").has_value());

  auto offset = scan_rfc3339("2024-01-02 03:04:05-01:30");
  ASSERT_TRUE(offset.has_value());
  EXPECT_EQ(offset->separator, ' ');
  EXPECT_EQ(offset->offset_minutes, -90);
  EXPECT_EQ(offset->fraction_digits, 0);
  EXPECT_TRUE(offset->in_range());
  EXPECT_EQ(*parse_rfc3339("2024-01-02 03:04:05-01:30"), *parse_rfc3339("2024-01-02T04:34:05Z"));

  for (const char* bad : {"", "2024-01-01", "2024-01-01T00:00:00", "2024-01-01X00:00:00Z", "2024-01-01T00:00:00.Z",
                          "2024-01-01T00:00:00Zjunk", "2024-01-01T00:00:00+0100", "2024-01-01T00:00:00+01:0",
                          "x024-01-01T00:00:00Z", "2024-1-01T00:00:00Z", "2024-01-01T00:00:00,5Z"}) {
    EXPECT_FALSE(scan_rfc3339(bad).has_value()) << bad;
    EXPECT_FALSE(parse_rfc3339(bad).has_value()) << bad;
  }
}

TEST(Time, OutOfRangeFieldsCarryOverAsTimegmDoes) {
  auto utc = [](const char* text) { return Time(scan_rfc3339(text)->utc_seconds()); };
  EXPECT_EQ(utc("2024-13-01T00:00:00Z"), *parse_rfc3339("2025-01-01T00:00:00Z"));
  EXPECT_EQ(utc("2024-00-01T00:00:00Z"), *parse_rfc3339("2023-12-01T00:00:00Z"));
  EXPECT_EQ(utc("2024-03-00T00:00:00Z"), *parse_rfc3339("2024-02-29T00:00:00Z"));
  EXPECT_EQ(utc("2024-02-30T24:60:60Z"), *parse_rfc3339("2024-03-02T01:01:00Z"));
  EXPECT_EQ(utc("0000-00-01T00:00:00Z"), Time(std::chrono::sys_days(std::chrono::year(-1) / 12 / 1)));
  // A leap second is in range and rolls over.
  EXPECT_EQ(*parse_rfc3339("2016-12-31T23:59:60Z"), *parse_rfc3339("2017-01-01T00:00:00Z"));
}

}  // namespace
}  // namespace kueuepp::core
