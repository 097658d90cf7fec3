#pragma once

// Timestamps as kube-apiserver writes and reads them: metav1.Time (RFC 3339, whole
// seconds, UTC) and metav1.MicroTime (exactly six fractional digits). The text itself is
// read and written by core/model/time.hpp; here are the clock and the server's checks.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace kueuepp::kube::server {

/// Now as metav1.Time: "2024-01-01T00:00:00Z".
std::string now_rfc3339();

/// Now as metav1.MicroTime: "2024-01-01T00:00:00.000000Z".
std::string now_micro_time();

/// True when `text` matches Go's "2006-01-02T15:04:05.000000Z07:00": exactly six
/// fractional digits (what metav1.MicroTime requires when decoding). Only the shape is
/// checked, not the ranges of the fields.
bool is_micro_time(std::string_view text);

/// Parses an RFC 3339 timestamp (nullopt when malformed), for printer columns. Only the
/// shape is checked: fields out of range carry over (month 13 is January of the next
/// year), and the fraction is truncated to microseconds.
std::optional<std::chrono::system_clock::time_point> parse_rfc3339(std::string_view text);

/// A duration as kubectl prints ages ("45s", "3m10s", "5h", "12d").
std::string human_duration(std::chrono::seconds d);

}  // namespace kueuepp::kube::server
