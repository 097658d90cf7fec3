#pragma once

// Deferred work on the server's store thread, without exposing Asio to the API layer:
// timers for watch timeouts and bookmarks, and posted tasks for the asynchronous
// controllers (garbage collector, namespace deletion). net/ implements it over Asio.

#include <chrono>
#include <functional>
#include <memory>

namespace kueuepp::kube::server {

/// A scheduled task; cancel() makes sure it will not run (idempotent).
class TimerHandle {
 public:
  virtual ~TimerHandle() = default;
  virtual void cancel() = 0;
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  /// Runs `task` on the store thread after the current handler returns.
  virtual void post(std::function<void()> task) = 0;
  /// Runs `task` on the store thread after `delay`.
  virtual std::shared_ptr<TimerHandle> after(std::chrono::milliseconds delay, std::function<void()> task) = 0;
};

}  // namespace kueuepp::kube::server
