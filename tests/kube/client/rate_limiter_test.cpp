#include "kube/client/rate_limiter.hpp"

#include <gtest/gtest.h>

namespace kueuepp::kube::client {
namespace {

using namespace std::chrono_literals;

struct FakeClock {
  std::chrono::steady_clock::time_point now{};
  SteadyClock fn() {
    return [this] { return now; };
  }
};

TEST(RateLimiter, AllowsABurstThenSpacesRequestsByOneOverQps) {
  FakeClock clock;
  RateLimiter limiter(10, 3, clock.fn());
  EXPECT_EQ(limiter.reserve(), 0ns);
  EXPECT_EQ(limiter.reserve(), 0ns);
  EXPECT_EQ(limiter.reserve(), 0ns);
  EXPECT_EQ(limiter.reserve(), 100ms);  // 4th: one token at 10 QPS
  EXPECT_EQ(limiter.reserve(), 200ms);  // reservations queue up
}

TEST(RateLimiter, RefillsOverTimeUpToTheBurst) {
  FakeClock clock;
  RateLimiter limiter(10, 2, clock.fn());
  limiter.reserve();
  limiter.reserve();
  EXPECT_EQ(limiter.reserve(), 100ms);
  clock.now += 10s;  // far more than needed: refills to the burst, no more
  EXPECT_EQ(limiter.reserve(), 0ns);
  EXPECT_EQ(limiter.reserve(), 0ns);
  EXPECT_EQ(limiter.reserve(), 100ms);
}

TEST(RateLimiter, PartialRefillShortensTheWait) {
  FakeClock clock;
  RateLimiter limiter(4, 1, clock.fn());
  EXPECT_EQ(limiter.reserve(), 0ns);
  clock.now += 125ms;  // half a token
  EXPECT_EQ(limiter.reserve(), 125ms);
}

TEST(RateLimiter, NegativeQpsDisablesLimiting) {
  FakeClock clock;
  RateLimiter limiter(-1, 1, clock.fn());
  EXPECT_FALSE(limiter.enabled());
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(limiter.reserve(), 0ns);
}

TEST(RateLimiter, ZeroBurstActsAsOne) {
  FakeClock clock;
  RateLimiter limiter(1, 0, clock.fn());
  EXPECT_EQ(limiter.burst(), 1);
  EXPECT_EQ(limiter.reserve(), 0ns);
  EXPECT_EQ(limiter.reserve(), 1s);
}

}  // namespace
}  // namespace kueuepp::kube::client
