// The job actor parameterised by the RayJob integration on CAF's test coordinator against
// the in-memory API server (fake_api.hpp): the RayJob gets one Workload with Kueue's pod
// sets (head, the worker group, submitter), is started with each pod set's flavor in its
// template, and when preempted is suspended with its templates restored, its quota
// released only once KubeRay reports it Suspended. A RayCluster the RayJob controls is not
// queued itself.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/actors/job_kind_actor_test.hpp"

namespace kueuepp::actors {
namespace {

using namespace messages;
using testing::yaml;

constexpr std::string_view kRayJob = R"(
apiVersion: ray.io/v1
kind: RayJob
metadata:
  name: rayjob-sample
  namespace: ns
  uid: uid-rj
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  suspend: true
  submissionMode: K8sJobMode
  shutdownAfterJobFinishes: true
  entrypoint: python /home/ray/samples/sample_code.py
  rayClusterSpec:
    headGroupSpec:
      template:
        spec:
          containers: [{name: ray-head, image: rayproject/ray:2.9.0, resources: {requests: {cpu: "1"}}}]
    workerGroupSpecs:
    - groupName: workers
      replicas: 2
      template:
        spec:
          containers: [{name: ray-worker, image: rayproject/ray:2.9.0, resources: {requests: {cpu: "1"}}}]
)";

constexpr std::string_view kAssignments = R"([
    {name: head, flavors: {cpu: on-demand}, resourceUsage: {cpu: "1"}, count: 1},
    {name: workers, flavors: {cpu: spot}, resourceUsage: {cpu: "2"}, count: 2},
    {name: submitter, flavors: {cpu: on-demand}, resourceUsage: {cpu: 500m}, count: 1}])";

class RayJobActorTest : public testing::JobKindActorTest {
 protected:
  void start() {
    put_local_queue();
    put_flavors();
    api_.put(ObjectKind::RayJob, yaml(kRayJob));
    spawn_links();
    JobIntegrationOptions options;
    options.frameworks = {"batch/job", "ray.io/rayjob"};
    rayjobs_ = spawn_kind("ray.io/rayjob", ObjectKind::RayJob, options);
    relist_all(rayjobs_, {ObjectKind::RayJob});
    sched_->run();
  }

  void deliver(ObjectKind kind, const std::string& name) { JobKindActorTest::deliver(rayjobs_, kind, "ns", name); }

  /// The head's (group < 0) or a worker group's nodeSelector (null when it has none).
  json::value node_selector(int group) {
    auto job = api_.get(ObjectKind::RayJob, "ns", "rayjob-sample");
    const json::value* tmpl = group < 0 ? job->find({"spec", "rayClusterSpec", "headGroupSpec", "template"})
                                        : json::find(job->find({"spec", "rayClusterSpec", "workerGroupSpecs"})
                                                         ->get_array()[static_cast<std::size_t>(group)],
                                                     "template");
    const json::value* found = json::find_path(*tmpl, {"spec", "nodeSelector"});
    return found != nullptr ? *found : json::value(nullptr);
  }

  job_actor rayjobs_;
};

