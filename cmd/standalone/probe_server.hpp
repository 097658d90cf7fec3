#pragma once

// A small HTTP/1.1 server for the controller's probes and introspection (/healthz,
// /readyz, /metrics, /debug/..., the web view), on its own thread, loopback by default.
// Handlers answer asynchronously (from actors); the connection waits for the answer up
// to a timeout (then 503). GET only. The handler is given the request target, query
// included.
//
// Event streams (server-sent events) are served each on a thread of its own, at most
// `max_streams` at once: the stream asks the handler for its source path every period
// and sends the answer as an event when it changed, and a comment when nothing was sent
// for `keepalive`, which also finds a closed connection. Streams of one source share its
// answer for a period, so open pages do not multiply the queries.

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/expected.hpp"

namespace kueuepp::cmd {

using ProbeResponder = std::function<void(int status, std::string content_type, std::string body)>;
using ProbeHandler = std::function<void(const std::string& target, ProbeResponder respond)>;

struct ProbeStream {
  std::string path;    ///< where it is served, e.g. /debug/stream
  std::string event;   ///< the name of its events
  std::string source;  ///< the target whose answer each event carries
  std::chrono::milliseconds period{1000};
};

struct ProbeServerOptions {
  std::chrono::milliseconds timeout{5000};
  std::vector<ProbeStream> streams;
  std::size_t max_streams = 16;
  std::chrono::milliseconds keepalive{5000};
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
