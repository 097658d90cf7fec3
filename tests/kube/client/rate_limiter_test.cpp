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

TEST(RateLimiter, ASpareTokenIsTakenOnlyWhenNoReservationHoldsIt) {
  FakeClock clock;
  RateLimiter limiter(10, 2, clock.fn());
  EXPECT_EQ(limiter.take_spare(), 0ns);  // the burst is spare
  EXPECT_EQ(limiter.reserve(), 0ns);
  // Empty: the next token is 100 ms away, and nothing is taken by asking.
  EXPECT_EQ(limiter.take_spare(), 100ms);
  EXPECT_EQ(limiter.take_spare(), 100ms);
  // A reservation made now gets that token: the spare one is pushed back behind it.
  EXPECT_EQ(limiter.reserve(), 100ms);
  EXPECT_EQ(limiter.take_spare(), 200ms);
  clock.now += 200ms;
  EXPECT_EQ(limiter.take_spare(), 0ns);
  EXPECT_EQ(limiter.reserve(), 100ms);  // the spare one took its turn, not a reservation's
}

TEST(RateLimiter, ASpareTokenWaitsForTheWholeToken) {
  FakeClock clock;
  RateLimiter limiter(4, 1, clock.fn());
  EXPECT_EQ(limiter.reserve(), 0ns);
  clock.now += 125ms;  // half a token: not yet spare
  EXPECT_EQ(limiter.take_spare(), 125ms);
  clock.now += 125ms;
  EXPECT_EQ(limiter.take_spare(), 0ns);
  EXPECT_EQ(limiter.take_spare(), 250ms);
}

TEST(RateLimiter, SpareTokensAreUnlimitedWithoutLimiting) {
  FakeClock clock;
  RateLimiter limiter(-1, 1, clock.fn());
  for (int i = 0; i < 100; ++i) EXPECT_EQ(limiter.take_spare(), 0ns);
}

TEST(RoundUpToStep, LandsOnTheFirstStepNotBeforeTheToken) {
  using TP = std::chrono::steady_clock::time_point;
  EXPECT_EQ(round_up_to_step(TP(1001ms), 10ms), TP(1010ms));
  EXPECT_EQ(round_up_to_step(TP(1009999us), 10ms), TP(1010ms));
  EXPECT_EQ(round_up_to_step(TP(1010ms), 10ms), TP(1010ms));  // already on a step
  EXPECT_EQ(round_up_to_step(TP(1010ms + 1ns), 10ms), TP(1020ms));
}

TEST(RoundUpToStep, DelaysOfOneStepShareADeadlineAndNoStepMeansExact) {
  using TP = std::chrono::steady_clock::time_point;
  // Three writes throttled 3.3 ms apart at QPS 300 go out together.
  const TP now(5000ms);
  const TP a = round_up_to_step(now + 3300us, 10ms);
  EXPECT_EQ(round_up_to_step(now + 6600us, 10ms), a);
  EXPECT_EQ(round_up_to_step(now + 9900us, 10ms), a);
  EXPECT_EQ(round_up_to_step(now + 13200us, 10ms), a + 10ms);
  EXPECT_EQ(round_up_to_step(now + 3300us, 0ms), now + 3300us);
}

}  // namespace
}  // namespace kueuepp::kube::client
