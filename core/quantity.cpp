#include "core/quantity.hpp"

#include <array>

namespace kueuepp::core {
namespace {

__extension__ using u128 = unsigned __int128;  // GCC and Clang both provide it

constexpr u128 kLimit = static_cast<u128>(INT64_MAX);

// Multiplies `v` by `m`, clamping to kLimit + 1 (which callers treat as overflow).
u128 mul_clamp(u128 v, u128 m) {
  if (v == 0 || m == 0) return 0;
  if (v > (kLimit + 1) / m) return kLimit + 1;
  u128 r = v * m;
  return r > kLimit ? kLimit + 1 : r;
}

struct Suffix {
  int exp10 = 0;   // decimal exponent
  int pow1024 = 0; // binary exponent (1024^n)
  Quantity::Format format = Quantity::Format::DecimalSI;
};

bool parse_suffix(std::string_view s, Suffix& out) {
  using F = Quantity::Format;
  if (s.empty()) { out = {0, 0, F::DecimalSI}; return true; }
  if (s.size() == 2 && s[1] == 'i') {
    static constexpr std::string_view kBin = "KMGTPE";
    auto pos = kBin.find(s[0]);
    if (pos == std::string_view::npos) return false;
    out = {0, static_cast<int>(pos) + 1, F::BinarySI};
    return true;
  }
  if (s.size() == 1) {
    switch (s[0]) {
      case 'n': out = {-9, 0, F::DecimalSI}; return true;
      case 'u': out = {-6, 0, F::DecimalSI}; return true;
      case 'm': out = {-3, 0, F::DecimalSI}; return true;
      case 'k': out = {3, 0, F::DecimalSI}; return true;
      case 'M': out = {6, 0, F::DecimalSI}; return true;
      case 'G': out = {9, 0, F::DecimalSI}; return true;
      case 'T': out = {12, 0, F::DecimalSI}; return true;
      case 'P': out = {15, 0, F::DecimalSI}; return true;
      case 'E': out = {18, 0, F::DecimalSI}; return true;
      default: return false;
    }
  }
  if (s[0] == 'e' || s[0] == 'E') {
    std::string_view rest = s.substr(1);
    bool neg = false;
    if (!rest.empty() && (rest[0] == '+' || rest[0] == '-')) {
      neg = rest[0] == '-';
      rest.remove_prefix(1);
    }
    if (rest.empty() || rest.size() > 6) return false;
    int e = 0;
    for (char c : rest) {
      if (c < '0' || c > '9') return false;
      e = e * 10 + (c - '0');
    }
    out = {neg ? -e : e, 0, F::DecimalExponent};
    return true;
  }
  return false;
}

Unexpected<Error> syntax_error(std::string_view text) {
  return fail("quantity \"" + std::string(text) +
              "\" is not valid: quantities must match the regular expression "
              "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
}

}  // namespace

Expected<Quantity> Quantity::parse(std::string_view text) {
  if (text.empty()) return fail("quantity is empty: expected a number such as 500m, 2 or 1Gi");
  std::size_t i = 0;
  bool negative = false;
  if (text[0] == '+' || text[0] == '-') {
    negative = text[0] == '-';
    ++i;
  }
  // Mantissa: digits with at most one '.', at least one digit.
  std::string_view int_digits;
  std::string_view frac_digits;
  std::size_t start = i;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
  int_digits = text.substr(start, i - start);
  if (i < text.size() && text[i] == '.') {
    ++i;
    std::size_t fstart = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    frac_digits = text.substr(fstart, i - fstart);
  }
  if (int_digits.empty() && frac_digits.empty()) return syntax_error(text);
  Suffix suffix;
  if (!parse_suffix(text.substr(i), suffix)) return syntax_error(text);

  // value_milli = D * 10^(exp10 - frac_len + 3) * 1024^pow1024, rounded up (away from
  // zero) when the decimal scale is negative. D keeps at most 30 significant digits; the
  // dropped tail only matters as a "nonzero remainder" bit for the rounding.
  u128 d = 0;
  int sig = 0;
  int dropped = 0;
  bool sticky = false;
  auto take = [&](char c) {
    int digit = c - '0';
    if (sig == 0 && digit == 0) return;  // leading zero
    if (sig < 30) {
      d = d * 10 + static_cast<u128>(digit);
      ++sig;
    } else {
      ++dropped;
      sticky = sticky || digit != 0;
    }
  };
  for (char c : int_digits) take(c);
  for (char c : frac_digits) take(c);
  // Every digit after the point divides by ten; every dropped digit multiplies by ten.
  int scale = suffix.exp10 - static_cast<int>(frac_digits.size()) + dropped + 3;

  u128 v = d;
  if (v != 0) {
    for (int k = 0; k < suffix.pow1024 * 10; ++k) v = mul_clamp(v, 2);
    if (scale >= 0) {
      for (int k = 0; k < scale && v <= kLimit; ++k) v = mul_clamp(v, 10);
      if (sticky && v <= kLimit) v += 1;  // only reachable with > 30 digits: round up
    } else {
      bool remainder = sticky;
      for (int k = 0; k < -scale && v != 0; ++k) {
        remainder = remainder || (v % 10 != 0);
        v /= 10;
      }
      if (-scale > 0 && v == 0 && d != 0) remainder = true;
      if (remainder) v += 1;
    }
  }
  if (v > kLimit) {
    return fail("quantity \"" + std::string(text) +
                "\" is too large: kueuepp holds quantities as 64-bit milli-units (at most "
                "9223372036854775807m, about 8Pi)");
  }
  auto milli = static_cast<std::int64_t>(v);
  return Quantity(negative ? -milli : milli, suffix.format);
}

Quantity Quantity::from_units(std::int64_t units, Format f) {
  return Quantity(sat_mul(units, 1000), f);
}

std::int64_t Quantity::units_ceil() const {
  if (milli_ >= 0) return milli_ / 1000 + (milli_ % 1000 != 0 ? 1 : 0);
  return milli_ / 1000 - (milli_ % 1000 != 0 ? 1 : 0);
}

std::string Quantity::to_string() const { return format_milli(milli_, format_); }

std::string format_milli(std::int64_t milli, Quantity::Format f) {
  using F = Quantity::Format;
  if (milli == 0) return "0";
  bool negative = milli < 0;
  // INT64_MIN has no positive counterpart; work on the unsigned magnitude.
  std::uint64_t mag = negative ? static_cast<std::uint64_t>(-(milli + 1)) + 1
                               : static_cast<std::uint64_t>(milli);
  std::string sign = negative ? "-" : "";

  if (f == F::BinarySI && mag >= 1024000 && mag % 1000 == 0) {
    std::uint64_t units = mag / 1000;
    static constexpr std::array<std::string_view, 7> kSuffix = {"", "Ki", "Mi", "Gi",
                                                                "Ti", "Pi", "Ei"};
    std::size_t n = 0;
    while (n + 1 < kSuffix.size() && units % 1024 == 0) {
      units /= 1024;
      ++n;
    }
    return sign + std::to_string(units) + std::string(kSuffix[n]);
  }
  // Decimal: the largest exponent (a multiple of 3, from -3) with an integer mantissa.
  int exp = -3;
  std::uint64_t mantissa = mag;
  while (exp < 18 && mantissa % 1000 == 0) {
    mantissa /= 1000;
    exp += 3;
  }
  std::string suffix;
  if (f == F::DecimalExponent) {
    suffix = exp == 0 ? "" : "e" + std::to_string(exp);
  } else {
    switch (exp) {
      case -3: suffix = "m"; break;
      case 0: break;
      case 3: suffix = "k"; break;
      case 6: suffix = "M"; break;
      case 9: suffix = "G"; break;
      case 12: suffix = "T"; break;
      case 15: suffix = "P"; break;
      default: suffix = "E"; break;
    }
  }
  return sign + std::to_string(mantissa) + suffix;
}

}  // namespace kueuepp::core
