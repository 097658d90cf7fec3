// Protocol tests of the job actor on CAF's test coordinator, against an in-memory API
// server (fake_api.hpp) whose watch the test plays: the actor must act on the newest
// version it has seen (its watch and the answers to its own writes arrive in no common
// order), and every failed write must be tried again, on objects read afresh, for as
// long as it fails.

#include <caf/send.hpp>
#include <gtest/gtest.h>

#include <string>

#include "tests/actors/job_kind_actor_test.hpp"

namespace kueuepp::actors {
namespace {

using namespace messages;
using testing::yaml;

constexpr std::string_view kJob = R"(
apiVersion: batch/v1
kind: Job
metadata:
  name: sample-job
  namespace: ns
  uid: uid-job
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  parallelism: 1
  completions: 1
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        resources:
          requests: {cpu: "1"}
)";

constexpr std::string_view kAssignments = R"([{name: main, flavors: {cpu: on-demand}, resourceUsage: {cpu: "1"}, count: 1}])";

bool is_start(const WriteRequest& r) {
  return r.kind == ObjectKind::Job && r.verb == WriteVerb::MergePatch && r.body &&
         json::dump(*r.body).find(R"("suspend":false)") != std::string::npos;
}

bool is_get_of_job(const WriteRequest& r) { return r.kind == ObjectKind::Job && r.verb == WriteVerb::Get; }

class JobActorTest : public testing::JobKindActorTest {
 protected:
  /// The decision clock follows the test coordinator's.
  core::Time now() const {
    auto base = core::parse_rfc3339("2026-01-01T00:00:00Z");
    return (base ? *base : core::Time{}) +
           std::chrono::duration_cast<std::chrono::microseconds>(sched_->clock().current_time - start_);
  }

  void start() {
    start_ = sched_->clock().current_time;
    put_local_queue();
    put_flavors({"on-demand"});
    api_.put(ObjectKind::Job, yaml(kJob));
    spawn_links([this] { return now(); });
    job_ = spawn_kind({}, ObjectKind::Job, JobIntegrationOptions{});
    relist_all(job_, {ObjectKind::Job});
    run();
  }

  /// Runs every message, then lets `seconds` pass in steps of 100 ms (timers fire).
  void run(int seconds = 0) {
    sched_->run();
    for (int i = 0; i < seconds * 10; ++i) {
      sched_->clock().advance_time(std::chrono::milliseconds(100));
      sched_->run();
    }
  }

  std::string workload_name() {
    auto all = api_.list(ObjectKind::Workload);
    EXPECT_EQ(all.size(), 1u);
    return all.empty() ? std::string() : std::string(all.front()->name());
  }

  /// The job actor's Workload, created, then admitted on the server and seen on the watch;
  /// the Job then starts. Returns the admitted version's watch event.
  ObjectChanged admit() {
    const std::string wl = workload_name();
    caf::anon_send(job_, api_.watch_event(ObjectKind::Workload, "ns", wl));
    api_.change(ObjectKind::Workload, "ns", wl, testing::admitted_status(kAssignments));
    ObjectChanged admitted = api_.watch_event(ObjectKind::Workload, "ns", wl);
    caf::anon_send(job_, admitted);
    run();
    return admitted;
  }

  bool job_suspended() const {
    return api_.get(ObjectKind::Job, "ns", "sample-job")->bool_at({"spec", "suspend"}).value_or(false);
  }

  caf::actor_clock::time_point start_{};
  job_actor job_;
};

TEST_F(JobActorTest, AJobIsNeverStartedFromAVersionOlderThanOneItHasSeen) {
  start();
  ObjectChanged admitted = admit();
  ASSERT_FALSE(job_suspended()) << "started on the admitted version";
  // Preempted: the Job is stopped and the quota released, each step computed from the
  // answer of the one before (the watch lags and delivers none of them).
  const std::string wl = workload_name();
  api_.change(ObjectKind::Workload, "ns", wl, testing::preempted_status());
  caf::anon_send(job_, api_.watch_event(ObjectKind::Workload, "ns", wl));
  run();
  ASSERT_TRUE(job_suspended());
  ObjectPtr released = api_.get(ObjectKind::Workload, "ns", wl);
  ASSERT_FALSE(released->condition_true("QuotaReserved")) << "the quota was released once the Job stopped";
  // The lagging watch now delivers the admitted version again: older than what the
  // actor saw, it is not acted on.
  caf::anon_send(job_, admitted);
  run(3);
  EXPECT_TRUE(job_suspended()) << "started from an admission already withdrawn";
  EXPECT_EQ(api_.count(is_start), 1u);
}

TEST_F(JobActorTest, AConflictThatNoNewerObjectFollowsIsSettledByReadingAgain) {
  // A proxy or webhook may answer 409 where the API server would not: no newer version
  // comes on the watch, and the Job must not wait for one forever.
  start();
  WriteOutcome conflict;
  conflict.http_status = 409;
  conflict.reason = "Conflict";
  api_.add_fault({is_start, conflict});
  admit();
  EXPECT_TRUE(job_suspended());
  run(2);
  EXPECT_GE(api_.count(is_get_of_job, /*applied_only=*/false), 1u) << "the Job is read afresh";
  EXPECT_FALSE(job_suspended());
}

TEST_F(JobActorTest, AFailingWriteIsTriedAgainForAsLongAsItFails) {
  // A blackout: twenty answers of 503 in a row (the actor used to give up after twelve).
  start();
  WriteOutcome unavailable;
  unavailable.http_status = 503;
  unavailable.reason = "ServiceUnavailable";
  for (int i = 0; i < 20; ++i) api_.add_fault({is_start, unavailable});
  admit();
  EXPECT_TRUE(job_suspended());
  run(600);
  EXPECT_FALSE(job_suspended());
  EXPECT_EQ(api_.count(is_start, /*applied_only=*/false), 21u) << "one attempt per pause, no more";
}

TEST_F(JobActorTest, AStartWhoseAnswerWasLostIsReadBackNotRepeated) {
  start();
  api_.add_fault({is_start, std::nullopt});  // applied, answer lost
  admit();
  EXPECT_FALSE(job_suspended());
  run(3);
  EXPECT_GE(api_.count(is_get_of_job, /*applied_only=*/false), 1u);
  EXPECT_EQ(api_.count(is_start, /*applied_only=*/false), 1u) << "the read showed it running";
}

}  // namespace
}  // namespace kueuepp::actors
