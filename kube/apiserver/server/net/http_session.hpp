#pragma once

// HTTP/1.1 connections (plain or TLS) over Boost.Beast. Internal to kube/apiserver/server: only
// the listener includes this header.

#include <chrono>
#include <cstddef>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>

namespace kueuepp::kube::server {

class ApiHandler;
class SessionRegistry;

struct SessionLimits {
  /// Request line plus headers (Go's http.Server default MaxHeaderBytes): 431 beyond.
  std::size_t header_limit = 1 << 20;
  /// Request bodies (kube-apiserver's 3 MiB limit for JSON/YAML requests): 413 beyond.
  std::size_t body_limit = 3 << 20;
  /// Bytes a watch may have queued for a slow client before it is ended with 410.
  std::size_t stream_buffer_limit = 64 << 20;
  /// A connection must deliver a complete request within this time (idle keep-alive
  /// connections are closed after it too).
  std::chrono::seconds read_timeout{300};
};

/// Serves HTTP on an accepted connection until it closes.
void start_plain_session(boost::asio::ip::tcp::socket socket, ApiHandler& handler, const SessionLimits& limits,
                         SessionRegistry& registry);
/// The same behind a TLS handshake.
void start_tls_session(boost::asio::ip::tcp::socket socket, boost::asio::ssl::context& tls, ApiHandler& handler,
                       const SessionLimits& limits, SessionRegistry& registry);

}  // namespace kueuepp::kube::server
