#pragma once

// A TokenAuthenticator that remembers each token's answer for a while, as the delegating
// authenticator of k8s.io/apiserver does (10 s by default): a Prometheus scraping every
// few seconds, or a dashboard polling the visibility API, costs one TokenReview per
// token per period instead of one per request. Both answers are remembered (a user, or
// "not authenticated"); errors are not. Entries are keyed by the token's SHA-256, so the
// cache holds no token.

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "kube/auth/delegated_auth.hpp"
#include "kube/auth/expiring_cache.hpp"

namespace kueuepp::kube::auth {

class CachingTokenAuthenticator final : public TokenAuthenticator {
 public:
  using Clock = ExpiringCache<std::optional<UserInfo>>::Clock;
  /// At most this many tokens are remembered; beyond, the cache starts over.
  static constexpr std::size_t kMaxEntries = ExpiringCache<std::optional<UserInfo>>::kDefaultMaxEntries;

  CachingTokenAuthenticator(std::shared_ptr<TokenAuthenticator> inner, std::chrono::milliseconds ttl, Clock clock = {});
  void authenticate(const std::string& token, Callback done) override;
  std::size_t size() const;

 private:
  std::shared_ptr<TokenAuthenticator> inner_;
  /// Keyed by the token's SHA-256; a cached nullopt is "not authenticated".
  ExpiringCache<std::optional<UserInfo>> cache_;
};

}  // namespace kueuepp::kube::auth
