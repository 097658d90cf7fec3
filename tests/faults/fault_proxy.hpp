#pragma once

// A fault-injecting HTTP/1.1 proxy for tests. It sits between a Kubernetes API client
// (the controller) and an API server (plain HTTP), forwards every request and answer,
// streams watches chunk by chunk as they arrive, and breaks the requests a FaultPlan
// picks: connections reset before or after the server acted, error Status answers,
// delays, watches cut, expired or lagging, outages. Seeded and logged, so that a run
// can be replayed and read.
//
// Each client connection gets its own upstream connection (opened at its first
// forwarded request, reopened when the server closes it). An upstream that cannot be
// reached resets the client connection, as an unreachable server would.
//
// Beast/Asio stay behind the pimpl (see proxy_session.hpp for the connection logic).

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/expected.hpp"
#include "tests/faults/fault_log.hpp"
#include "tests/faults/fault_plan.hpp"
#include "tests/faults/fault_stats.hpp"

namespace kueuepp::faults {

struct FaultProxyOptions {
  /// Where to listen; port 0 picks a free port (see FaultProxy::port).
  std::string listen_host = "127.0.0.1";
  std::uint16_t listen_port = 0;
  /// The API server to forward to (plain HTTP).
  std::string upstream_host = "127.0.0.1";
  std::uint16_t upstream_port = 0;
  FaultPlan plan;
  /// Fault log file (appended); empty: stderr.
  std::string log_path;
  /// Also called for every injected fault, on an io thread; must not block (nor call
  /// FaultProxy::stop, which waits for the io threads).
  std::function<void(const FaultEvent&)> on_fault;
  /// Threads running the proxy's connections.
  int io_threads = 2;
  /// How long connecting to the upstream may take before the client is reset.
  std::chrono::milliseconds connect_timeout{5000};
};

class FaultProxy {
 public:
  /// Validates the plan, resolves the upstream, binds and starts the io threads. The
  /// error says what failed (bad plan, address in use, unresolvable upstream, log file).
  static Expected<std::unique_ptr<FaultProxy>> start(FaultProxyOptions options);

  ~FaultProxy();
  FaultProxy(const FaultProxy&) = delete;
  FaultProxy& operator=(const FaultProxy&) = delete;

  /// The bound port.
  std::uint16_t port() const;
  /// http://HOST:PORT of the proxy, for a client configuration.
  std::string url() const;
  /// Stops accepting, closes every connection, ends every wait and joins the io threads.
  /// Idempotent; the destructor calls it. Stats stay readable afterwards.
  void stop();

  FaultProxyStats stats() const;
  /// stats().json(): one JSON line.
  std::string stats_json() const;
  /// Time since the proxy started (the time base of rule windows and the log).
  std::chrono::milliseconds elapsed() const;

  struct Impl;

 private:
  explicit FaultProxy(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kueuepp::faults
