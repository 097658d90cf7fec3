#include "kube/client/token_source.hpp"

#include <spdlog/spdlog.h>

#include "kube/client/detail/files.hpp"

namespace kueuepp::kube::client {

TokenSource::TokenSource(std::string static_token, std::string token_file,
                         std::chrono::seconds refresh_period, SteadyClock clock)
    : token_file_(std::move(token_file)),
      refresh_period_(refresh_period),
      clock_(std::move(clock)),
      token_(std::move(static_token)) {}

std::string TokenSource::token() {
  std::lock_guard lock(mutex_);
  if (token_file_.empty()) return token_;
  const auto now = clock_();
  if (read_at_ && now - *read_at_ < refresh_period_) return token_;
  read_at_ = now;
  auto content = detail::read_file(token_file_);
  if (!content) {
    spdlog::warn("bearer token file: {}; keeping the previous token", content.error().message);
    return token_;
  }
  std::string fresh = std::move(*content);
  while (!fresh.empty() && (fresh.back() == '\n' || fresh.back() == '\r' || fresh.back() == ' ')) {
    fresh.pop_back();
  }
  if (fresh.empty()) {
    spdlog::warn("bearer token file {} is empty; keeping the previous token", token_file_);
    return token_;
  }
  token_ = std::move(fresh);
  return token_;
}

void TokenSource::invalidate() {
  std::lock_guard lock(mutex_);
  read_at_.reset();
}

}  // namespace kueuepp::kube::client
