#pragma once

// The bearer token to send. A token file (service-account projected tokens, kubeconfig
// tokenFile) is re-read every `refresh_period` and after a 401, because the kubelet
// rotates it; a static token is returned as is. Thread-safe.

#include <chrono>
#include <mutex>
#include <optional>
#include <string>

#include "core/expected.hpp"
#include "kube/client/clock.hpp"

namespace kueuepp::kube::client {

class TokenSource {
 public:
  TokenSource(std::string static_token, std::string token_file,
              std::chrono::seconds refresh_period = std::chrono::seconds(60),
              SteadyClock clock = real_steady_clock());

  /// The current token ("" when there is none). A failed re-read keeps the last good
  /// token (the file may be mid-rotation) and logs a warning.
  std::string token();
  /// Forces a re-read on the next token() call (after a 401).
  void invalidate();
  /// True when the token comes from a file (so a 401 may be cured by re-reading it).
  bool refreshable() const { return !token_file_.empty(); }

 private:
  std::string token_file_;
  std::chrono::seconds refresh_period_;
  SteadyClock clock_;
  std::mutex mutex_;
  std::string token_;
  std::optional<std::chrono::steady_clock::time_point> read_at_;
};

}  // namespace kueuepp::kube::client
