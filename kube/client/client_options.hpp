#pragma once

// Tuning of a Client: rate limits, timeouts, retries, the connection pool and threads.
// Defaults follow Kueue's (QPS 50, burst 100) and client-go's behaviour.

#include <chrono>
#include <cstdint>
#include <string>

#include "kube/client/backoff.hpp"
#include "kube/client/clock.hpp"
#include "kube/client/retry_policy.hpp"

namespace kueuepp::kube::client {

struct ClientOptions {
  /// Client-side token bucket; a negative qps disables it.
  double qps = 50;
  int burst = 100;
  /// A write marked WriteOptions::may_wait_for_step that the bucket delays goes out at
  /// a multiple of this (never before its token): those delayed to within one step
  /// share one timer wake-up of the io thread instead of one each. 0: each at its own
  /// instant.
  std::chrono::milliseconds throttle_granularity{0};

  std::chrono::milliseconds connect_timeout{10'000};   ///< resolve + connect + TLS handshake
  std::chrono::milliseconds request_timeout{30'000};   ///< one request, send to last byte
  /// A stream (watch) that receives nothing for this long is considered dead.
  std::chrono::milliseconds stream_idle_timeout{600'000};

  RetryOptions retry;
  BackoffPolicy retry_backoff{std::chrono::milliseconds(250), std::chrono::milliseconds(10'000),
                              2.0, 0.5};

  /// Keep-alive pool: idle connections kept for reuse, and for how long.
  std::size_t max_idle_connections = 4;
  std::chrono::milliseconds idle_connection_ttl{60'000};

  /// Threads running the client's io_context (callbacks run on them).
  int io_threads = 1;
  /// 0: an io thread handles each socket event, answer and posted request as it comes.
  /// Above 0: once an io thread has handled what was ready, it looks again this long
  /// after it started looking (blocking only when nothing was ready, at once when the
  /// look took longer), so that what arrives in the meantime is handled in one wake-up:
  /// a busy client wakes at most once per interval
  /// instead of once per event, at the price of up to one interval of latency on every
  /// read and write. For controllers that handle a stream of small events, where
  /// wake-ups and context switches cost more than the work. Keep it well under the
  /// timeouts above; callbacks still run only on the io threads.
  std::chrono::microseconds io_batch_interval{0};

  std::string user_agent = "kueuepp/0.1";
  /// fieldManager of every write unless the call names another.
  std::string field_manager = "kueuepp";
  /// Re-read period of a token file (service-account tokens rotate).
  std::chrono::seconds token_refresh_period{60};
  /// Leave metadata.managedFields out of every object decoded from an answer or a
  /// watch (see DecodeOptions): for controllers that cache objects and never read them.
  /// Updates sent without managedFields leave the server's unchanged.
  bool strip_managed_fields = false;
  /// Largest response body accepted (lists of many objects are large).
  std::uint64_t max_response_bytes = std::uint64_t{1} << 30;

  /// Time source of the rate limiter and token refresh; jitter source of backoffs.
  SteadyClock clock = real_steady_clock();
  RandomUnit random = default_random_unit();
};

}  // namespace kueuepp::kube::client
