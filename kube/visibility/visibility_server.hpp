#pragma once

// The visibility API's HTTPS listener (kube/serving, TLS 1.2 and 1.3): it asks every
// client for a certificate without requiring one (the front proxy presents its own,
// kubectl with a token does not), hands each request with the chain the client
// presented to the handler, and writes the answer the handler gives, on any thread.
// An answer that does not come within `answer_timeout` is a 504. The serving
// certificate can be replaced while it runs. Asio stays out of this header.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/expected.hpp"
#include "kube/visibility/visibility_handler.hpp"

namespace kueuepp::kube::visibility {

struct VisibilityServerOptions {
  /// ADDR:PORT; port 0 picks a free one. Kueue's visibility server binds 8082, which
  /// is kueuepp's probe port: the default is the next free one (see docs).
  std::string listen = "0.0.0.0:8083";
  std::size_t max_connections = 256;
  std::chrono::milliseconds handshake_timeout{10'000};
  std::chrono::milliseconds read_timeout{30'000};
  std::chrono::milliseconds write_timeout{10'000};
  std::chrono::milliseconds answer_timeout{10'000};
};

using RequestHandler = std::function<void(IncomingRequest, Reply)>;

class VisibilityServer {
 public:
  static Expected<std::unique_ptr<VisibilityServer>> start(VisibilityServerOptions options, RequestHandler handler);
  ~VisibilityServer();
  VisibilityServer(const VisibilityServer&) = delete;
  VisibilityServer& operator=(const VisibilityServer&) = delete;

  /// The serving certificate and key; connections are refused until one is set.
  Status set_certificate(const std::string& cert_pem, const std::string& key_pem);
  std::uint16_t port() const;
  void stop();

  struct Impl;

 private:
  explicit VisibilityServer(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

}  // namespace kueuepp::kube::visibility
