#include "kube/client/retry_policy.hpp"

#include <algorithm>

namespace kueuepp::kube::client {

bool is_idempotent_method(std::string_view method) {
  return method == "GET" || method == "HEAD" || method == "OPTIONS" || method == "PUT" ||
         method == "DELETE";
}

namespace {

bool retryable(const ApiError& error, bool idempotent) {
  switch (error.kind) {
    case ApiError::Kind::Transport:
      return idempotent || error.not_sent;
    case ApiError::Kind::Timeout:
      return idempotent;
    case ApiError::Kind::Status:
      if (error.http_status == 429) return true;
      if (error.http_status >= 500 && error.http_status <= 599) {
        return idempotent || error.retry_after.has_value();
      }
      return false;
    default:
      return false;
  }
}

}  // namespace

RetryDecision decide_retry(const ApiError& error, bool idempotent, int retries_done,
                           Backoff& backoff, const RetryOptions& options) {
  if (retries_done >= options.max_retries || !retryable(error, idempotent)) return {};
  std::chrono::milliseconds delay = backoff.next();
  if (error.retry_after) {
    const auto wanted = std::min<std::chrono::milliseconds>(*error.retry_after, options.max_retry_after);
    delay = std::max(delay, wanted);
  }
  return {true, delay};
}

}  // namespace kueuepp::kube::client
