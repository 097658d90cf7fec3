#pragma once

// Accepts connections on the server's address and starts a session for each (TLS when a
// TLS context is given). Internal to kube/apiserver/server.

#include <cstdint>
#include <memory>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>

#include "core/expected.hpp"
#include "kube/apiserver/server/net/http_session.hpp"
#include "kube/apiserver/server/net/session_registry.hpp"

namespace kueuepp::kube::server {

class Listener : public std::enable_shared_from_this<Listener> {
 public:
  /// Binds ADDR:PORT ("127.0.0.1:0" picks a free port). The error names the address.
  static Expected<std::shared_ptr<Listener>> bind(boost::asio::io_context& io, const std::string& address,
                                                  ApiHandler& handler, SessionLimits limits,
                                                  SessionRegistry& registry, boost::asio::ssl::context* tls);
  void start();
  void stop();
  std::uint16_t port() const { return port_; }
  std::string host() const { return host_; }

 private:
  Listener(boost::asio::io_context& io, ApiHandler& handler, SessionLimits limits, SessionRegistry& registry,
           boost::asio::ssl::context* tls);
  void accept();

  boost::asio::ip::tcp::acceptor acceptor_;
  ApiHandler& handler_;
  SessionLimits limits_;
  SessionRegistry& registry_;
  boost::asio::ssl::context* tls_;
  std::uint16_t port_ = 0;
  std::string host_;
};

/// Splits "ADDR:PORT" ("[::1]:6443" for IPv6). The error says what is wrong.
Expected<std::pair<std::string, std::uint16_t>> split_host_port(const std::string& address);

}  // namespace kueuepp::kube::server
