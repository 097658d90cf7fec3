// The Linux side of CPU placement, on this machine: the counters move the right way and
// every thread of the process follows a placement.

#include "actors/cpu_affinity.hpp"

#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace kueuepp::actors {
namespace {

TEST(CpuAffinity, CountersAdvanceOverAWindow) {
  auto cpus = allowed_cpus();
  ASSERT_TRUE(cpus) << cpus.error().message;
  ASSERT_FALSE(cpus->empty());
  auto before = read_cpu_counters(*cpus);
  ASSERT_TRUE(before) << before.error().message;
  ASSERT_EQ(before->idle_seconds.size(), cpus->size());
  // Burn some CPU so the process time moves.
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(30);
  volatile unsigned spin = 0;
  while (std::chrono::steady_clock::now() < until) spin = spin + 1;
  auto after = read_cpu_counters(*cpus);
  ASSERT_TRUE(after) << after.error().message;
  const CpuWindow w = window_between(*before, *after);
  EXPECT_GE(w.seconds, 0.03);
  EXPECT_GT(w.cpu_seconds, 0.0);
  ASSERT_EQ(w.idle_seconds.size(), cpus->size());
  for (double idle : w.idle_seconds) EXPECT_GE(idle, 0.0);
}

TEST(CpuAffinity, EveryThreadFollowsAPlacement) {
  auto cpus = allowed_cpus();
  ASSERT_TRUE(cpus) << cpus.error().message;
  // Another thread, alive across the placement.
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::atomic<int> other_tid{0};
  std::thread other([&] {
    other_tid = static_cast<int>(syscall(SYS_gettid));
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return done; });
  });
  while (other_tid == 0) std::this_thread::yield();
  const std::vector<int> one = {cpus->back()};
  ASSERT_TRUE(set_process_cpus(one));
  auto mine = thread_cpus(0);
  auto theirs = thread_cpus(other_tid);
  ASSERT_TRUE(mine && theirs);
  EXPECT_EQ(*mine, one);
  EXPECT_EQ(*theirs, one);
  ASSERT_TRUE(set_process_cpus(*cpus));  // back as it was
  EXPECT_EQ(*thread_cpus(other_tid), *cpus);
  {
    std::lock_guard lock(m);
    done = true;
  }
  cv.notify_one();
  other.join();
  EXPECT_EQ(*allowed_cpus(), *cpus);
}

TEST(CpuAffinity, AnEmptyPlacementIsAnError) {
  auto placed = set_process_cpus({});
  ASSERT_FALSE(placed);
  EXPECT_NE(placed.error().message.find("no CPU"), std::string::npos);
}

}  // namespace
}  // namespace kueuepp::actors
