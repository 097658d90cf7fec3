#pragma once

// Jittered exponential backoff: delay_n = min(cap, initial * factor^n) * (1 + jitter*u)
// with u uniform in [0,1), never above `cap` * (1 + jitter). Used for request retries
// and watch reconnects.

#include <chrono>

#include "kube/client/clock.hpp"

namespace kueuepp::kube::client {

struct BackoffPolicy {
  std::chrono::milliseconds initial{500};
  std::chrono::milliseconds cap{30000};
  double factor = 2.0;
  double jitter = 0.5;
};

class Backoff {
 public:
  explicit Backoff(BackoffPolicy policy = {}, RandomUnit random = default_random_unit());

  /// The next delay; each call grows the base delay by `factor` up to `cap`.
  std::chrono::milliseconds next();
  /// Back to `initial` (after a success).
  void reset() { attempts_ = 0; }
  int attempts() const { return attempts_; }
  const BackoffPolicy& policy() const { return policy_; }

 private:
  BackoffPolicy policy_;
  RandomUnit random_;
  int attempts_ = 0;
};

}  // namespace kueuepp::kube::client
