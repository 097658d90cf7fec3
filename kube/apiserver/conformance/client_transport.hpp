#pragma once

// The replayer's transport over kueuepp's own API client (raw HTTP layer: exact
// headers and bodies, no retries; watch steps through the streaming variant).

#include <memory>

#include "kube/client/client.hpp"
#include "kube/apiserver/conformance/replayer.hpp"

namespace kueuepp::kube::conformance {

class ClientReplayTransport final : public ReplayTransport {
 public:
  explicit ClientReplayTransport(client::Client& client) : client_(client) {}

  Expected<ActualResponse> send(const client::HttpRequest& request) override;
  Expected<ActualResponse> send_watch(const client::HttpRequest& request) override;

  /// Client options for replaying: no rate limit, no retries, generous timeouts.
  static client::ClientOptions replay_options();

 private:
  client::Client& client_;
};

}  // namespace kueuepp::kube::conformance
