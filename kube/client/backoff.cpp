#include "kube/client/backoff.hpp"

#include <algorithm>
#include <cmath>

namespace kueuepp::kube::client {

Backoff::Backoff(BackoffPolicy policy, RandomUnit random)
    : policy_(policy), random_(std::move(random)) {}

std::chrono::milliseconds Backoff::next() {
  const double initial = static_cast<double>(policy_.initial.count());
  const double cap = static_cast<double>(policy_.cap.count());
  // Exponent capped so the power cannot overflow after many attempts.
  const double base =
      std::min(cap, initial * std::pow(std::max(policy_.factor, 1.0), std::min(attempts_, 64)));
  ++attempts_;
  const double u = std::clamp(random_ ? random_() : 0.0, 0.0, 1.0);
  const double jittered = base * (1.0 + std::max(policy_.jitter, 0.0) * u);
  return std::chrono::milliseconds(static_cast<std::int64_t>(jittered));
}

}  // namespace kueuepp::kube::client
