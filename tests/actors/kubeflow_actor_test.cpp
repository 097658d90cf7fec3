// The job actor parameterised by a Kubeflow integration (PyTorchJob) on CAF's test
// coordinator against the in-memory API server (fake_api.hpp): the PyTorchJob gets one
// Workload with Kueue's pod sets (master, worker), is started with each pod set's flavor
// in its replica's template, and when preempted is suspended with its templates restored,
// its quota released only once no replica has active pods.

#include <gtest/gtest.h>

#include <string>

#include "tests/actors/job_kind_actor_test.hpp"

namespace kueuepp::actors {
namespace {

using namespace messages;
using testing::yaml;

constexpr std::string_view kPyTorchJob = R"(
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: pytorch-simple
  namespace: ns
  uid: uid-pt
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  runPolicy: {suspend: true}
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers: [{name: pytorch, image: busybox, resources: {requests: {cpu: "1"}}}]
    Master:
      replicas: 1
      template:
        spec:
          containers: [{name: pytorch, image: busybox, resources: {requests: {cpu: "1"}}}]
)";

constexpr std::string_view kAssignments = R"([
    {name: master, flavors: {cpu: on-demand}, resourceUsage: {cpu: "1"}, count: 1},
    {name: worker, flavors: {cpu: spot}, resourceUsage: {cpu: "2"}, count: 2}])";

class KubeflowActorTest : public testing::JobKindActorTest {
 protected:
  void start() {
    put_local_queue();
    put_flavors();
    api_.put(ObjectKind::PyTorchJob, yaml(kPyTorchJob));
    spawn_links();
    JobIntegrationOptions options;
    options.frameworks = {"batch/job", "kubeflow.org/pytorchjob"};
    pytorchjobs_ = spawn_kind("kubeflow.org/pytorchjob", ObjectKind::PyTorchJob, options);
    relist_all(pytorchjobs_, {ObjectKind::PyTorchJob});
    sched_->run();
  }

  void deliver(ObjectKind kind, const std::string& name) { JobKindActorTest::deliver(pytorchjobs_, kind, "ns", name); }

  /// The replica's nodeSelector (null when it has none).
  json::value node_selector(std::string_view replica_type) {
    auto job = api_.get(ObjectKind::PyTorchJob, "ns", "pytorch-simple");
    const json::value* found = job->find({"spec", "pytorchReplicaSpecs", replica_type, "template", "spec", "nodeSelector"});
    return found != nullptr ? *found : json::value(nullptr);
  }

  job_actor pytorchjobs_;
};

TEST_F(KubeflowActorTest, QueuedWithKueuesPodSetsStartedWithEachFlavorRestoredWhenPreempted) {
  start();
  auto workloads = api_.list(ObjectKind::Workload);
  ASSERT_EQ(workloads.size(), 1u);
  const auto& wl = *workloads.front();
  EXPECT_EQ(wl.controller_reference()->kind, "PyTorchJob");
  const json::array& pod_sets = wl.find({"spec", "podSets"})->get_array();
  ASSERT_EQ(pod_sets.size(), 2u);
  EXPECT_EQ(pod_sets[0].at("name"), "master");  // Kueue's order, not the map's
  EXPECT_EQ(pod_sets[1].at("name"), "worker");
  EXPECT_EQ(pod_sets[1].at("count"), 2);

  const std::string name(wl.name());
  deliver(ObjectKind::Workload, name);
  api_.change(ObjectKind::Workload, "ns", name, testing::admitted_status(kAssignments));
  deliver(ObjectKind::Workload, name);
  auto job = api_.get(ObjectKind::PyTorchJob, "ns", "pytorch-simple");
  EXPECT_EQ(job->bool_at({"spec", "runPolicy", "suspend"}), false);
  EXPECT_EQ(node_selector("Master"), yaml("{instance-type: on-demand}"));
  EXPECT_EQ(node_selector("Worker"), yaml("{instance-type: spot}"));

  // Preempted while a worker still runs: suspended and restored, the quota held.
  api_.change(ObjectKind::PyTorchJob, "ns", "pytorch-simple", yaml("{status: {replicaStatuses: {Worker: {active: 1}}}}"));
  deliver(ObjectKind::PyTorchJob, "pytorch-simple");
  api_.change(ObjectKind::Workload, "ns", name, testing::preempted_status());
  deliver(ObjectKind::Workload, name);
  job = api_.get(ObjectKind::PyTorchJob, "ns", "pytorch-simple");
  EXPECT_EQ(job->bool_at({"spec", "runPolicy", "suspend"}), true);
  EXPECT_EQ(node_selector("Master"), json::value(nullptr));
  EXPECT_EQ(node_selector("Worker"), json::value(nullptr));
  EXPECT_TRUE(api_.get(ObjectKind::Workload, "ns", name)->condition_true("QuotaReserved"));
  api_.change(ObjectKind::PyTorchJob, "ns", "pytorch-simple", yaml("{status: {replicaStatuses: {Worker: {active: 0}}}}"));
  deliver(ObjectKind::PyTorchJob, "pytorch-simple");
  EXPECT_FALSE(api_.get(ObjectKind::Workload, "ns", name)->condition_true("QuotaReserved"));
}

}  // namespace
}  // namespace kueuepp::actors
