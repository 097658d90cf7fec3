// The job actor parameterised by the RayJob integration on CAF's test coordinator against
// the in-memory API server (fake_api.hpp): the RayJob gets one Workload with Kueue's pod
// sets (head, the worker group, submitter), is started with each pod set's flavor in its
// template, and when preempted is suspended with its templates restored, its quota
// released only once KubeRay reports it Suspended. A RayCluster the RayJob controls is not
// queued itself.

#include <caf/send.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

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

constexpr std::string_view kAdmitted = R"(
status:
  admission:
    clusterQueue: cq
    podSetAssignments:
    - {name: head, flavors: {cpu: on-demand}, resourceUsage: {cpu: "1"}, count: 1}
    - {name: workers, flavors: {cpu: spot}, resourceUsage: {cpu: "2"}, count: 2}
    - {name: submitter, flavors: {cpu: on-demand}, resourceUsage: {cpu: 500m}, count: 1}
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

class RayJobActorTest : public DeterministicActorTest {
 protected:
  ~RayJobActorTest() override {
    caf::anon_send_exit(rayjobs_, caf::exit_reason::user_shutdown);
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
    api_.put(ObjectKind::RayJob, yaml(kRayJob));
    auto& sys = *system_;
    introspection_ = spawn_introspection(sys);
    writer_ = spawn_writer(sys, api_.transport(), WriterOptions{4});
    auto clock = [] { return core::Time{}; };
    events_ = spawn_event_recorder(sys, writer_, introspection_, clock);
    JobIntegrationOptions options;
    options.frameworks = {"batch/job", "ray.io/rayjob"};
    const JobLinks links{writer_, introspection_, events_, metrics_actor{}};
    auto entry = find_job_kind("ray.io/rayjob");
    EXPECT_TRUE(entry.has_value());
    EXPECT_EQ(entry->tag, ObjectKind::RayJob);
    rayjobs_ = spawn_job_actor(sys, options, links, clock, false, JobKind{&entry->integration(), entry->tag});
    for (ObjectKind k : {ObjectKind::Workload, ObjectKind::ResourceFlavor, ObjectKind::LocalQueue,
                         ObjectKind::WorkloadPriorityClass, ObjectKind::PriorityClass, ObjectKind::RayJob}) {
      auto listed = api_.list(k);
      caf::anon_send(rayjobs_,
                     ObjectsRelisted{k, std::make_shared<const std::vector<CachedObject>>(listed.begin(), listed.end())});
    }
    sched_->run();
  }

  void deliver(ObjectKind kind, const std::string& name) {
    caf::anon_send(rayjobs_, api_.watch_event(kind, "ns", name));
    sched_->run();
  }

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

  testing::FakeApi api_;
  introspection_actor introspection_;
  writer_actor writer_;
  event_recorder_actor events_;
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
  api_.change(ObjectKind::Workload, "ns", name, yaml(kAdmitted));
  deliver(ObjectKind::Workload, name);
  auto job = api_.get(ObjectKind::RayJob, "ns", "rayjob-sample");
  EXPECT_EQ(job->bool_at({"spec", "suspend"}), false);
  EXPECT_EQ(node_selector(-1), yaml("{instance-type: on-demand}"));
  EXPECT_EQ(node_selector(0), yaml("{instance-type: spot}"));
  EXPECT_EQ(*job->find({"spec", "submitterPodTemplate", "spec", "nodeSelector"}), yaml("{instance-type: on-demand}"));

  // Preempted while the cluster runs: suspended and restored, the quota held.
  api_.change(ObjectKind::RayJob, "ns", "rayjob-sample", yaml("{status: {jobDeploymentStatus: Running}}"));
  deliver(ObjectKind::RayJob, "rayjob-sample");
  api_.change(ObjectKind::Workload, "ns", name, yaml(kEvicted));
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
class RayClusterActorTest : public DeterministicActorTest {
 protected:
  ~RayClusterActorTest() override {
    caf::anon_send_exit(clusters_, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(events_, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(writer_, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(introspection_, caf::exit_reason::user_shutdown);
    sched_->run();
  }

  void start(std::vector<std::string> frameworks) {
    api_.put(ObjectKind::LocalQueue, yaml("{apiVersion: kueue.x-k8s.io/v1beta2, kind: LocalQueue, metadata: {name: "
                                          "user-queue, namespace: ns}, spec: {clusterQueue: cq}}"));
    api_.put(ObjectKind::RayCluster, yaml(R"({apiVersion: ray.io/v1, kind: RayCluster,
        metadata: {name: child, namespace: ns, uid: uid-child, labels: {kueue.x-k8s.io/queue-name: user-queue},
                   ownerReferences: [{apiVersion: ray.io/v1, kind: RayJob, name: rj, uid: uid-rj, controller: true}]},
        spec: {suspend: true, headGroupSpec: {template: {spec: {containers: [{name: head}]}}}}})"));
    api_.put(ObjectKind::RayCluster, yaml(R"({apiVersion: ray.io/v1, kind: RayCluster,
        metadata: {name: own, namespace: ns, uid: uid-own, labels: {kueue.x-k8s.io/queue-name: user-queue}},
        spec: {suspend: true, headGroupSpec: {template: {spec: {containers: [{name: head}]}}}}})"));
    auto& sys = *system_;
    introspection_ = spawn_introspection(sys);
    writer_ = spawn_writer(sys, api_.transport(), WriterOptions{4});
    auto clock = [] { return core::Time{}; };
    events_ = spawn_event_recorder(sys, writer_, introspection_, clock);
    JobIntegrationOptions options;
    options.frameworks = std::move(frameworks);
    const JobLinks links{writer_, introspection_, events_, metrics_actor{}};
    auto entry = find_job_kind("ray.io/raycluster");
    EXPECT_TRUE(entry.has_value());
    clusters_ = spawn_job_actor(sys, options, links, clock, false, JobKind{&entry->integration(), entry->tag});
    for (ObjectKind k : {ObjectKind::Workload, ObjectKind::ResourceFlavor, ObjectKind::LocalQueue,
                         ObjectKind::WorkloadPriorityClass, ObjectKind::PriorityClass, ObjectKind::RayCluster}) {
      auto listed = api_.list(k);
      caf::anon_send(clusters_,
                     ObjectsRelisted{k, std::make_shared<const std::vector<CachedObject>>(listed.begin(), listed.end())});
    }
    sched_->run();
  }

  /// The names of the RayClusters that own a Workload.
  std::vector<std::string> queued() {
    std::vector<std::string> out;
    for (const auto& wl : api_.list(ObjectKind::Workload)) out.emplace_back(wl->controller_reference()->name);
    std::sort(out.begin(), out.end());
    return out;
  }

  testing::FakeApi api_;
  introspection_actor introspection_;
  writer_actor writer_;
  event_recorder_actor events_;
  job_actor clusters_;
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
