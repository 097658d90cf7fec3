#include "kube/auth/caching_token_authenticator.hpp"

#include "kube/tls/digest.hpp"

namespace kueuepp::kube::auth {

CachingTokenAuthenticator::CachingTokenAuthenticator(std::shared_ptr<TokenAuthenticator> inner,
                                                     std::chrono::milliseconds ttl, Clock clock)
    : inner_(std::move(inner)), cache_(ttl, std::move(clock), kMaxEntries) {}

std::size_t CachingTokenAuthenticator::size() const { return cache_.size(); }

void CachingTokenAuthenticator::authenticate(const std::string& token, Callback done) {
  std::string key = tls::sha256_hex(token);
  if (auto user = cache_.find(key)) {
    done(std::move(*user));
    return;
  }
  inner_->authenticate(token, [this, key = std::move(key), done = std::move(done)](Expected<std::optional<UserInfo>> user) {
    cache_.remember(key, user);
    done(std::move(user));
  });
}

}  // namespace kueuepp::kube::auth
