#include "cmd/standalone/running_jobs.hpp"

#include <gtest/gtest.h>

#include <memory>

#include "cmd/standalone/job_runner.hpp"

namespace kueuepp::cmd {
namespace {

using std::chrono::milliseconds;

/// A completion timer that notes whether it was cancelled, and how many were begun.
struct Timers {
  int begun = 0;
  std::vector<std::shared_ptr<bool>> cancelled;

  std::function<kube::client::CancelHandle()> begin() {
    return [this] {
      ++begun;
      auto flag = std::make_shared<bool>(false);
      cancelled.push_back(flag);
      return kube::client::CancelHandle([flag] { *flag = true; });
    };
  }
};

TEST(RunningJobs, AJobRunsOnceForItsUid) {
  RunningJobs running;
  Timers timers;
  EXPECT_TRUE(running.start("ns/a", "u1", timers.begin()));
  EXPECT_FALSE(running.start("ns/a", "u1", timers.begin()));  // an update of the running job
  EXPECT_EQ(timers.begun, 1);
  EXPECT_EQ(running.size(), 1u);
  EXPECT_FALSE(*timers.cancelled[0]);
}

TEST(RunningJobs, AJobCreatedAgainUnderItsNameStartsOverAndTheOldRunNeverCompletes) {
  RunningJobs running;
  Timers timers;
  running.start("ns/a", "u1", timers.begin());
  EXPECT_TRUE(running.start("ns/a", "u2", timers.begin()));
  EXPECT_EQ(timers.begun, 2);
  EXPECT_TRUE(*timers.cancelled[0]);
  EXPECT_FALSE(running.finish("ns/a", "u1"));
  EXPECT_TRUE(running.finish("ns/a", "u2"));
}

TEST(RunningJobs, ACompletionCountsOnceAndOnlyForTheRunningUid) {
  RunningJobs running;
  Timers timers;
  running.start("ns/a", "u1", timers.begin());
  EXPECT_FALSE(running.finish("ns/a", "u0"));
  EXPECT_FALSE(running.finish("ns/b", "u1"));
  EXPECT_TRUE(running.finish("ns/a", "u1"));
  EXPECT_FALSE(running.finish("ns/a", "u1"));
  EXPECT_EQ(running.size(), 0u);
  // Finished, it may run again (the job resumed after an eviction that came late).
  EXPECT_TRUE(running.start("ns/a", "u1", timers.begin()));
}

TEST(RunningJobs, ACancelledRunStopsItsTimerAndNeverCompletes) {
  RunningJobs running;
  Timers timers;
  running.start("ns/a", "u1", timers.begin());
  EXPECT_TRUE(running.cancel("ns/a"));
  EXPECT_TRUE(*timers.cancelled[0]);
  EXPECT_FALSE(running.finish("ns/a", "u1"));
  EXPECT_TRUE(running.cancel("ns/never-started"));  // a job suspended from creation
  EXPECT_TRUE(running.start("ns/a", "u1", timers.begin()));  // resumed: starts over
  EXPECT_EQ(timers.begun, 2);
}

TEST(RunningJobs, OnceClosedNothingStartsStopsOrCompletes) {
  RunningJobs running;
  Timers timers;
  running.start("ns/a", "u1", timers.begin());
  running.start("ns/b", "u2", timers.begin());
  EXPECT_FALSE(running.closed());
  running.close();
  EXPECT_TRUE(running.closed());
  EXPECT_TRUE(*timers.cancelled[0]);
  EXPECT_TRUE(*timers.cancelled[1]);
  EXPECT_EQ(running.size(), 0u);
  EXPECT_FALSE(running.finish("ns/a", "u1"));
  EXPECT_FALSE(running.cancel("ns/b"));
  EXPECT_FALSE(running.start("ns/c", "u3", timers.begin()));
  EXPECT_EQ(timers.begun, 2);
}

TEST(JobRunnerOptions, ARunLastsWhatTheJobAsksOrTheDefaultUnderTheTimeScale) {
  JobRunnerOptions options;
  options.default_duration = milliseconds(10'000);
  EXPECT_EQ(options.run_time(std::nullopt), milliseconds(10'000));
  EXPECT_EQ(options.run_time(milliseconds(3'000)), milliseconds(3'000));
  options.time_scale = 10;
  EXPECT_EQ(options.run_time(std::nullopt), milliseconds(1'000));
  EXPECT_EQ(options.run_time(milliseconds(3'000)), milliseconds(300));
}

}  // namespace
}  // namespace kueuepp::cmd
