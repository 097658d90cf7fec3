#include "kube/client/retry_policy.hpp"

#include <gtest/gtest.h>

namespace kueuepp::kube::client {
namespace {

using namespace std::chrono_literals;

ApiError status(int code, std::optional<std::chrono::seconds> retry_after = std::nullopt) {
  ApiError e;
  e.kind = ApiError::Kind::Status;
  e.http_status = code;
  e.reason = std::string(reason_for_status(code));
  e.retry_after = retry_after;
  return e;
}

ApiError transport(bool not_sent) {
  ApiError e = make_error(ApiError::Kind::Transport, "op", "reset");
  e.not_sent = not_sent;
  return e;
}

struct Case {
  const char* name;
  ApiError error;
  bool idempotent;
  bool expect_retry;
};

TEST(RetryPolicy, DecidesPerErrorAndIdempotency) {
  const Case cases[] = {
      {"429 GET", status(429), true, true},
      {"429 POST (never processed)", status(429), false, true},
      {"503 GET", status(503), true, true},
      {"500 POST without Retry-After", status(500), false, false},
      {"503 POST with Retry-After", status(503, 1s), false, true},
      {"504 PUT", status(504), true, true},
      {"404 GET", status(404), true, false},
      {"409 PUT", status(409), true, false},
      {"410 GET", status(410), true, false},
      {"422 POST", status(422), false, false},
      {"reset GET", transport(false), true, true},
      {"reset POST (maybe sent)", transport(false), false, false},
      {"connect failed POST (not sent)", transport(true), false, true},
      {"timeout GET", make_error(ApiError::Kind::Timeout, "op", ""), true, true},
      {"timeout POST", make_error(ApiError::Kind::Timeout, "op", ""), false, false},
      {"cancelled GET", make_error(ApiError::Kind::Cancelled, "op", ""), true, false},
      {"decode GET", make_error(ApiError::Kind::Decode, "op", ""), true, false},
  };
  for (const Case& c : cases) {
    Backoff backoff({10ms, 100ms, 2.0, 0.0}, [] { return 0.0; });
    const RetryDecision d = decide_retry(c.error, c.idempotent, 0, backoff, RetryOptions{});
    EXPECT_EQ(d.retry, c.expect_retry) << c.name;
  }
}

TEST(RetryPolicy, StopsAfterMaxRetries) {
  Backoff backoff({10ms, 100ms, 2.0, 0.0}, [] { return 0.0; });
  RetryOptions options;
  options.max_retries = 2;
  EXPECT_TRUE(decide_retry(status(503), true, 0, backoff, options).retry);
  EXPECT_TRUE(decide_retry(status(503), true, 1, backoff, options).retry);
  EXPECT_FALSE(decide_retry(status(503), true, 2, backoff, options).retry);
  options.max_retries = 0;
  EXPECT_FALSE(decide_retry(status(429), true, 0, backoff, options).retry);
}

TEST(RetryPolicy, HonoursRetryAfterAsAMinimumAndCapsIt) {
  Backoff backoff({10ms, 100ms, 2.0, 0.0}, [] { return 0.0; });
  RetryOptions options;
  options.max_retry_after = 5s;
  EXPECT_EQ(decide_retry(status(429, 2s), true, 0, backoff, options).delay, 2000ms);
  EXPECT_EQ(decide_retry(status(429, 3600s), true, 0, backoff, options).delay, 5000ms);
  // Without Retry-After: the jittered backoff, growing.
  Backoff fresh({10ms, 100ms, 2.0, 0.0}, [] { return 0.0; });
  EXPECT_EQ(decide_retry(status(503), true, 0, fresh, options).delay, 10ms);
  EXPECT_EQ(decide_retry(status(503), true, 1, fresh, options).delay, 20ms);
  // Retry-After 0 keeps the backoff.
  EXPECT_EQ(decide_retry(status(429, 0s), true, 2, fresh, options).delay, 40ms);
}

TEST(RetryPolicy, IdempotentMethods) {
  for (const char* m : {"GET", "HEAD", "OPTIONS", "PUT", "DELETE"}) EXPECT_TRUE(is_idempotent_method(m)) << m;
  for (const char* m : {"POST", "PATCH", "get"}) EXPECT_FALSE(is_idempotent_method(m)) << m;
}

}  // namespace
}  // namespace kueuepp::kube::client
