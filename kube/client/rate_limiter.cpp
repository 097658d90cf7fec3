#include "kube/client/rate_limiter.hpp"

#include <algorithm>
#include <cmath>

namespace kueuepp::kube::client {

RateLimiter::RateLimiter(double qps, int burst, SteadyClock clock)
    : qps_(qps), burst_(std::max(burst, 1)), clock_(std::move(clock)),
      tokens_(static_cast<double>(burst_)), last_(clock_()) {}

void RateLimiter::refill() {
  const auto now = clock_();
  if (now <= last_) return;
  const double elapsed = std::chrono::duration<double>(now - last_).count();
  tokens_ = std::min(static_cast<double>(burst_), tokens_ + elapsed * qps_);
  last_ = now;
}

std::chrono::nanoseconds RateLimiter::until_tokens_reach(double level) const {
  if (tokens_ >= level) return std::chrono::nanoseconds(0);
  return std::chrono::nanoseconds(std::llround((level - tokens_) / qps_ * 1e9));
}

std::chrono::nanoseconds RateLimiter::reserve() {
  if (!(qps_ > 0)) return std::chrono::nanoseconds(0);
  std::lock_guard lock(mutex_);
  refill();
  tokens_ -= 1.0;
  return until_tokens_reach(0.0);
}

std::chrono::nanoseconds RateLimiter::take_spare() {
  if (!(qps_ > 0)) return std::chrono::nanoseconds(0);
  std::lock_guard lock(mutex_);
  refill();
  if (tokens_ >= 1.0) {
    tokens_ -= 1.0;
    return std::chrono::nanoseconds(0);
  }
  // A wait of zero would mean "taken": at least a nanosecond when a fraction is missing.
  return std::max(until_tokens_reach(1.0), std::chrono::nanoseconds(1));
}

std::chrono::steady_clock::time_point round_up_to_step(std::chrono::steady_clock::time_point at,
                                                       std::chrono::nanoseconds step) {
  if (step.count() <= 0) return at;
  const std::chrono::nanoseconds since = at.time_since_epoch();
  const auto steps = (since.count() + step.count() - 1) / step.count();
  return std::chrono::steady_clock::time_point(std::chrono::nanoseconds(steps * step.count()));
}

}  // namespace kueuepp::kube::client
