// The exposition format's lexical pieces: numbers as client_golang writes them (Go's
// shortest 'g' formatting), escaping of label values and HELP text, name validation.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/metrics/text_format.hpp"

namespace kueuepp::metrics {
namespace {

TEST(TextFormatNumber, IntegersHaveNoDecimalPoint) {
  EXPECT_EQ(format_number(0), "0");
  EXPECT_EQ(format_number(-0.0), "0");
  EXPECT_EQ(format_number(1), "1");
  EXPECT_EQ(format_number(-1), "-1");
  EXPECT_EQ(format_number(3), "3");
  EXPECT_EQ(format_number(40960), "40960");
  EXPECT_EQ(format_number(123456), "123456");
  EXPECT_EQ(format_number(-999999), "-999999");
}

TEST(TextFormatNumber, FractionsUseShortestDigits) {
  EXPECT_EQ(format_number(2.5), "2.5");
  EXPECT_EQ(format_number(0.005), "0.005");
  EXPECT_EQ(format_number(0.1), "0.1");
  EXPECT_EQ(format_number(10.24), "10.24");
  EXPECT_EQ(format_number(1.0 / 3.0), "0.3333333333333333");
  EXPECT_EQ(format_number(0.0001), "0.0001");
  EXPECT_EQ(format_number(123456.5), "123456.5");
  EXPECT_EQ(format_number(-0.25), "-0.25");
}

TEST(TextFormatNumber, LargeAndTinyValuesUseGoExponentForm) {
  // Go's FormatFloat(v, 'g', -1, 64): exponent form when the exponent is < -4 or >= 6.
  EXPECT_EQ(format_number(1e6), "1e+06");
  EXPECT_EQ(format_number(1234567), "1.234567e+06");
  EXPECT_EQ(format_number(1073741824), "1.073741824e+09");  // 1Gi of memory
  EXPECT_EQ(format_number(1e21), "1e+21");
  EXPECT_EQ(format_number(1e-5), "1e-05");
  EXPECT_EQ(format_number(-2.5e-7), "-2.5e-07");
  EXPECT_EQ(format_number(1.7976931348623157e308), "1.7976931348623157e+308");
  EXPECT_EQ(format_number(5e-324), "5e-324");
}

TEST(TextFormatNumber, SpecialValues) {
  EXPECT_EQ(format_number(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(format_number(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(format_number(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(format_number(-std::numeric_limits<double>::quiet_NaN()), "NaN");
}

TEST(TextFormatEscaping, LabelValuesEscapeBackslashQuoteAndNewline) {
  std::string out;
  append_label_value(out, "a\\b\"c\nd'e\tf");
  EXPECT_EQ(out, "a\\\\b\\\"c\\nd'e\tf");
}

TEST(TextFormatEscaping, HelpEscapesBackslashAndNewlineOnly) {
  std::string out;
  append_help_text(out, "line \"one\"\nline two \\ end");
  EXPECT_EQ(out, "line \"one\"\\nline two \\\\ end");
}

TEST(TextFormatNames, MetricAndLabelNames) {
  EXPECT_TRUE(is_valid_metric_name("kueue_pending_workloads"));
  EXPECT_TRUE(is_valid_metric_name("a:b_c9"));
  EXPECT_TRUE(is_valid_metric_name("_x"));
  EXPECT_FALSE(is_valid_metric_name(""));
  EXPECT_FALSE(is_valid_metric_name("9lives"));
  EXPECT_FALSE(is_valid_metric_name("kueue-pending"));

  EXPECT_TRUE(is_valid_label_name("cluster_queue"));
  EXPECT_TRUE(is_valid_label_name("_private"));
  EXPECT_FALSE(is_valid_label_name("__reserved"));
  EXPECT_FALSE(is_valid_label_name("a:b"));
  EXPECT_FALSE(is_valid_label_name("1a"));
  EXPECT_FALSE(is_valid_label_name(""));
}

}  // namespace
}  // namespace kueuepp::metrics
