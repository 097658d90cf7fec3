// The review caches' shared memory: an answer is good until its expiry and gone at it,
// an expired entry leaves when asked for, the cache starts over at its bound, and errors
// are never remembered.

#include "kube/auth/expiring_cache.hpp"

#include <gtest/gtest.h>

namespace kueuepp::kube::auth {
namespace {

class ExpiringCacheTest : public ::testing::Test {
 protected:
  std::chrono::steady_clock::time_point now_ = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);
  ExpiringCache<int> cache_{std::chrono::seconds(10), [this] { return now_; }, 3};
};

TEST_F(ExpiringCacheTest, AnAnswerIsGoodUntilItsExpiryAndGoneAtIt) {
  cache_.remember("a", 1);
  EXPECT_EQ(cache_.find("a"), 1);
  now_ += std::chrono::seconds(10) - std::chrono::nanoseconds(1);
  EXPECT_EQ(cache_.find("a"), 1) << "just before its time to live runs out";
  now_ += std::chrono::nanoseconds(1);
  EXPECT_EQ(cache_.find("a"), std::nullopt) << "at the expiry itself";
  EXPECT_EQ(cache_.size(), 0u) << "the expired entry leaves when asked for";
}

TEST_F(ExpiringCacheTest, RememberingAgainRestartsTheTimeToLive) {
  cache_.remember("a", 1);
  now_ += std::chrono::seconds(6);
  cache_.remember("a", 2);
  now_ += std::chrono::seconds(6);
  EXPECT_EQ(cache_.find("a"), 2);
}

TEST_F(ExpiringCacheTest, KeysAreApart) {
  cache_.remember("a", 1);
  cache_.remember("b", 2);
  EXPECT_EQ(cache_.find("a"), 1);
  EXPECT_EQ(cache_.find("b"), 2);
  EXPECT_EQ(cache_.find("c"), std::nullopt);
}

TEST_F(ExpiringCacheTest, ErrorsAreNotRemembered) {
  cache_.remember("a", fail("the API server is down"));
  EXPECT_EQ(cache_.find("a"), std::nullopt);
  EXPECT_EQ(cache_.size(), 0u);
  cache_.remember("a", 1);
  cache_.remember("a", fail("the API server is down"));
  EXPECT_EQ(cache_.find("a"), 1) << "an error leaves the earlier answer alone";
}

TEST_F(ExpiringCacheTest, TheCacheStartsOverAtItsBound) {
  cache_.remember("a", 1);
  cache_.remember("b", 2);
  cache_.remember("c", 3);
  EXPECT_EQ(cache_.size(), 3u);
  cache_.remember("d", 4);
  EXPECT_EQ(cache_.size(), 1u);
  EXPECT_EQ(cache_.find("a"), std::nullopt);
  EXPECT_EQ(cache_.find("d"), 4);
}

TEST(ExpiringCache, ReadsTheSteadyClockWhenGivenNone) {
  ExpiringCache<int> cache(std::chrono::hours(1));
  cache.remember("a", 1);
  EXPECT_EQ(cache.find("a"), 1);
  ExpiringCache<int> expired(std::chrono::milliseconds(0));
  expired.remember("a", 1);
  EXPECT_EQ(expired.find("a"), std::nullopt);
}

}  // namespace
}  // namespace kueuepp::kube::auth
