#pragma once

// When a failed request is retried, and after how long. Pure: the client feeds it the
// error and its attempt count.
//   - 429: always (the server did not process it), waiting at least Retry-After;
//   - 5xx: idempotent requests, or any request when the server sent Retry-After;
//   - transport failures: idempotent requests, or any request that surely did not reach
//     the server (resolve/connect/TLS failed);
//   - timeouts: idempotent requests only (a POST may have been applied);
//   - everything else (4xx, cancellation): never.

#include <chrono>
#include <string>
#include <string_view>

#include "kube/client/api_error.hpp"
#include "kube/client/backoff.hpp"

namespace kueuepp::kube::client {

struct RetryOptions {
  int max_retries = 5;  ///< 0 disables retries
  std::chrono::seconds max_retry_after{60};
};

struct RetryDecision {
  bool retry = false;
  std::chrono::milliseconds delay{0};
};

/// GET, HEAD, OPTIONS, PUT and DELETE.
bool is_idempotent_method(std::string_view method);

/// `retries_done` is how many retries already happened for this request; `backoff`
/// supplies the jittered delay (and advances).
RetryDecision decide_retry(const ApiError& error, bool idempotent, int retries_done,
                           Backoff& backoff, const RetryOptions& options);

}  // namespace kueuepp::kube::client
