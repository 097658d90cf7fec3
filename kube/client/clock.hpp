#pragma once

// Injectable time and randomness: the rate limiter, token refresh and backoff take
// these so tests can drive them deterministically.

#include <chrono>
#include <functional>

namespace kueuepp::kube::client {

using SteadyClock = std::function<std::chrono::steady_clock::time_point()>;

/// std::chrono::steady_clock::now.
SteadyClock real_steady_clock();

/// A source of uniformly distributed numbers in [0, 1).
using RandomUnit = std::function<double()>;

/// A thread-safe pseudo-random source seeded from std::random_device.
RandomUnit default_random_unit();

}  // namespace kueuepp::kube::client
