#pragma once

// The lexical pieces of Prometheus' text exposition format 0.0.4, written the way
// client_golang's expfmt writes them, so a scrape of kueuepp reads like a scrape of Kueue:
//
// - numbers: NaN, +Inf, -Inf; 0 (also for -0); otherwise Go's
//   strconv.FormatFloat(v, 'g', -1, 64): the shortest digits that read back to the
//   same double, in plain notation when the decimal exponent is in [-4, 6) and in
//   exponent notation otherwise ("3", "2.5", "0.0001", "123456", "1e+06",
//   "1.073741824e+09", "1e-05");
// - label values: backslash, double quote and line feed escaped as \\, \" and \n;
// - HELP text: backslash and line feed escaped as \\ and \n (quotes stay as they are).
//
// Pure functions, no allocation beyond growing the output string.

#include <string>
#include <string_view>

namespace kueuepp::metrics {

/// Appends `value` as client_golang renders sample values and `le` bounds.
void append_number(std::string& out, double value);
std::string format_number(double value);

/// Appends a label value with \\, \" and \n escaped (the quotes around it are the caller's).
void append_label_value(std::string& out, std::string_view value);

/// Appends HELP text with \\ and \n escaped.
void append_help_text(std::string& out, std::string_view help);

/// [a-zA-Z_:][a-zA-Z0-9_:]*
bool is_valid_metric_name(std::string_view name);
/// [a-zA-Z_][a-zA-Z0-9_]*, not starting with "__" (reserved by Prometheus).
bool is_valid_label_name(std::string_view name);

}  // namespace kueuepp::metrics
