#include "kube/webhook/go_parse.hpp"

#include <limits>

#include "kube/webhook/field_errors.hpp"

namespace kueuepp::kube::webhook {

std::variant<std::int64_t, std::string> go_atoi(std::string_view text) {
  auto error = [&](std::string_view why) {
    return std::string("strconv.Atoi: parsing ") + go_quote(text) + ": " + std::string(why);
  };
  std::string_view digits = text;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  if (digits.empty()) return error("invalid syntax");
  std::uint64_t magnitude = 0;
  bool overflow = false;
  const std::uint64_t limit = negative ? static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + 1
                                       : static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  for (char c : digits) {
    if (c < '0' || c > '9') return error("invalid syntax");
    if (overflow) continue;  // Go reports syntax before range
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (magnitude > (limit - d) / 10) {
      overflow = true;
      continue;
    }
    magnitude = magnitude * 10 + d;
  }
  if (overflow) return error("value out of range");
  if (negative) {
    return magnitude == limit ? std::numeric_limits<std::int64_t>::min() : -static_cast<std::int64_t>(magnitude);
  }
  return static_cast<std::int64_t>(magnitude);
}

std::variant<bool, std::string> go_parse_bool(std::string_view text) {
  for (std::string_view t : {"1", "t", "T", "TRUE", "true", "True"}) {
    if (text == t) return true;
  }
  for (std::string_view f : {"0", "f", "F", "FALSE", "false", "False"}) {
    if (text == f) return false;
  }
  return std::string("strconv.ParseBool: parsing ") + go_quote(text) + ": invalid syntax";
}

}  // namespace kueuepp::kube::webhook
