#pragma once

// A small HTTP/1.1 server for the controller's probes and introspection (/healthz,
// /readyz, /metrics, /debug/...), on its own thread, loopback by default. Handlers
// answer asynchronously (from actors); the connection waits for the answer up to a
// timeout (then 503). GET only.

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "core/expected.hpp"

namespace kueuepp::cmd {

using ProbeResponder = std::function<void(int status, std::string content_type, std::string body)>;
using ProbeHandler = std::function<void(const std::string& path, ProbeResponder respond)>;

class ProbeServer {
 public:
  static Expected<std::unique_ptr<ProbeServer>> start(const std::string& listen, ProbeHandler handler,
                                                      std::chrono::milliseconds timeout = std::chrono::seconds(5));
  ~ProbeServer();
  std::uint16_t port() const;
  void stop();

  struct Impl;

 private:
  explicit ProbeServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kueuepp::cmd
