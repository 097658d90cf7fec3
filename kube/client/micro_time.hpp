#pragma once

// Kubernetes timestamps: metav1.Time (RFC 3339, seconds: `2024-01-01T00:00:00Z`) and
// metav1.MicroTime (exactly 6 fractional digits: `2024-01-01T00:00:00.000000Z`, which
// Lease renewTime/acquireTime and events.k8s.io eventTime require). On system_clock
// time points; the text is read and written by core/model/time.hpp.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace kueuepp::kube::client {

using TimePoint = std::chrono::system_clock::time_point;

/// `2024-01-01T00:00:00Z` (truncated to seconds, UTC).
std::string format_time(TimePoint t);
/// `2024-01-01T00:00:00.000000Z` (truncated to microseconds, UTC).
std::string format_micro_time(TimePoint t);
/// RFC 3339: a date, `T`, a time with optional fraction, and `Z` or `±hh:mm`. Times
/// outside what TimePoint can hold (about 1678–2261) are rejected.
std::optional<TimePoint> parse_time(std::string_view text);

}  // namespace kueuepp::kube::client
