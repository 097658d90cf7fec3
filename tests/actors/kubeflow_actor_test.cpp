// The job actor parameterised by a Kubeflow integration (PyTorchJob) on CAF's test
// coordinator against the in-memory API server (fake_api.hpp): the PyTorchJob gets one
// Workload with Kueue's pod sets (master, worker), is started with each pod set's flavor
// in its replica's template, and when preempted is suspended with its templates restored,
// its quota released only once no replica has active pods.

#include <caf/send.hpp>
#include <gtest/gtest.h>

#include <string>

#include "actors/event_recorder.hpp"
#include "actors/introspection_actor.hpp"
#include "actors/job_actor.hpp"
#include "actors/watched_kinds.hpp"
#include "actors/writer_actor.hpp"
#include "kube/json/yaml.hpp"
#include "tests/actors/deterministic_actor_test.hpp"
#include "tests/actors/fake_api.hpp"

namespace kueuepp::actors {
namespace {

using namespace messages;

json::value yaml(std::string_view text) {
  auto v = json::parse_yaml(text);
  EXPECT_TRUE(v.has_value()) << (v ? "" : v.error().message);
  return v ? *v : json::value(nullptr);
}

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

constexpr std::string_view kAdmitted = R"(
status:
  admission:
    clusterQueue: cq
    podSetAssignments:
    - {name: master, flavors: {cpu: on-demand}, resourceUsage: {cpu: "1"}, count: 1}
    - {name: worker, flavors: {cpu: spot}, resourceUsage: {cpu: "2"}, count: 2}
  conditions:
  - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}
  - {type: Admitted, status: "True", reason: Admitted, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}
)";

constexpr std::string_view kEvicted = R"(
status:
  conditions:
  - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}
  - {type: Admitted, status: "True", reason: Admitted, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}
  - {type: Evicted, status: "True", reason: Preempted, message: preempted, lastTransitionTime: "2026-01-01T00:01:00Z"}
)";

class KubeflowActorTest : public DeterministicActorTest {
 protected:
  ~KubeflowActorTest() override {
    caf::anon_send_exit(pytorchjobs_, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(events_, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(writer_, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(introspection_, caf::exit_reason::user_shutdown);
    sched_->run();
  }

  void start() {
    api_.put(ObjectKind::LocalQueue, yaml("{apiVersion: kueue.x-k8s.io/v1beta2, kind: LocalQueue, metadata: {name: "
                                          "user-queue, namespace: ns}, spec: {clusterQueue: cq}}"));
    api_.put(ObjectKind::ResourceFlavor, yaml(R"({apiVersion: kueue.x-k8s.io/v1beta2, kind: ResourceFlavor,
        metadata: {name: on-demand}, spec: {nodeLabels: {instance-type: on-demand}}})"));
    api_.put(ObjectKind::ResourceFlavor, yaml(R"({apiVersion: kueue.x-k8s.io/v1beta2, kind: ResourceFlavor,
        metadata: {name: spot}, spec: {nodeLabels: {instance-type: spot}}})"));
    api_.put(ObjectKind::PyTorchJob, yaml(kPyTorchJob));
    auto& sys = *system_;
    introspection_ = spawn_introspection(sys);
    writer_ = spawn_writer(sys, api_.transport(), WriterOptions{4});
    auto clock = [] { return core::Time{}; };
    events_ = spawn_event_recorder(sys, writer_, introspection_, clock);
    JobIntegrationOptions options;
    options.frameworks = {"batch/job", "kubeflow.org/pytorchjob"};
    const JobLinks links{writer_, introspection_, events_, metrics_actor{}};
    auto entry = find_job_kind("kubeflow.org/pytorchjob");
    EXPECT_TRUE(entry.has_value());
    EXPECT_EQ(entry->tag, ObjectKind::PyTorchJob);
    pytorchjobs_ = spawn_job_actor(sys, options, links, clock, false, JobKind{&entry->integration(), entry->tag});
    for (ObjectKind k : {ObjectKind::Workload, ObjectKind::ResourceFlavor, ObjectKind::LocalQueue,
                         ObjectKind::WorkloadPriorityClass, ObjectKind::PriorityClass, ObjectKind::PyTorchJob}) {
      auto listed = api_.list(k);
      caf::anon_send(pytorchjobs_,
                     ObjectsRelisted{k, std::make_shared<const std::vector<CachedObject>>(listed.begin(), listed.end())});
    }
    sched_->run();
  }

  void deliver(ObjectKind kind, const std::string& name) {
    caf::anon_send(pytorchjobs_, api_.watch_event(kind, "ns", name));
    sched_->run();
  }

  /// The replica's nodeSelector (null when it has none).
  json::value node_selector(std::string_view replica_type) {
    auto job = api_.get(ObjectKind::PyTorchJob, "ns", "pytorch-simple");
    const json::value* found = job->find({"spec", "pytorchReplicaSpecs", replica_type, "template", "spec", "nodeSelector"});
    return found != nullptr ? *found : json::value(nullptr);
  }

  testing::FakeApi api_;
  introspection_actor introspection_;
  writer_actor writer_;
  event_recorder_actor events_;
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
  api_.change(ObjectKind::Workload, "ns", name, yaml(kAdmitted));
  deliver(ObjectKind::Workload, name);
  auto job = api_.get(ObjectKind::PyTorchJob, "ns", "pytorch-simple");
  EXPECT_EQ(job->bool_at({"spec", "runPolicy", "suspend"}), false);
  EXPECT_EQ(node_selector("Master"), yaml("{instance-type: on-demand}"));
  EXPECT_EQ(node_selector("Worker"), yaml("{instance-type: spot}"));

  // Preempted while a worker still runs: suspended and restored, the quota held.
  api_.change(ObjectKind::PyTorchJob, "ns", "pytorch-simple", yaml("{status: {replicaStatuses: {Worker: {active: 1}}}}"));
  deliver(ObjectKind::PyTorchJob, "pytorch-simple");
  api_.change(ObjectKind::Workload, "ns", name, yaml(kEvicted));
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
