#pragma once

// A small HTTP/1.1 server for the controller's probes and introspection (/healthz,
// /readyz, /metrics, /debug/..., the web view), loopback by default, on kube/serving's
// server core (one thread, whatever the number of connections). Handlers answer
// asynchronously (from actors); the answer is waited for up to a timeout (then 503). GET
// only. The handler is given the request target, query included.
//
// Event streams (server-sent events), at most `max_streams` at once: the stream asks the
// handler for its source path every period and sends the answer as an event when it
// changed, and a comment when nothing was sent for `keepalive`, which also finds a
// closed connection. Streams of one source share its answer for a period, so open pages
// do not multiply the queries.
//
// Over HTTPS (options.tls set), as the secure metrics and introspection listener: the TLS
// handshake, reading a request and each write are bounded by `io_timeout` (so are they
// over plain HTTP), and every request passes the gate (options.gate) before anything is
// answered, streams included. The client's certificate is asked for, not required; the
// gate decides.

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/expected.hpp"
#include "kube/http/headers.hpp"

namespace boost::asio::ssl {
class context;
}

namespace kueuepp::cmd {

using ProbeResponder = std::function<void(int status, std::string content_type, std::string body)>;
using ProbeHandler = std::function<void(const std::string& target, ProbeResponder respond)>;

struct ProbeStream {
  std::string path;    ///< where it is served, e.g. /debug/stream
  std::string event;   ///< the name of its events
  std::string source;  ///< the target whose answer each event carries
  std::chrono::milliseconds period{1000};
};

/// A request as the gate sees it, before anything is answered.
struct ProbeRequest {
  std::string method;
  std::string target;  ///< path and query
  ::kueuepp::http::Headers headers;
  std::vector<std::string> peer_chain_der;  ///< the client's certificates (DER), if it presented any
};

/// Why a request is refused, as it is answered.
struct ProbeRefusal {
  int status = 403;
  std::string content_type = "application/json";
  std::string body;
};

/// Answers nullopt to let the request through, or the refusal; once, on any thread.
using ProbeGate =
    std::function<void(const ProbeRequest& request, std::function<void(std::optional<ProbeRefusal>)> decide)>;

struct ProbeServerOptions {
  std::chrono::milliseconds timeout{5000};
  std::vector<ProbeStream> streams;
  std::size_t max_streams = 16;
  /// Open connections at most (more are closed at once).
  std::size_t max_connections = 4096;
  std::chrono::milliseconds keepalive{5000};
  /// HTTPS when set: the TLS context of each new connection (so a renewed certificate is
  /// used from the next one); a null context refuses the connection.
  std::function<std::shared_ptr<boost::asio::ssl::context>()> tls;
  /// Asked of every request before it is answered (null: every request is served).
  ProbeGate gate;
  /// The bound of a TLS handshake, of reading a request (and of waiting for the next on a
  /// kept-alive connection) and of each write.
  std::chrono::milliseconds io_timeout{10000};
};

class ProbeServer {
 public:
  static Expected<std::unique_ptr<ProbeServer>> start(const std::string& listen, ProbeHandler handler,
                                                      std::chrono::milliseconds timeout = std::chrono::seconds(5));
  static Expected<std::unique_ptr<ProbeServer>> start(const std::string& listen, ProbeHandler handler,
                                                      ProbeServerOptions options);
  ~ProbeServer();
  std::uint16_t port() const;
  void stop();

  struct Impl;

 private:
  explicit ProbeServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kueuepp::cmd
