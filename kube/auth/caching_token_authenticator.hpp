#pragma once

// A TokenAuthenticator that remembers each token's answer for a while, as the delegating
// authenticator of k8s.io/apiserver does (10 s by default): a Prometheus scraping every
// few seconds, or a dashboard polling the visibility API, costs one TokenReview per
// token per period instead of one per request. Both answers are remembered (a user, or
// "not authenticated"); errors are not. Entries are keyed by the token's SHA-256, so the
// cache holds no token.

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "kube/auth/delegated_auth.hpp"

namespace kueuepp::kube::auth {

class CachingTokenAuthenticator final : public TokenAuthenticator {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  /// At most this many tokens are remembered; beyond, the cache starts over.
  static constexpr std::size_t kMaxEntries = 4096;

  CachingTokenAuthenticator(std::shared_ptr<TokenAuthenticator> inner, std::chrono::milliseconds ttl, Clock clock = {});
  void authenticate(const std::string& token, Callback done) override;
  std::size_t size() const;

 private:
  struct Entry {
    std::optional<UserInfo> user;
    std::chrono::steady_clock::time_point expires;
  };
  std::chrono::steady_clock::time_point now() const;

  std::shared_ptr<TokenAuthenticator> inner_;
  std::chrono::milliseconds ttl_;
  Clock clock_;
  mutable std::mutex mutex_;
  std::map<std::string, Entry> cache_;
};

}  // namespace kueuepp::kube::auth
