#pragma once

// Time in core/ is a value handed in by the caller (the engine never reads a clock):
// microseconds since the Unix epoch, the precision of Kubernetes' MicroTime.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/expected.hpp"

namespace kueuepp::core {

using Time = std::chrono::sys_time<std::chrono::microseconds>;

inline Time time_from_seconds(std::int64_t s) { return Time(std::chrono::seconds(s)); }

/// Parses RFC 3339 (`2026-01-01T00:00:00Z`, fractional seconds and offsets allowed).
Expected<Time> parse_rfc3339(std::string_view text);

/// Formats as RFC 3339 in UTC with second precision (metav1.Time), e.g. 2026-01-01T00:00:00Z.
std::string format_rfc3339(Time t);

/// Formats with exactly six fractional digits (metav1.MicroTime).
std::string format_rfc3339_micro(Time t);

}  // namespace kueuepp::core
