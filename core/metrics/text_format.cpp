#include "core/metrics/text_format.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace kueuepp::metrics {

void append_number(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "NaN";
    return;
  }
  if (std::isinf(value)) {
    out += value > 0 ? "+Inf" : "-Inf";
    return;
  }
  if (value == 0) {  // also -0, as Go's writer does
    out += '0';
    return;
  }
  // The shortest round-tripping digits, in exponent form first: that yields the decimal
  // exponent Go's 'g' formatting decides on ("%e if exp < -4 || exp >= 6").
  std::array<char, 64> buf{};
  auto sci = std::to_chars(buf.data(), buf.data() + buf.size(), value, std::chars_format::scientific);
  std::string_view text(buf.data(), static_cast<std::size_t>(sci.ptr - buf.data()));
  int exponent = 0;
  if (auto e = text.find('e'); e != std::string_view::npos) {
    std::string_view digits = text.substr(e + 1);
    if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
    std::from_chars(digits.data(), digits.data() + digits.size(), exponent);
  }
  if (exponent < -4 || exponent >= 6) {
    // to_chars writes "d.ddde+XX" with at least two exponent digits, exactly like Go.
    out += text;
    return;
  }
  auto fixed = std::to_chars(buf.data(), buf.data() + buf.size(), value, std::chars_format::fixed);
  out.append(buf.data(), static_cast<std::size_t>(fixed.ptr - buf.data()));
}

std::string format_number(double value) {
  std::string out;
  append_number(out, value);
  return out;
}

void append_label_value(std::string& out, std::string_view value) {
  for (char c : value) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      default: out += c;
    }
  }
}

void append_help_text(std::string& out, std::string_view help) {
  for (char c : help) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      default: out += c;
    }
  }
}

namespace {

bool is_alpha_or_underscore(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

bool is_valid_metric_name(std::string_view name) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    bool ok = is_alpha_or_underscore(c) || c == ':' || (i > 0 && is_digit(c));
    if (!ok) return false;
  }
  return true;
}

bool is_valid_label_name(std::string_view name) {
  if (name.empty() || name.starts_with("__")) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (!(is_alpha_or_underscore(c) || (i > 0 && is_digit(c)))) return false;
  }
  return true;
}

}  // namespace kueuepp::metrics
