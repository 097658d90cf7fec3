#pragma once

// The one HTTP/1.1 server core of kueuepp's own endpoints (admission and conversion
// webhooks, the visibility API, probes, metrics and introspection): asynchronous on a
// small fixed pool of threads (one by default), never a thread per connection.
//
// It accepts (at most `max_connections` open at once; more are closed at once), makes
// the TLS handshake when `tls` is set (bounded by `handshake_timeout`), reads a request
// (bounded by `read_timeout`, which also bounds the wait for the next request of a
// kept-alive connection) with limits on its header (431) and body (413), hands it to the
// handler and writes the answer the handler gives through its Reply, from any thread
// (bounded by `write_timeout`). An answer that does not come within `answer_timeout`
// is `timeout_response`. Beast and Asio stay in the .cpp.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "core/expected.hpp"
#include "kube/serving/exchange.hpp"
#include "kube/serving/reply.hpp"

namespace boost::asio::ssl {
class context;
}

namespace kueuepp::kube::serving {

struct ServerOptions {
  /// Names the server in logs ("webhook", "visibility", "probe server").
  std::string name = "server";
  std::size_t threads = 1;
  std::size_t max_connections = 1024;
  std::size_t max_header_bytes = 16 * 1024;
  /// The largest body of any path.
  std::uint64_t max_body_bytes = 1024 * 1024;
  /// A path's own body limit, at most max_body_bytes (null: max_body_bytes for all).
  std::function<std::uint64_t(std::string_view path)> body_limit;
  std::chrono::milliseconds handshake_timeout{10'000};
  std::chrono::milliseconds read_timeout{30'000};
  std::chrono::milliseconds write_timeout{10'000};
  /// Zero: the handler's answer is waited for as long as the server runs.
  std::chrono::milliseconds answer_timeout{10'000};
  Response timeout_response{504, "text/plain", "no answer within the timeout\n", {}, false};
  /// HTTPS when set: the TLS context of each new connection (a renewed certificate is
  /// used from the next one); a null context refuses the connection.
  std::function<std::shared_ptr<boost::asio::ssl::context>()> tls;
  /// The answer to a request that cannot be read: 400 (malformed), 413 (body too large),
  /// 431 (header too large), given a sentence that says why. Null: that sentence as text.
  std::function<Response(int status, std::string message)> error_response;
  /// How long stop() lets requests handed to the handler be answered.
  std::chrono::milliseconds stop_grace{0};
};

/// Called on a server thread; must not block. The reply may be called from any thread.
using Handler = std::function<void(Request request, Reply reply)>;

struct ServerStats {
  std::uint64_t connections = 0;  ///< accepted and served
  std::uint64_t refused = 0;      ///< over max_connections, or no TLS context yet
  std::uint64_t tls_failures = 0;
  std::uint64_t timeouts = 0;  ///< answered with timeout_response
  std::uint64_t open_connections = 0;
};

class HttpServer {
 public:
  /// Listens on `listen` ("ADDR:PORT", port 0 picks a free one) at once.
  static Expected<std::unique_ptr<HttpServer>> start(const std::string& listen, ServerOptions options, Handler handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  std::uint16_t port() const;
  /// "ADDR:PORT" as bound.
  std::string address() const;
  ServerStats stats() const;
  /// Stops accepting, lets requests being answered finish (stop_grace), closes every
  /// connection and joins the server's threads; answers that come later are dropped.
  /// Idempotent.
  void stop();

  struct Impl;

 private:
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kueuepp::kube::serving
