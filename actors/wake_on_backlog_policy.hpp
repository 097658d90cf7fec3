#pragma once

// A CAF scheduling policy: one shared queue of ready actors, like CAF's work sharing,
// except that a sleeping worker is woken only when the ready actors outnumber the
// workers awake to run them soon (a worker whose current job has run longer than
// kLongJobNs does not count).
//
// Why: CAF's work sharing wakes a sleeping worker on every enqueue. A chain of messages
// (watch -> router -> tree -> writer) then ping-pongs between the two workers, each hop
// a futex wake-up and a context switch, and the woken worker first blocks on the queue's
// mutex, which the enqueuer still holds while notifying. Here the worker that sends the
// message usually runs the receiver itself once its handler returns, and the second
// worker joins when a backlog forms (two trees deciding at once, a burst of watch events
// behind a long round), which halves the workers' context switches (docs/performance.md).
//
// The guarantee CAF needs is kept: a ready actor is never left without a worker that
// will look at the queue. A worker counted awake is not waiting on the condition
// variable, so it checks the queue (under the lock) before it sleeps; a worker woken but
// not yet running still counts as sleeping, which can only wake one more than needed.
// The price is latency, bounded by handler length: a ready actor queued just after a
// handler started may wait for that handler to end while another worker sleeps (one
// queued behind a handler already running for kLongJobNs wakes it). Handlers here never
// block and run for microseconds to a few milliseconds (a large tree's round).
//
// Include only where the actor system is configured (it pulls in CAF's scheduler).

#include <caf/policy/unprofiled.hpp>
#include <caf/resumable.hpp>
#include <caf/scheduler/abstract_coordinator.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstddef>
#include <deque>
#include <mutex>

namespace kueuepp::actors {

class WakeOnBacklogPolicy : public caf::policy::unprofiled {
 public:
  struct coordinator_data {
    explicit coordinator_data(caf::scheduler::abstract_coordinator*) {}

    std::mutex lock;
    std::condition_variable cv;
    std::deque<caf::resumable*> queue;  ///< ready actors, oldest first
    std::size_t sleeping = 0;           ///< workers waiting on `cv` (or woken, not yet running)
    std::size_t stopped = 0;            ///< workers that left their loop (shutdown)
  };

  struct worker_data {
    explicit worker_data(caf::scheduler::abstract_coordinator*) {}
    /// CAF copies one prototype per worker: each starts between jobs.
    worker_data(const worker_data&) {}
    worker_data& operator=(const worker_data&) = delete;

    /// When the worker's current job started (steady clock, ns); 0 between jobs.
    std::atomic<std::int64_t> job_started_ns{0};
  };

  /// A job running longer than this no longer counts as about to end: a backlog
  /// behind it wakes a sleeping worker.
  static constexpr std::int64_t kLongJobNs = 200'000;

  template <class Coordinator>
  void enqueue(Coordinator* self, caf::resumable* job) {
    auto& data = d(self);
    std::size_t queued = 0;
    std::size_t awake = 0;
    {
      std::lock_guard<std::mutex> guard(data.lock);
      data.queue.push_back(job);
      if (data.sleeping == 0) return;
      queued = data.queue.size();
      awake = awake_workers(data, self->num_workers());
    }
    // Outside the lock (the woken worker's first step is to take it). Not waking is safe
    // whatever happened since: `awake` >= 1 workers were not waiting and will look. The
    // clocks are read only when the count alone does not call for a worker.
    const bool backlog = queued > awake || queued > awake - std::min(awake, long_running(self));
    if (backlog) data.cv.notify_one();
  }

  template <class Coordinator>
  void central_enqueue(Coordinator* self, caf::resumable* job) {
    enqueue(self, job);
  }

  template <class Worker>
  void external_enqueue(Worker* self, caf::resumable* job) {
    enqueue(self->parent(), job);
  }

  template <class Worker>
  void internal_enqueue(Worker* self, caf::resumable* job) {
    enqueue(self->parent(), job);
  }

  template <class Worker>
  void resume_job_later(Worker* self, caf::resumable* job) {
    enqueue(self->parent(), job);
  }

  /// A worker leaves its loop: it no longer counts as awake (at shutdown CAF hands each
  /// worker its stop job in turn, and the last one must still be woken).
  /// CAF notifies the coordinator before this runs, so the next stop job may already be
  /// queued, counted against this worker: pass it on.
  template <class Worker>
  void before_shutdown(Worker* self) {
    auto& data = d(self->parent());
    bool wake = false;
    {
      std::lock_guard<std::mutex> guard(data.lock);
      ++data.stopped;
      wake = data.sleeping > 0 && data.queue.size() > awake_workers(data, self->parent()->num_workers());
    }
    if (wake) data.cv.notify_one();
  }

  template <class Worker>
  void before_resume(Worker* self, caf::resumable*) {
    d(self).job_started_ns.store(now_ns(), std::memory_order_relaxed);
  }

  template <class Worker>
  void after_resume(Worker* self, caf::resumable*) {
    d(self).job_started_ns.store(0, std::memory_order_relaxed);
  }

  template <class Worker>
  caf::resumable* dequeue(Worker* self) {
    auto& data = d(self->parent());
    std::unique_lock<std::mutex> guard(data.lock);
    while (data.queue.empty()) {
      ++data.sleeping;
      data.cv.wait(guard);
      --data.sleeping;
    }
    caf::resumable* job = data.queue.front();
    data.queue.pop_front();
    return job;
  }

  template <class Worker, class UnaryFunction>
  void foreach_resumable(Worker*, UnaryFunction) {}

  /// At shutdown: hands every queued actor to `f` (CAF disposes of them).
  template <class Coordinator, class UnaryFunction>
  void foreach_central_resumable(Coordinator* self, UnaryFunction f) {
    auto& data = d(self);
    std::unique_lock<std::mutex> guard(data.lock);
    while (!data.queue.empty()) {
      caf::resumable* job = data.queue.front();
      data.queue.pop_front();
      f(job);
    }
  }

 private:
  static std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  /// Workers whose current job has run longer than kLongJobNs (at most `awake` of them:
  /// a sleeping worker has no job).
  template <class Coordinator>
  static std::size_t long_running(Coordinator* self) {
    const std::int64_t now = now_ns();
    std::size_t n = 0;
    for (std::size_t i = 0; i < self->num_workers(); ++i) {
      const std::int64_t started = self->worker_by_id(i)->data().job_started_ns.load(std::memory_order_relaxed);
      if (started != 0 && now - started > kLongJobNs) ++n;
    }
    return n;
  }

  /// Workers neither waiting on the condition variable nor stopped: each will look at
  /// the queue before it sleeps. Called with the lock held.
  static std::size_t awake_workers(const coordinator_data& data, std::size_t workers) {
    return workers - data.sleeping - data.stopped;
  }
};

}  // namespace kueuepp::actors
