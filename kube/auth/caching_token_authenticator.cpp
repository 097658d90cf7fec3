#include "kube/auth/caching_token_authenticator.hpp"

#include "kube/tls/digest.hpp"

namespace kueuepp::kube::auth {

CachingTokenAuthenticator::CachingTokenAuthenticator(std::shared_ptr<TokenAuthenticator> inner,
                                                     std::chrono::milliseconds ttl, Clock clock)
    : inner_(std::move(inner)), ttl_(ttl), clock_(std::move(clock)) {}

std::chrono::steady_clock::time_point CachingTokenAuthenticator::now() const {
  return clock_ ? clock_() : std::chrono::steady_clock::now();
}

std::size_t CachingTokenAuthenticator::size() const {
  std::lock_guard lock(mutex_);
  return cache_.size();
}

void CachingTokenAuthenticator::authenticate(const std::string& token, Callback done) {
  std::string key = tls::sha256_hex(token);
  {
    std::lock_guard lock(mutex_);
    auto it = cache_.find(key);
    if (it != cache_.end()) {
      if (it->second.expires > now()) {
        std::optional<UserInfo> user = it->second.user;
        done(std::move(user));
        return;
      }
      cache_.erase(it);
    }
  }
  inner_->authenticate(token, [this, key = std::move(key), done = std::move(done)](Expected<std::optional<UserInfo>> user) {
    if (user) {
      std::lock_guard lock(mutex_);
      // Expired entries go when their token is seen again; bound the rest.
      if (cache_.size() >= kMaxEntries) cache_.clear();
      cache_[key] = Entry{*user, now() + ttl_};
    }
    done(std::move(user));
  });
}

}  // namespace kueuepp::kube::auth