TEST_F(RayJobActorTest, QueuedWithKueuesPodSetsStartedWithEachFlavorRestoredWhenPreempted) {
  start();
  auto workloads = api_.list(ObjectKind::Workload);
  ASSERT_EQ(workloads.size(), 1u);
  const auto& wl = *workloads.front();
  EXPECT_EQ(wl.controller_reference()->kind, "RayJob");
  const json::array& pod_sets = wl.find({"spec", "podSets"})->get_array();
  ASSERT_EQ(pod_sets.size(), 3u);
  EXPECT_EQ(pod_sets[0].at("name"), "head");
  EXPECT_EQ(pod_sets[1].at("name"), "workers");
  EXPECT_EQ(pod_sets[1].at("count"), 2);
  EXPECT_EQ(pod_sets[2].at("name"), "submitter");

  const std::string name(wl.name());
  deliver(ObjectKind::Workload, name);
  api_.change(ObjectKind::Workload, "ns", name, testing::admitted_status(kAssignments));
  deliver(ObjectKind::Workload, name);
  auto job = api_.get(ObjectKind::RayJob, "ns", "rayjob-sample");
  EXPECT_EQ(job->bool_at({"spec", "suspend"}), false);
  EXPECT_EQ(node_selector(-1), yaml("{instance-type: on-demand}"));
  EXPECT_EQ(node_selector(0), yaml("{instance-type: spot}"));
  EXPECT_EQ(*job->find({"spec", "submitterPodTemplate", "spec", "nodeSelector"}), yaml("{instance-type: on-demand}"));

  // Preempted while the cluster runs: suspended and restored, the quota held.
  api_.change(ObjectKind::RayJob, "ns", "rayjob-sample", yaml("{status: {jobDeploymentStatus: Running}}"));
  deliver(ObjectKind::RayJob, "rayjob-sample");
  api_.change(ObjectKind::Workload, "ns", name, testing::preempted_status());
  deliver(ObjectKind::Workload, name);
  job = api_.get(ObjectKind::RayJob, "ns", "rayjob-sample");
  EXPECT_EQ(job->bool_at({"spec", "suspend"}), true);
  EXPECT_EQ(node_selector(-1), json::value(nullptr));
  EXPECT_EQ(node_selector(0), json::value(nullptr));
  EXPECT_TRUE(api_.get(ObjectKind::Workload, "ns", name)->condition_true("QuotaReserved"));
  api_.change(ObjectKind::RayJob, "ns", "rayjob-sample", yaml("{status: {jobDeploymentStatus: Suspended}}"));
  deliver(ObjectKind::RayJob, "rayjob-sample");
  EXPECT_FALSE(api_.get(ObjectKind::Workload, "ns", name)->condition_true("QuotaReserved"));
}

// Kueue's parent rule: a RayCluster a queued RayJob controls runs under the RayJob's
// Workload and is not queued itself; a RayCluster of its own is.
class RayClusterActorTest : public testing::JobKindActorTest {
 protected:
  void start(std::vector<std::string> frameworks) {
    put_local_queue();
    api_.put(ObjectKind::RayCluster, yaml(R"({apiVersion: ray.io/v1, kind: RayCluster,
        metadata: {name: child, namespace: ns, uid: uid-child, labels: {kueue.x-k8s.io/queue-name: user-queue},
                   ownerReferences: [{apiVersion: ray.io/v1, kind: RayJob, name: rj, uid: uid-rj, controller: true}]},
        spec: {suspend: true, headGroupSpec: {template: {spec: {containers: [{name: head}]}}}}})"));
    api_.put(ObjectKind::RayCluster, yaml(R"({apiVersion: ray.io/v1, kind: RayCluster,
        metadata: {name: own, namespace: ns, uid: uid-own, labels: {kueue.x-k8s.io/queue-name: user-queue}},
        spec: {suspend: true, headGroupSpec: {template: {spec: {containers: [{name: head}]}}}}})"));
    spawn_links();
    JobIntegrationOptions options;
    options.frameworks = std::move(frameworks);
    auto clusters = spawn_kind("ray.io/raycluster", ObjectKind::RayCluster, options);
    relist_all(clusters, {ObjectKind::RayCluster});
    sched_->run();
  }

  /// The names of the RayClusters that own a Workload.
  std::vector<std::string> queued() {
    std::vector<std::string> out;
    for (const auto& wl : api_.list(ObjectKind::Workload)) out.emplace_back(wl->controller_reference()->name);
    std::sort(out.begin(), out.end());
    return out;
  }
};

TEST_F(RayClusterActorTest, OneARayJobControlsIsNotQueuedItself) {
  start({"batch/job", "ray.io/rayjob", "ray.io/raycluster"});
  EXPECT_EQ(queued(), std::vector<std::string>{"own"});
}

TEST_F(RayClusterActorTest, WithoutTheRayJobIntegrationBothAreQueued) {
  start({"batch/job", "ray.io/raycluster"});
  EXPECT_EQ(queued(), (std::vector<std::string>{"child", "own"}));
}

}  // namespace
}  // namespace kueuepp::actors
