#include "kube/apiserver/schema/formats.hpp"

#include <gtest/gtest.h>

namespace kueuepp::kube::schema {
namespace {

TEST(Formats, NamesAsKubeApiserverKeepsThem) {
  EXPECT_EQ(parse_format("date-time"), Format::DateTime);
  EXPECT_EQ(parse_format("datetime"), Format::DateTime);
  EXPECT_EQ(parse_format("date"), Format::Date);
  EXPECT_EQ(parse_format("byte"), Format::Byte);
  EXPECT_EQ(parse_format("uuid"), Format::Uuid);
  EXPECT_EQ(parse_format("ipv4"), Format::Ipv4);
  EXPECT_EQ(parse_format("hostname"), Format::Unchecked);
  // Stripped by apiextensions (not in its supported set): no validation at all.
  EXPECT_EQ(parse_format("int32"), Format::None);
  EXPECT_EQ(parse_format("int64"), Format::None);
  EXPECT_EQ(parse_format("double"), Format::None);
  EXPECT_EQ(parse_format(""), Format::None);
  EXPECT_EQ(parse_format("bogus"), Format::None);
}

struct Case {
  Format format;
  const char* value;
  bool valid;
};

class FormatCheck : public ::testing::TestWithParam<Case> {};

TEST_P(FormatCheck, Value) {
  EXPECT_EQ(format_valid(GetParam().format, GetParam().value), GetParam().valid) << GetParam().value;
}

INSTANTIATE_TEST_SUITE_P(
    All, FormatCheck,
    ::testing::Values(
        Case{Format::DateTime, "2024-01-01T00:00:00Z", true}, Case{Format::DateTime, "2024-01-01T00:00:00.123456Z", true},
        Case{Format::DateTime, "2024-01-01T23:59:59+02:00", true}, Case{Format::DateTime, "2024-01-01t00:00:00z", true},
        Case{Format::DateTime, "2024-02-29T00:00:00Z", true}, Case{Format::DateTime, "2023-02-29T00:00:00Z", false},
        Case{Format::DateTime, "2024-01-01T24:00:00Z", false}, Case{Format::DateTime, "2024-01-01T00:60:00Z", false},
        Case{Format::DateTime, "2024-01-01T00:00:00", false}, Case{Format::DateTime, "2024-01-01 00:00:00Z", false},
        Case{Format::DateTime, "2024-1-01T00:00:00Z", false}, Case{Format::DateTime, "abc", false},
        Case{Format::DateTime, "2024-13-01T00:00:00Z", false}, Case{Format::DateTime, "2024-01-01T00:00:00-5Z", true},
        Case{Format::DateTime, "2024-01-01T00:00:00.Z", false}, Case{Format::DateTime, "", false},
        Case{Format::Date, "2024-12-31", true}, Case{Format::Date, "2024-04-31", false}, Case{Format::Date, "24-12-31", false},
        Case{Format::Byte, "aGVsbG8=", true}, Case{Format::Byte, "aGVsbG8", false}, Case{Format::Byte, "aGV$bG8=", false},
        Case{Format::Uuid, "3f1c6f5e-1b2a-4c3d-9e8f-0a1b2c3d4e5f", true}, Case{Format::Uuid, "3F1C6F5E1B2A4C3D9E8F0A1B2C3D4E5F", true},
        Case{Format::Uuid, "3f1c6f5e-1b2a-4c3d-9e8f", false}, Case{Format::Uuid4, "3f1c6f5e-1b2a-4c3d-9e8f-0a1b2c3d4e5f", true},
        Case{Format::Uuid4, "3f1c6f5e-1b2a-3c3d-9e8f-0a1b2c3d4e5f", false}, Case{Format::Uuid3, "3f1c6f5e-1b2a-3c3d-9e8f-0a1b2c3d4e5f", true},
        Case{Format::Uuid5, "3f1c6f5e-1b2a-5c3d-8e8f-0a1b2c3d4e5f", true}, Case{Format::Ipv4, "10.0.0.1", true},
        Case{Format::Ipv4, "10.0.0.256", false}, Case{Format::Ipv4, "10.0.0", false}, Case{Format::Ipv4, "10.00.0.1", false},
        Case{Format::Password, "anything", true}, Case{Format::Unchecked, "anything", true}, Case{Format::None, "", true}));

}  // namespace
}  // namespace kueuepp::kube::schema
