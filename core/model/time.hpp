#pragma once

// Time in core/ is a value handed in by the caller (the engine never reads a clock):
// microseconds since the Unix epoch, the precision of Kubernetes' MicroTime.
//
// This is the one reader and writer of RFC 3339 text in kueuepp: metav1.Time
// (`2026-01-01T00:00:00Z`) and metav1.MicroTime (`2026-01-01T00:00:00.000000Z`). The
// client (kube/client/micro_time.hpp) and the API server (kube/apiserver/server/util/
// time.hpp) are thin callers that only choose how strict to be. (The schema's OpenAPI
// `date-time` format, kube/apiserver/schema/formats.cpp, is go-openapi's own grammar and
// stays separate.)

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/expected.hpp"

namespace kueuepp::core {

using Time = std::chrono::sys_time<std::chrono::microseconds>;

inline Time time_from_seconds(std::int64_t s) { return Time(std::chrono::seconds(s)); }

/// An RFC 3339 timestamp as written, before any of its fields is checked for range.
struct Rfc3339Fields {
  int year = 0;
  int month = 0;
  int day = 0;
  int hour = 0;
  int minute = 0;
  int second = 0;
  std::int64_t nanos = 0;   ///< the fraction, truncated to nanoseconds
  int fraction_digits = 0;  ///< digits after the '.', 0 without a fraction
  int offset_minutes = 0;   ///< east of UTC (0 for Z)
  char separator = 'T';     ///< between date and time: 'T', 't' or ' '

  /// A real calendar date, hour <= 23, minute <= 59 and second <= 60 (a leap second
  /// rolls over into the next minute). The zone offset is not checked.
  bool in_range() const;

  /// The instant in UTC, whole seconds. Fields out of range carry over as timegm(3)
  /// carries them (month 13 is January of the next year, day 0 the last of the month
  /// before).
  std::chrono::sys_seconds utc_seconds() const;
};

/// Reads `YYYY-MM-DD` `T|t|' '` `hh:mm:ss` `(.d+)?` `Z|z|±hh:mm`, the whole text and
/// ASCII digits only; nullopt when it is not that shape. Nothing is checked for range.
std::optional<Rfc3339Fields> scan_rfc3339(std::string_view text);

/// Parses RFC 3339 (`2026-01-01T00:00:00Z`, fractional seconds and offsets allowed; a
/// space may stand for the `T`); fields must be in range (Rfc3339Fields::in_range), the
/// fraction is truncated to microseconds.
Expected<Time> parse_rfc3339(std::string_view text);

/// Formats as RFC 3339 in UTC with second precision (metav1.Time), e.g. 2026-01-01T00:00:00Z.
std::string format_rfc3339(Time t);

/// Formats with exactly six fractional digits (metav1.MicroTime).
std::string format_rfc3339_micro(Time t);

}  // namespace kueuepp::core
