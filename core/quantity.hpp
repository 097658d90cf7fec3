#pragma once

// Kubernetes resource quantities ("500m", "2", "1.5", "1Gi", "1e3", "100Mi", "1k") held as
// an exact signed count of milli-units in 64 bits. Kubernetes rounds anything finer than
// a milli-unit up; so do we. Values beyond what 64-bit milli-units hold (about 9.2e15
// units, 8 PiB of bytes) are rejected with an error rather than wrapped.

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/expected.hpp"

namespace kueuepp::core {

class Quantity {
 public:
  /// How the quantity prints: Kubernetes keeps the family of suffixes it was written in.
  enum class Format : std::uint8_t { DecimalSI, BinarySI, DecimalExponent };

  constexpr Quantity() = default;

  /// Parses every form kube-apiserver accepts. Errors name the text and the problem.
  static Expected<Quantity> parse(std::string_view text);

  static constexpr Quantity from_milli(std::int64_t milli, Format f = Format::DecimalSI) {
    return Quantity(milli, f);
  }
  /// Whole units (e.g. a pod count); saturates only at the 64-bit milli range, which no
  /// count reaches in practice.
  static Quantity from_units(std::int64_t units, Format f = Format::DecimalSI);

  constexpr std::int64_t milli() const { return milli_; }
  /// Whole units, rounded up as Kubernetes' Quantity.Value() does.
  std::int64_t units_ceil() const;
  constexpr Format format() const { return format_; }
  constexpr bool is_zero() const { return milli_ == 0; }

  /// Canonical text, as kube-apiserver prints a quantity ("1500m", "1Gi", "2", "1k").
  std::string to_string() const;

  friend constexpr bool operator==(Quantity a, Quantity b) { return a.milli_ == b.milli_; }
  friend constexpr std::strong_ordering operator<=>(Quantity a, Quantity b) {
    return a.milli_ <=> b.milli_;
  }

 private:
  constexpr Quantity(std::int64_t m, Format f) : milli_(m), format_(f) {}
  std::int64_t milli_ = 0;
  Format format_ = Format::DecimalSI;
};

// -- Checked milli arithmetic -----------------------------------------------------
// Quota sums saturate rather than wrap: a saturated value is larger than any real
// request, so comparisons stay conservative (nothing is admitted because of a wrap).

constexpr std::int64_t kMilliMax = INT64_MAX;
constexpr std::int64_t kMilliMin = INT64_MIN;

constexpr std::int64_t sat_add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? kMilliMax : kMilliMin;
  return r;
}
constexpr std::int64_t sat_sub(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) return b < 0 ? kMilliMax : kMilliMin;
  return r;
}
constexpr std::int64_t sat_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return ((a < 0) != (b < 0)) ? kMilliMin : kMilliMax;
  return r;
}

/// Formats a milli value with the given format (used for quota, usage and messages).
std::string format_milli(std::int64_t milli, Quantity::Format f = Quantity::Format::DecimalSI);

}  // namespace kueuepp::core
