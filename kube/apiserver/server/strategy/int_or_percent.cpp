#include "kube/apiserver/server/strategy/int_or_percent.hpp"

#include <charconv>

namespace kueuepp::kube::server {

namespace {

constexpr std::string_view kPercentMsg =
    "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used "
    "for validation is '[0-9]+%')";

/// "[0-9]+%" as a number; nullopt otherwise (or when it does not fit).
std::optional<std::int64_t> percent_of(std::string_view s) {
  if (s.size() < 2 || s.back() != '%') return std::nullopt;
  std::string_view digits = s.substr(0, s.size() - 1);
  std::int64_t n = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc() || p != digits.data() + digits.size() || digits.front() == '-' || digits.front() == '+') {
    return std::nullopt;
  }
  return n;
}

}  // namespace

std::optional<std::int64_t> int_or_percent_value(const json::value& v) {
  if (v.is_int64()) return v.get_int64();
  if (v.is_uint64()) return static_cast<std::int64_t>(v.get_uint64());
  if (v.is_string()) return percent_of(v.get_string());
  return std::nullopt;
}

FieldErrors validate_int_or_percent(const json::value& v, const std::string& path, bool at_most_100_percent) {
  FieldErrors errs;
  if (v.is_string()) {
    auto percent = percent_of(v.get_string());
    if (!percent) {
      errs.push_back(invalid_error(path, v, kPercentMsg));
    } else if (at_most_100_percent && *percent > 100) {
      errs.push_back(invalid_error(path, v, "must not be greater than 100%"));
    }
  } else if (v.is_int64() || v.is_uint64()) {
    if (v.is_int64() && v.get_int64() < 0) errs.push_back(invalid_error(path, v, "must be greater than or equal to 0"));
  } else {
    errs.push_back(invalid_error(path, v, "must be an integer or percentage (e.g '5%')"));
  }
  return errs;
}

}  // namespace kueuepp::kube::server
