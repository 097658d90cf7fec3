// The job actor parameterised by the JobSet integration, next to the batch/v1 Job actor,
// on CAF's test coordinator against the in-memory API server (fake_api.hpp): the JobSet
// gets one Workload with a pod set per replicated job, is started with each pod set's
// flavor in its replicated job's template, and its child Job is not queued by the Job
// actor (manageJobsWithoutQueueName and a default LocalQueue notwithstanding).

#include <caf/send.hpp>
#include <gtest/gtest.h>

#include <string>

#include "kube/jobs/jobset.hpp"
#include "tests/actors/job_kind_actor_test.hpp"

namespace kueuepp::actors {
namespace {

using namespace messages;
using testing::yaml;

constexpr std::string_view kJobSet = R"(
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: sleep-job
  namespace: ns
  uid: uid-js
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  suspend: true
  replicatedJobs:
  - name: workers
    replicas: 2
    template:
      spec:
        parallelism: 1
        completions: 1
        template:
          spec:
            containers: [{name: sleep, image: busybox, resources: {requests: {cpu: "1"}}}]
  - name: driver
    replicas: 1
    template:
      spec:
        parallelism: 1
        completions: 1
        template:
          spec:
            containers: [{name: sleep, image: busybox, resources: {requests: {cpu: "2"}}}]
)";

/// A child Job of the JobSet (no queue label: managed only by manageJobsWithoutQueueName).
constexpr std::string_view kChildJob = R"(
apiVersion: batch/v1
kind: Job
metadata:
  name: sleep-job-workers-0
  namespace: ns
  uid: uid-child
  ownerReferences:
  - {apiVersion: jobset.x-k8s.io/v1alpha2, kind: JobSet, name: sleep-job, uid: uid-js, controller: true}
spec:
  parallelism: 1
  template:
    spec:
      restartPolicy: Never
      containers: [{name: sleep, image: busybox}]
)";

constexpr std::string_view kAssignments = R"([
    {name: workers, flavors: {cpu: spot}, resourceUsage: {cpu: "2"}, count: 2},
    {name: driver, flavors: {cpu: on-demand}, resourceUsage: {cpu: "2"}, count: 1}])";

class JobSetActorTest : public testing::JobKindActorTest {
 protected:
  void start() {
    put_local_queue("user-queue");
    put_local_queue("default");
    put_flavors();
    api_.put(ObjectKind::JobSet, yaml(kJobSet));
    api_.put(ObjectKind::Job, yaml(kChildJob));
    spawn_links();
    JobIntegrationOptions options;
    options.manage_jobs_without_queue_name = true;
    options.frameworks = frameworks_;
    jobs_ = spawn_kind({}, ObjectKind::Job, options);
    jobsets_ = spawn_kind(kube::jobs::kJobSetFramework, ObjectKind::JobSet, options);
    relist_all(jobs_, {ObjectKind::Job});
    relist_all(jobsets_, {ObjectKind::JobSet});
    sched_->run();
  }

  /// Both actors see the Workload's current version (the controller's watch feeds both).
  void deliver_workload(const std::string& name) {
    caf::anon_send(jobs_, api_.watch_event(ObjectKind::Workload, "ns", name));
    caf::anon_send(jobsets_, api_.watch_event(ObjectKind::Workload, "ns", name));
    sched_->run();
  }

  std::vector<std::string> frameworks_ = {"batch/job", "jobset.x-k8s.io/jobset"};
  job_actor jobs_;
  job_actor jobsets_;
};

