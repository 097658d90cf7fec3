#pragma once

// A bound on the API requests one part of the perf runner has in flight. The client
// opens a connection per concurrent request; the gate keeps the runner from flooding
// the API server (and the machine) with connections when thousands of workload
// creations or status patches fall due at once. Requests beyond the bound wait in FIFO
// order, which also shows up as creation latency, as a QPS-limited client would.

#include <cstddef>
#include <functional>
#include <memory>

namespace kueuepp::cmd::perf {

class ApiGate {
 public:
  /// Called exactly once when the request completes; frees the slot.
  using Release = std::function<void()>;
  using Start = std::function<void(Release)>;

  explicit ApiGate(std::size_t max_in_flight);

  /// Runs `start` now (on this thread) if a slot is free, else when one frees (on the
  /// thread that releases it). Thread-safe.
  void submit(Start start);
  /// Drops every waiting request (they never start). Later submits are dropped too.
  void close();

  std::size_t in_flight() const;
  std::size_t waiting() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace kueuepp::cmd::perf
