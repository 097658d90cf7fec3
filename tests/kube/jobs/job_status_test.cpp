#include "kube/jobs/job_status.hpp"

#include <gtest/gtest.h>

#include "fixtures.hpp"

namespace kueuepp::kube::jobs {
namespace {

using testing::object;

TEST(JobStatus, NotFinished) {
  EXPECT_FALSE(job_finished(object(testing::kJob)));
  EXPECT_FALSE(job_finished(object("status: {conditions: [{type: Complete, status: 'False'}]}")));
  EXPECT_FALSE(job_finished(object("status: {conditions: [{type: Suspended, status: 'True'}]}")));
}

TEST(JobStatus, Complete) {
  auto f = job_finished(object(
      "status: {conditions: [{type: Complete, status: 'True', message: Reached expected number of succeeded pods}]}"));
  ASSERT_TRUE(f);
  EXPECT_TRUE(f->succeeded);
  EXPECT_EQ(f->message, "Reached expected number of succeeded pods");
  EXPECT_EQ(f->workload_reason(), "Succeeded");
}

TEST(JobStatus, FailedWithMessage) {
  auto f = job_finished(object(R"(
status:
  conditions:
  - {type: FailureTarget, status: "True", message: x}
  - {type: Failed, status: "True", reason: BackoffLimitExceeded, message: Job has reached the specified backoff limit}
)"));
  ASSERT_TRUE(f);
  EXPECT_FALSE(f->succeeded);
  EXPECT_EQ(f->message, "Job has reached the specified backoff limit");
  EXPECT_EQ(f->workload_reason(), "Failed");
}

TEST(JobStatus, FirstTerminalConditionWins) {
  auto f = job_finished(object("status: {conditions: [{type: Complete, status: 'True'}, {type: Failed, status: 'True'}]}"));
  ASSERT_TRUE(f);
  EXPECT_TRUE(f->succeeded);
  EXPECT_EQ(f->message, "");
}

TEST(JobStatus, PodsReady) {
  client::Object job = object(testing::kJob);  // 3 pods
  EXPECT_FALSE(job_pods_ready(job));
  job.ensure({"status", "ready"}) = 2;
  EXPECT_FALSE(job_pods_ready(job));
  job.ensure({"status", "succeeded"}) = 1;
  EXPECT_TRUE(job_pods_ready(job));
  job.ensure({"status", "ready"}) = 1;
  job.ensure({"status", "uncountedTerminatedPods", "succeeded"}) = json::array{"a"};
  EXPECT_EQ(job_ready_or_succeeded_pods(job), 3);
  EXPECT_TRUE(job_pods_ready(job));
}

TEST(JobStatus, ZeroPodsAreAlwaysReady) {
  EXPECT_TRUE(job_pods_ready(object("spec: {parallelism: 0}")));
}

TEST(JobStatus, Active) {
  EXPECT_FALSE(job_active(object(testing::kJob)));
  EXPECT_TRUE(job_active(object("status: {active: 2}")));
  EXPECT_FALSE(job_active(object("status: {active: 0}")));
}

TEST(JobStatus, SuspendedUnlessStopping) {
  EXPECT_TRUE(job_suspended(object("spec: {suspend: true}")));
  EXPECT_FALSE(job_suspended(object("spec: {suspend: false}")));
  EXPECT_FALSE(job_suspended(object("spec: {}")));
  EXPECT_FALSE(job_suspended(object("metadata: {annotations: {kueue.x-k8s.io/stopping: 'true'}}\nspec: {suspend: true}")));
  EXPECT_TRUE(job_suspended(object("metadata: {annotations: {kueue.x-k8s.io/stopping: 'no'}}\nspec: {suspend: true}")));
}

TEST(JobStatus, ReclaimablePodsNonIndexed) {
  EXPECT_EQ(job_reclaimable_pods(object("spec: {parallelism: 3, completions: 5}\nstatus: {succeeded: 1}")), 0);
  EXPECT_EQ(job_reclaimable_pods(object("spec: {parallelism: 3, completions: 5}\nstatus: {succeeded: 3}")), 1);
  EXPECT_EQ(job_reclaimable_pods(object("spec: {parallelism: 3, completions: 5}\nstatus: {succeeded: 5}")), 3);
  EXPECT_EQ(job_reclaimable_pods(object("spec: {parallelism: 1, completions: 5}\nstatus: {succeeded: 4}")), 0);
  EXPECT_EQ(job_reclaimable_pods(object("spec: {parallelism: 3}\nstatus: {succeeded: 1}")), 1);
}

TEST(JobStatus, ReclaimablePodsIndexed) {
  // completions 6, parallelism 4; indexes 0-2 done and 5 failed: 2 remain, 2 reclaimable.
  EXPECT_EQ(job_reclaimable_pods(object(R"(
spec: {parallelism: 4, completions: 6, completionMode: Indexed}
status: {succeeded: 0, completedIndexes: "0-2", failedIndexes: "5"}
)")), 2);
  // Overlaps count once; out-of-range indexes and malformed intervals are ignored.
  EXPECT_EQ(job_reclaimable_pods(object(R"(
spec: {parallelism: 4, completions: 6, completionMode: Indexed}
status: {completedIndexes: "0-2,1-3,9,x,4-2", failedIndexes: ""}
)")), 2);
}

}  // namespace
}  // namespace kueuepp::kube::jobs
