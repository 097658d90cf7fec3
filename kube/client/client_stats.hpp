#pragma once

// Counters a Client keeps for metrics: requests per verb, retries, time spent waiting
// in the client-side rate limiter, connection reuse.

#include <array>
#include <chrono>
#include <cstdint>
#include <string_view>

namespace kueuepp::kube::client {

enum class Verb { Get, List, Watch, Create, Update, Patch, Delete, Raw };
inline constexpr std::size_t kVerbCount = 8;

std::string_view to_string(Verb verb);

struct ClientStats {
  /// Requests sent per verb (every attempt, retries included), indexed by Verb.
  std::array<std::uint64_t, kVerbCount> requests{};
  std::uint64_t retries = 0;
  /// Requests that had to wait for the rate limiter, and the total wait.
  std::uint64_t throttled_requests = 0;
  std::chrono::nanoseconds throttled_time{0};
  std::uint64_t connections_opened = 0;
  std::uint64_t connections_reused = 0;

  std::uint64_t requests_of(Verb verb) const { return requests[static_cast<std::size_t>(verb)]; }
};

}  // namespace kueuepp::kube::client
