#pragma once

// Client-side token bucket (client-go's flowcontrol): `qps` tokens per second, up to
// `burst` saved. Non-blocking: reserve() takes a token now or reserves a future one and
// says how long to wait, so callers can wait with a timer instead of a sleep.
// A negative qps disables limiting. Thread-safe.

#include <chrono>
#include <mutex>

#include "kube/client/clock.hpp"

namespace kueuepp::kube::client {

class RateLimiter {
 public:
  RateLimiter(double qps, int burst, SteadyClock clock = real_steady_clock());

  /// Reserves one token; returns how long the caller must wait before sending (zero
  /// when a token is available now).
  std::chrono::nanoseconds reserve();

  /// Takes a token only if one is free now that no reservation holds; otherwise takes
  /// nothing and returns how long until one would be free if nobody reserved meanwhile
  /// (the caller asks again then). A request that asks this way never delays one that
  /// reserves: it goes in the budget the others leave.
  std::chrono::nanoseconds take_spare();

  bool enabled() const { return qps_ > 0; }
  double qps() const { return qps_; }
  int burst() const { return burst_; }

 private:
  double qps_;
  int burst_;
  SteadyClock clock_;
  std::mutex mutex_;
  double tokens_;  // may go negative: reserved future tokens
  std::chrono::steady_clock::time_point last_;

  void refill();  // mutex_ held
  std::chrono::nanoseconds until_tokens_reach(double level) const;  // mutex_ held
};

/// The first multiple of `step` (counted from the clock's epoch) not before `at`; `at`
/// itself when `step` is zero. Requests the bucket delays to within one step then go out
/// together, on one timer wake-up, and none earlier than its token.
std::chrono::steady_clock::time_point round_up_to_step(std::chrono::steady_clock::time_point at,
                                                       std::chrono::nanoseconds step);

}  // namespace kueuepp::kube::client