TEST_F(JobSetActorTest, TheJobSetIsQueuedAndStartedWithEachPodSetsFlavorItsChildIsNot) {
  start();
  auto workloads = api_.list(ObjectKind::Workload);
  ASSERT_EQ(workloads.size(), 1u) << "only the JobSet is queued";
  const auto& wl = *workloads.front();
  EXPECT_EQ(wl.controller_reference()->kind, "JobSet");
  const json::array& pod_sets = wl.find({"spec", "podSets"})->get_array();
  ASSERT_EQ(pod_sets.size(), 2u);
  EXPECT_EQ(pod_sets[0].at("name"), "workers");
  EXPECT_EQ(pod_sets[0].at("count"), 2);
  EXPECT_EQ(pod_sets[1].at("name"), "driver");
  // The child Job was left as it was: not suspended, no Workload.
  EXPECT_FALSE(api_.get(ObjectKind::Job, "ns", "sleep-job-workers-0")->bool_at({"spec", "suspend"}).value_or(false));

  const std::string name(wl.name());
  deliver_workload(name);
  api_.change(ObjectKind::Workload, "ns", name, testing::admitted_status(kAssignments));
  deliver_workload(name);
  auto js = api_.get(ObjectKind::JobSet, "ns", "sleep-job");
  EXPECT_EQ(js->bool_at({"spec", "suspend"}), false);
  const json::array& rjobs = js->find({"spec", "replicatedJobs"})->get_array();
  EXPECT_EQ(*json::find_path(rjobs[0], {"template", "spec", "template", "spec", "nodeSelector"}),
            yaml("{instance-type: spot}"));
  EXPECT_EQ(*json::find_path(rjobs[1], {"template", "spec", "template", "spec", "nodeSelector"}),
            yaml("{instance-type: on-demand}"));
  EXPECT_EQ(api_.list(ObjectKind::Workload).size(), 1u);
}

TEST_F(JobSetActorTest, PreemptedItIsSuspendedWithItsTemplatesRestoredThenItsQuotaReleased) {
  start();
  const std::string name(api_.list(ObjectKind::Workload).front()->name());
  deliver_workload(name);
  api_.change(ObjectKind::Workload, "ns", name, testing::admitted_status(kAssignments));
  deliver_workload(name);
  ASSERT_EQ(api_.get(ObjectKind::JobSet, "ns", "sleep-job")->bool_at({"spec", "suspend"}), false);
  // A child Job still has a pod running: the quota waits for it.
  api_.change(ObjectKind::JobSet, "ns", "sleep-job",
              yaml("{status: {replicatedJobsStatus: [{name: workers, active: 1, ready: 1, succeeded: 0, failed: 0, "
                   "suspended: 0}]}}"));
  caf::anon_send(jobsets_, api_.watch_event(ObjectKind::JobSet, "ns", "sleep-job"));
  api_.change(ObjectKind::Workload, "ns", name, testing::preempted_status());
  deliver_workload(name);
  auto js = api_.get(ObjectKind::JobSet, "ns", "sleep-job");
  EXPECT_EQ(js->bool_at({"spec", "suspend"}), true);
  for (const json::value& rjob : js->find({"spec", "replicatedJobs"})->get_array()) {
    EXPECT_EQ(json::find_path(rjob, {"template", "spec", "template", "spec", "nodeSelector"}), nullptr);
  }
  EXPECT_TRUE(api_.get(ObjectKind::Workload, "ns", name)->condition_true("QuotaReserved"));
  // Its pods gone, the eviction completes: the quota is released.
  api_.change(ObjectKind::JobSet, "ns", "sleep-job",
              yaml("{status: {replicatedJobsStatus: [{name: workers, active: 0, ready: 0, succeeded: 0, failed: 0, "
                   "suspended: 0}]}}"));
  caf::anon_send(jobsets_, api_.watch_event(ObjectKind::JobSet, "ns", "sleep-job"));
  sched_->run();
  EXPECT_FALSE(api_.get(ObjectKind::Workload, "ns", name)->condition_true("QuotaReserved"));
}

TEST_F(JobSetActorTest, WithJobSetsNotIntegratedTheChildIsAJobLikeAnyOther) {
  frameworks_ = {"batch/job"};
  start();
  // The Job actor now holds the child (manageJobsWithoutQueueName, default LocalQueue);
  // the JobSet actor, not asked for, would not have been spawned by the controller.
  EXPECT_TRUE(api_.get(ObjectKind::Job, "ns", "sleep-job-workers-0")->bool_at({"spec", "suspend"}).value_or(false));
}

}  // namespace
}  // namespace kueuepp::actors
