// The controller's CAF scheduling policy on real worker threads: nothing is lost or
// stranded (every message handled, shutdown returns), a backlog still spreads over the
// workers, and a message queued behind a long handler wakes a sleeping worker.

#include "actors/wake_on_backlog_policy.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/scheduler/coordinator.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace kueuepp::actors {
namespace {

using namespace std::chrono_literals;

/// Generous: on a loaded 2-core machine a pass takes well under a second.
constexpr auto kDeadline = 60s;

caf::actor_system_config config_with(std::size_t workers) {
  caf::actor_system_config cfg;
  cfg.set("scheduler.max-threads", workers);
  cfg.set("logger.verbosity", caf::atom("quiet"));
  cfg.load<caf::scheduler::coordinator<WakeOnBacklogPolicy>>();
  return cfg;
}

/// Waits for `n` integer messages; false if they do not all arrive in time.
bool receive_n(caf::scoped_actor& self, std::size_t n) {
  bool in_time = true;
  for (std::size_t i = 0; i < n && in_time; ++i) {
    self->receive([](int) {}, caf::after(kDeadline) >> [&] { in_time = false; });
  }
  return in_time;
}

/// Busy for `d` (a handler that computes, never one that blocks).
void compute_for(std::chrono::steady_clock::duration d) {
  const auto until = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < until) {
  }
}

/// Holds a handler on its worker until the test releases it (computing, as handlers do;
/// a 20 s guard keeps a failing test from spinning forever).
struct Gate {
  std::atomic<bool> started{false};
  std::atomic<bool> released{false};

  /// In the handler: true when released, false when the guard ran out.
  bool hold() {
    started.store(true);
    const auto until = std::chrono::steady_clock::now() + 20s;
    while (!released.load() && std::chrono::steady_clock::now() < until) {
    }
    return released.load();
  }
  /// In the test: returns once a handler holds.
  void wait_until_held() const {
    while (!started.load()) std::this_thread::yield();
  }
};

/// Counts `expected` messages, then tells `done`.
caf::behavior counter(caf::event_based_actor* self, caf::actor done, int expected) {
  auto seen = std::make_shared<int>(0);
  return {[=](int) {
    if (++*seen == expected) self->send(done, 0);
  }};
}

TEST(WakeOnBacklogPolicy, EveryMessageFromManyThreadsIsHandled) {
  for (std::size_t workers : {1, 2, 4}) {
    SCOPED_TRACE(workers);
    auto cfg = config_with(workers);
    caf::actor_system system{cfg};
    caf::scoped_actor self{system};
    constexpr int kActors = 8;
    constexpr int kThreads = 4;
    constexpr int kPerThread = 4000;
    std::vector<caf::actor> counters;
    for (int i = 0; i < kActors; ++i) {
      counters.push_back(system.spawn(counter, caf::actor{self}, kThreads * kPerThread / kActors));
    }
    std::vector<std::thread> senders;
    for (int t = 0; t < kThreads; ++t) {
      senders.emplace_back([&counters] {
        for (int i = 0; i < kPerThread; ++i) caf::anon_send(counters[static_cast<std::size_t>(i % kActors)], i);
      });
    }
    for (auto& t : senders) t.join();
    EXPECT_TRUE(receive_n(self, kActors)) << "a message was left unhandled";
    for (auto& c : counters) caf::anon_send_exit(c, caf::exit_reason::user_shutdown);
  }  // the system's destructor stops every worker: a stranded stop job would hang here
}

TEST(WakeOnBacklogPolicy, AChainOfMessagesBetweenActorsCompletes) {
  auto cfg = config_with(2);
  caf::actor_system system{cfg};
  caf::scoped_actor self{system};
  // A ring of four actors passes a countdown around; the last hop reports.
  constexpr int kHops = 50'000;
  auto next = std::make_shared<std::vector<caf::actor>>();
  caf::actor report{self};
  for (int i = 0; i < 4; ++i) {
    next->push_back(system.spawn([next, report, i](caf::event_based_actor* a) -> caf::behavior {
      return {[=](int left) {
        if (left == 0) {
          a->send(report, 0);
          return;
        }
        a->send((*next)[static_cast<std::size_t>((i + 1) % 4)], left - 1);
      }};
    }));
  }
  caf::anon_send(next->front(), kHops);
  EXPECT_TRUE(receive_n(self, 1)) << "the chain stopped";
  for (auto& a : *next) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  next->clear();
}

TEST(WakeOnBacklogPolicy, ABacklogBehindABusyWorkerWakesTheOther) {
  auto cfg = config_with(2);
  caf::actor_system system{cfg};
  caf::scoped_actor self{system};
  auto guard = std::make_shared<std::mutex>();
  auto threads = std::make_shared<std::set<std::thread::id>>();
  auto record_thread = [guard, threads] {
    std::lock_guard<std::mutex> lock(*guard);
    threads->insert(std::this_thread::get_id());
  };
  auto gate = std::make_shared<Gate>();
  // Keeps one worker busy until the backlog is queued behind it.
  auto busy = system.spawn([=](caf::event_based_actor*) -> caf::behavior {
    return {[=](int) {
      record_thread();
      gate->hold();
    }};
  });
  constexpr int kJobs = 64;
  std::vector<caf::actor> actors;
  for (int i = 0; i < kJobs; ++i) {
    actors.push_back(system.spawn([=, report = caf::actor{self}](caf::event_based_actor* a) -> caf::behavior {
      return {[=](int) {
        compute_for(1ms);
        record_thread();
        a->send(report, 0);
      }};
    }));
  }
  caf::anon_send(busy, 0);
  gate->wait_until_held();
  for (auto& a : actors) caf::anon_send(a, 0);
  gate->released.store(true);
  ASSERT_TRUE(receive_n(self, kJobs));
  std::lock_guard<std::mutex> lock(*guard);
  EXPECT_EQ(threads->size(), 2u) << "64 jobs queued behind a busy worker ran there while the other slept";
  caf::anon_send_exit(busy, caf::exit_reason::user_shutdown);
  for (auto& a : actors) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
}

TEST(WakeOnBacklogPolicy, AMessageQueuedBehindALongHandlerWakesASleepingWorker) {
  auto cfg = config_with(2);
  caf::actor_system system{cfg};
  caf::scoped_actor self{system};
  auto gate = std::make_shared<Gate>();
  caf::actor report{self};
  // Runs until released (or the deadline, which fails the test): only another worker
  // can run the releasing message meanwhile.
  auto long_handler = system.spawn([=](caf::event_based_actor* a) -> caf::behavior {
    return {[=](int) { a->send(report, gate->hold() ? 1 : 0); }};
  });
  auto releaser = system.spawn([=](caf::event_based_actor*) -> caf::behavior {
    return {[=](int) { gate->released.store(true); }};
  });
  caf::anon_send(long_handler, 0);
  gate->wait_until_held();
  // Past the policy's threshold, so that the handler no longer counts as about to end.
  compute_for(std::chrono::nanoseconds(WakeOnBacklogPolicy::kLongJobNs) * 5);
  caf::anon_send(releaser, 0);
  int result = -1;
  self->receive([&](int r) { result = r; }, caf::after(kDeadline) >> [] {});
  EXPECT_EQ(result, 1) << "the releasing message waited for the long handler to end";
  caf::anon_send_exit(long_handler, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(releaser, caf::exit_reason::user_shutdown);
}

}  // namespace
}  // namespace kueuepp::actors
