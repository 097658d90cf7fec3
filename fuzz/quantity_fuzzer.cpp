// Fuzzes Kubernetes quantity parsing (core::Quantity, read from every resource request,
// limit and quota of a user's objects). A quantity that parses must print in a form that
// parses back to the same value (and, printed again, to the same text), and the saturating
// arithmetic must not overflow.

#include <cstdint>
#include <string>
#include <string_view>

#include "core/quantity.hpp"

namespace {

namespace core = kueuepp::core;

void check(bool condition) {
  if (!condition) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto q = core::Quantity::parse(text);
  if (!q) return 0;
  const std::string printed = q->to_string();
  auto again = core::Quantity::parse(printed);
  check(again.has_value());
  check(*again == *q);
  // Not necessarily the same text: a binary quantity that is no whole multiple of 1024
  // prints without a suffix ("812.5Ki" as "832000", as Kubernetes prints it), which reads
  // back as a decimal one ("832k"). From there on the text is stable.
  const std::string reprinted = again->to_string();
  auto third = core::Quantity::parse(reprinted);
  check(third.has_value() && third->to_string() == reprinted);
  (void)q->units_ceil();
  for (auto format : {core::Quantity::Format::DecimalSI, core::Quantity::Format::BinarySI,
                      core::Quantity::Format::DecimalExponent}) {
    const std::string formatted = core::format_milli(q->milli(), format);
    auto reread = core::Quantity::parse(formatted);
    check(reread.has_value());
    check(reread->milli() == q->milli());
  }
  (void)core::sat_add(q->milli(), again->milli());
  (void)core::sat_sub(q->milli(), -again->milli() - 1);
  (void)core::sat_mul(q->milli(), 1000);
  return 0;
}
