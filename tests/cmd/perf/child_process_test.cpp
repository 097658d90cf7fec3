#include "cmd/perf/child_process.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

namespace kueuepp::cmd::perf {
namespace {

TEST(ChildProcess, ParsesProcStatTimesPastACommandWithSpaces) {
  // Fields: pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
  auto t = parse_proc_stat_times("4242 (kueue pp) S 1 4242 4242 0 -1 4194560 1200 0 3 0 731 129 0 0 20 0 9 0 100");
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->first, 731);
  EXPECT_EQ(t->second, 129);
  EXPECT_FALSE(parse_proc_stat_times("4242 (x) S 1 2"));
  EXPECT_FALSE(parse_proc_stat_times("garbage"));
}

TEST(ChildProcess, ParsesProcStatusSizes) {
  const char* status = "Name:\tkueuepp\nVmPeak:\t  900000 kB\nVmHWM:\t   61234 kB\nVmRSS:\t   50000 kB\nThreads:\t7\n";
  EXPECT_EQ(parse_proc_status_kib(status, "VmHWM"), 61234);
  EXPECT_EQ(parse_proc_status_kib(status, "VmRSS"), 50000);
  EXPECT_EQ(parse_proc_status_kib(status, "Threads"), 7);
  EXPECT_FALSE(parse_proc_status_kib(status, "VmSwap"));
  EXPECT_FALSE(parse_proc_status_kib(status, "Vm"));
}

TEST(ChildProcess, ReadsItsOwnUsage) {
  auto u = read_process_usage(::getpid());
  ASSERT_TRUE(u) << u.error().message;
  EXPECT_GT(u->peak_rss_kib, 0);
  EXPECT_GE(u->threads, 1);
}

TEST(ChildProcess, CountsTheContextSwitchesOfEveryThread) {
  auto before = read_process_usage(::getpid());
  ASSERT_TRUE(before) << before.error().message;
  // A second thread sleeps twenty times (a voluntary switch each) and reads the figures
  // while it is alive; the main thread, waiting for it, switches once or twice. Counting
  // the main thread's /proc/PID/status alone would miss the twenty.
  std::int64_t by_pid = 0;
  std::int64_t by_self = 0;
  std::thread sleeper([&] {
    for (int i = 0; i < 20; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (auto u = read_process_usage(::getpid())) by_pid = u->voluntary_switches;
    by_self = self_usage().voluntary_switches;
  });
  sleeper.join();
  EXPECT_GE(by_pid, before->voluntary_switches + 20) << "read_process_usage missed the other thread's switches";
  EXPECT_GE(by_self, before->voluntary_switches + 20) << "self_usage missed the other thread's switches";
}

TEST(ChildProcess, SpawnsLogsAndStopsAChild) {
  auto log = (std::filesystem::temp_directory_path() / ("perf-child-" + std::to_string(::getpid()) + ".log")).string();
  auto p = ChildProcess::spawn("sleeper", "/bin/sh", {"-c", "echo started; exec sleep 30"}, log);
  ASSERT_TRUE(p) << p.error().message;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (tail_file(log, 1).find("started") == std::string::npos && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(tail_file(log, 1), "    started\n");
  EXPECT_TRUE((*p)->running());
  EXPECT_TRUE(read_process_usage((*p)->pid()));
  std::string how = (*p)->stop(std::chrono::seconds(5));
  EXPECT_EQ(how, "killed by signal 15 (Terminated)");
  EXPECT_TRUE((*p)->ended_cleanly());
  EXPECT_FALSE((*p)->running());
  std::filesystem::remove(log);
}

TEST(ChildProcess, ReportsAFailingChild) {
  auto log = (std::filesystem::temp_directory_path() / ("perf-child-fail-" + std::to_string(::getpid()) + ".log")).string();
  auto p = ChildProcess::spawn("failer", "/bin/sh", {"-c", "exit 3"}, log);
  ASSERT_TRUE(p);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while ((*p)->running() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ((*p)->exit_description(), "exited with status 3");
  EXPECT_FALSE((*p)->ended_cleanly());
  std::filesystem::remove(log);
}

}  // namespace
}  // namespace kueuepp::cmd::perf
