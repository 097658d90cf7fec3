#pragma once

// What every connection of a fault proxy shares: its options, the fault decider, the
// log, the counters, the upstream address and the registry of open connections (so that
// a blackout or stop() can close them all). Thread-safe; internal to the proxy.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <boost/asio/ip/tcp.hpp>

#include "tests/faults/fault_decider.hpp"
#include "tests/faults/fault_log.hpp"
#include "tests/faults/fault_proxy.hpp"
#include "tests/faults/fault_stats.hpp"

namespace kueuepp::faults {

/// One client connection as the registry sees it.
class ProxyConnection {
 public:
  virtual ~ProxyConnection() = default;
  /// Closes both sides now (posted to the connection's strand); never blocks. `abort`:
  /// reset the client connection (RST) as a failing server would, else close it (FIN).
  virtual void close(bool abort) = 0;
};

class ProxyContext {
 public:
  ProxyContext(FaultProxyOptions options, std::unique_ptr<FaultDecider> decider, std::unique_ptr<FaultLog> log,
               std::vector<boost::asio::ip::tcp::endpoint> upstream);

  const FaultProxyOptions& options() const { return options_; }
  FaultDecider& decider() { return *decider_; }
  const std::vector<boost::asio::ip::tcp::endpoint>& upstream() const { return upstream_; }

  std::chrono::milliseconds elapsed() const;
  std::chrono::steady_clock::time_point started() const { return started_; }

  void count_connection();
  void count_request();
  void count_forwarded();
  /// Counts and logs an upstream failure (not a fault: the server or network failed).
  void upstream_error(std::string_view method, std::string_view target, std::string_view what);
  /// Counts `count` faults of `kind` for `rule`, logs one line and tells on_fault.
  void record_fault(std::size_t rule, FaultKind kind, std::string_view method, std::string_view target,
                    std::string detail, std::uint64_t count = 1);
  /// A log line that is not a fault (prefixed `note t=...`).
  void note(std::string_view text);
  FaultProxyStats stats() const;

  /// Registers an open connection; false once stopping (the caller closes it).
  bool add_connection(std::uint64_t id, const std::shared_ptr<ProxyConnection>& connection);
  void remove_connection(std::uint64_t id);
  /// Closes every registered connection (see ProxyConnection::close); returns how many.
  std::size_t close_connections(bool abort);
  /// Refuses new connections and closes the open ones.
  void begin_stop();
  bool stopping() const { return stopping_.load(); }
  /// Waits until every registered connection has ended; false on timeout.
  bool wait_connections_gone(std::chrono::milliseconds timeout);

 private:
  FaultProxyOptions options_;
  std::unique_ptr<FaultDecider> decider_;
  std::unique_ptr<FaultLog> log_;
  std::vector<boost::asio::ip::tcp::endpoint> upstream_;
  const std::chrono::steady_clock::time_point started_;
  std::atomic<bool> stopping_{false};

  mutable std::mutex stats_mutex_;
  FaultProxyStats stats_;

  mutable std::mutex connections_mutex_;
  std::condition_variable connections_gone_;
  std::unordered_map<std::uint64_t, std::weak_ptr<ProxyConnection>> connections_;
};

}  // namespace kueuepp::faults
