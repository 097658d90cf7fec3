#include "kube/client/backoff.hpp"

#include <gtest/gtest.h>

namespace kueuepp::kube::client {
namespace {

using namespace std::chrono_literals;

RandomUnit constant(double v) {
  return [v] { return v; };
}

TEST(Backoff, GrowsExponentiallyUpToTheCap) {
  Backoff backoff({100ms, 1000ms, 2.0, 0.5}, constant(0.0));
  EXPECT_EQ(backoff.next(), 100ms);
  EXPECT_EQ(backoff.next(), 200ms);
  EXPECT_EQ(backoff.next(), 400ms);
  EXPECT_EQ(backoff.next(), 800ms);
  EXPECT_EQ(backoff.next(), 1000ms);
  EXPECT_EQ(backoff.next(), 1000ms);
  EXPECT_EQ(backoff.attempts(), 6);
}

TEST(Backoff, JitterAddsUpToTheJitterFraction) {
  Backoff high({100ms, 1000ms, 2.0, 0.5}, constant(0.999999));
  EXPECT_EQ(high.next(), 149ms);
  Backoff full({100ms, 1000ms, 2.0, 1.0}, constant(0.5));
  EXPECT_EQ(full.next(), 150ms);
  EXPECT_EQ(full.next(), 300ms);
}

TEST(Backoff, JitterStaysWithinBoundsWithTheRealRandomSource) {
  Backoff backoff({100ms, 400ms, 2.0, 0.5});
  for (int i = 0; i < 50; ++i) {
    const auto d = backoff.next();
    EXPECT_GE(d, 100ms);
    EXPECT_LE(d, 600ms);
  }
}

TEST(Backoff, ResetStartsOver) {
  Backoff backoff({10ms, 1000ms, 3.0, 0.0}, constant(0.0));
  backoff.next();
  backoff.next();
  backoff.reset();
  EXPECT_EQ(backoff.attempts(), 0);
  EXPECT_EQ(backoff.next(), 10ms);
}

TEST(Backoff, ManyAttemptsDoNotOverflow) {
  Backoff backoff({1ms, 30000ms, 10.0, 0.0}, constant(0.0));
  for (int i = 0; i < 1000; ++i) backoff.next();
  EXPECT_EQ(backoff.next(), 30000ms);
}

TEST(Backoff, OutOfRangeRandomValuesAreClamped) {
  Backoff backoff({100ms, 1000ms, 2.0, 1.0}, constant(7.0));
  EXPECT_EQ(backoff.next(), 200ms);
}

}  // namespace
}  // namespace kueuepp::kube::client
