// The token reviews' cache: one TokenReview per token per time to live, "not
// authenticated" remembered as well as a user, errors not remembered, distinct tokens
// apart, and the cache bounded.

#include "kube/auth/caching_token_authenticator.hpp"

#include <gtest/gtest.h>

namespace kueuepp::kube::auth {
namespace {

/// Knows one token ("good" is alice), counting the reviews it is asked.
class CountingTokens : public TokenAuthenticator {
 public:
  bool broken = false;
  int calls = 0;
  void authenticate(const std::string& token, Callback done) override {
    ++calls;
    if (broken) {
      done(fail("the API server is down"));
      return;
    }
    if (token == "good") {
      done(std::optional<UserInfo>(UserInfo{"alice", "1", {"team-a"}, {}}));
    } else {
      done(std::optional<UserInfo>());
    }
  }
};

class CachingTokens : public ::testing::Test {
 protected:
  /// The user the cache says `token` is ("" when not authenticated, "error" on an error).
  std::string who(const std::string& token) {
    std::string out = "unanswered";
    cache_.authenticate(token, [&](Expected<std::optional<UserInfo>> user) {
      out = !user ? "error" : *user ? (*user)->name : "";
    });
    return out;
  }
  std::shared_ptr<CountingTokens> inner_ = std::make_shared<CountingTokens>();
  std::chrono::steady_clock::time_point now_ = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);
  CachingTokenAuthenticator cache_{inner_, std::chrono::seconds(10), [this] { return now_; }};
};

TEST_F(CachingTokens, OneReviewPerTokenPerTimeToLive) {
  EXPECT_EQ(who("good"), "alice");
  EXPECT_EQ(who("good"), "alice");
  EXPECT_EQ(inner_->calls, 1);
  EXPECT_EQ(who("bad"), "");
  EXPECT_EQ(who("bad"), "");
  EXPECT_EQ(inner_->calls, 2) << "a refusal is remembered too";
  now_ += std::chrono::seconds(11);
  EXPECT_EQ(who("good"), "alice");
  EXPECT_EQ(inner_->calls, 3) << "asked again once expired";
}

TEST_F(CachingTokens, ErrorsAreNotRemembered) {
  inner_->broken = true;
  EXPECT_EQ(who("good"), "error");
  inner_->broken = false;
  EXPECT_EQ(who("good"), "alice");
  EXPECT_EQ(inner_->calls, 2);
}

TEST_F(CachingTokens, TheCacheIsBounded) {
  for (std::size_t i = 0; i < CachingTokenAuthenticator::kMaxEntries + 10; ++i) who("token-" + std::to_string(i));
  EXPECT_LE(cache_.size(), CachingTokenAuthenticator::kMaxEntries);
  EXPECT_GT(cache_.size(), 0u);
}

}  // namespace
}  // namespace kueuepp::kube::auth
