#pragma once

// Kubernetes `Status` documents as kube-apiserver writes them, for the answers and
// watch events the fault proxy invents: clients decode them exactly as real ones.

#include <optional>
#include <string>
#include <string_view>

namespace kueuepp::faults {

/// The metav1.StatusReason kube-apiserver uses for an HTTP status code (409 Conflict,
/// 429 TooManyRequests, 500 InternalError, 503 ServiceUnavailable, 504 Timeout, ...).
std::string_view status_reason_for(int code);

/// `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":...,
/// "reason":...,"details":{"retryAfterSeconds":N},"code":N}` (details only with a
/// Retry-After). An empty reason takes status_reason_for(code).
std::string status_json(int code, std::string_view reason, std::string_view message,
                        std::optional<int> retry_after_seconds = std::nullopt);

/// One watch line (with its newline): an ERROR event carrying a 410 Expired Status, as
/// kube-apiserver sends when a watch's resourceVersion is too old.
std::string gone_watch_event_line();

}  // namespace kueuepp::faults
