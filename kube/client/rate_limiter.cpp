#include "kube/client/rate_limiter.hpp"

#include <algorithm>
#include <cmath>

namespace kueuepp::kube::client {

RateLimiter::RateLimiter(double qps, int burst, SteadyClock clock)
    : qps_(qps), burst_(std::max(burst, 1)), clock_(std::move(clock)),
      tokens_(static_cast<double>(burst_)), last_(clock_()) {}

std::chrono::nanoseconds RateLimiter::reserve() {
  if (!(qps_ > 0)) return std::chrono::nanoseconds(0);
  std::lock_guard lock(mutex_);
  const auto now = clock_();
  if (now > last_) {
    const double elapsed = std::chrono::duration<double>(now - last_).count();
    tokens_ = std::min(static_cast<double>(burst_), tokens_ + elapsed * qps_);
    last_ = now;
  }
  tokens_ -= 1.0;
  if (tokens_ >= 0) return std::chrono::nanoseconds(0);
  const double wait_seconds = -tokens_ / qps_;
  return std::chrono::nanoseconds(std::llround(wait_seconds * 1e9));
}

std::chrono::steady_clock::time_point round_up_to_step(std::chrono::steady_clock::time_point at,
                                                       std::chrono::nanoseconds step) {
  if (step.count() <= 0) return at;
  const std::chrono::nanoseconds since = at.time_since_epoch();
  const auto steps = (since.count() + step.count() - 1) / step.count();
  return std::chrono::steady_clock::time_point(std::chrono::nanoseconds(steps * step.count()));
}

}  // namespace kueuepp::kube::client
