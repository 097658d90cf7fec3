// The job actor parameterised by the RayService integration on CAF's test coordinator
// against the in-memory API server (fake_api.hpp): the RayService gets one Workload with
// Kueue's pod sets (the head and the worker group of spec.rayClusterConfig), is started
// through spec.rayClusterConfig.suspend with each pod set's flavor in its template, and
// when preempted is suspended with its templates restored, its quota released only once
// its Ready condition is no longer True. It never finishes. A RayCluster the RayService
// controls is not queued itself while ray.io/rayservice is integrated.

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

constexpr std::string_view kRayService = R"(
apiVersion: ray.io/v1
kind: RayService
metadata:
  name: svc
  namespace: ns
  uid: uid-svc
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  serveConfigV2: "applications: []"
  rayClusterConfig:
    suspend: true
    headGroupSpec:
      template:
        spec:
          containers: [{name: ray-head, image: rayproject/ray:2.46.0, resources: {requests: {cpu: "2"}}}]
    workerGroupSpecs:
    - groupName: workers
      replicas: 2
      template:
        spec:
          containers: [{name: ray-worker, image: rayproject/ray:2.46.0, resources: {requests: {cpu: "1"}}}]
)";

// The RayCluster KubeRay creates for the service, controlled by it.
constexpr std::string_view kServiceCluster = R"(
apiVersion: ray.io/v1
kind: RayCluster
metadata:
  name: svc-raycluster-abcde
  namespace: ns
  uid: uid-svc-cluster
  labels: {kueue.x-k8s.io/queue-name: user-queue}
  ownerReferences: [{apiVersion: ray.io/v1, kind: RayService, name: svc, uid: uid-svc, controller: true}]
spec:
  suspend: true
  headGroupSpec: {template: {spec: {containers: [{name: ray-head}]}}}
)";

constexpr std::string_view kAdmitted = R"(
status:
  admission:
    clusterQueue: cq
    podSetAssignments:
    - {name: head, flavors: {cpu: on-demand}, resourceUsage: {cpu: "2"}, count: 1}
    - {name: workers, flavors: {cpu: spot}, resourceUsage: {cpu: "2"}, count: 2}
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

class RayServiceActorTest : public DeterministicActorTest {
 protected:
  ~RayServiceActorTest() override {
    for (const job_actor& a : {services_, clusters_}) {
      if (a) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    }
    caf::anon_send_exit(events_, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(writer_, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(introspection_, caf::exit_reason::user_shutdown);
    sched_->run();
  }

  /// A job actor for each framework of `actors`, with `frameworks` integrated.
  void start(const std::vector<std::string>& frameworks, bool with_services, bool with_clusters) {
    api_.put(ObjectKind::LocalQueue, yaml("{apiVersion: kueue.x-k8s.io/v1beta2, kind: LocalQueue, metadata: {name: "
                                          "user-queue, namespace: ns}, spec: {clusterQueue: cq}}"));
    api_.put(ObjectKind::ResourceFlavor, yaml(R"({apiVersion: kueue.x-k8s.io/v1beta2, kind: ResourceFlavor,
        metadata: {name: on-demand}, spec: {nodeLabels: {instance-type: on-demand}}})"));
    api_.put(ObjectKind::ResourceFlavor, yaml(R"({apiVersion: kueue.x-k8s.io/v1beta2, kind: ResourceFlavor,
        metadata: {name: spot}, spec: {nodeLabels: {instance-type: spot}}})"));
    api_.put(ObjectKind::RayService, yaml(kRayService));
    api_.put(ObjectKind::RayCluster, yaml(kServiceCluster));
    auto& sys = *system_;
    introspection_ = spawn_introspection(sys);
    writer_ = spawn_writer(sys, api_.transport(), WriterOptions{4});
    auto clock = [] { return core::Time{}; };
    events_ = spawn_event_recorder(sys, writer_, introspection_, clock);
    JobIntegrationOptions options;
    options.frameworks = frameworks;
    const JobLinks links{writer_, introspection_, events_, metrics_actor{}};
    auto spawn_for = [&](std::string_view framework, ObjectKind own) {
      auto entry = find_job_kind(framework);
      EXPECT_TRUE(entry.has_value());
      EXPECT_EQ(entry->tag, own);
      job_actor actor = spawn_job_actor(sys, options, links, clock, false, JobKind{&entry->integration(), entry->tag});
      for (ObjectKind k : {ObjectKind::Workload, ObjectKind::ResourceFlavor, ObjectKind::LocalQueue,
                           ObjectKind::WorkloadPriorityClass, ObjectKind::PriorityClass, own}) {
        auto listed = api_.list(k);
        caf::anon_send(actor,
                       ObjectsRelisted{k, std::make_shared<const std::vector<CachedObject>>(listed.begin(), listed.end())});
      }
      return actor;
    };
    if (with_services) services_ = spawn_for("ray.io/rayservice", ObjectKind::RayService);
    if (with_clusters) clusters_ = spawn_for("ray.io/raycluster", ObjectKind::RayCluster);
    sched_->run();
  }

  void deliver(ObjectKind kind, const std::string& name) {
    caf::anon_send(services_, api_.watch_event(kind, "ns", name));
    sched_->run();
  }

  /// The head's (group < 0) or a worker group's nodeSelector (null when it has none).
  json::value node_selector(int group) {
    auto svc = api_.get(ObjectKind::RayService, "ns", "svc");
    const json::value* cluster = svc->find({"spec", "rayClusterConfig"});
    const json::value* tmpl =
        group < 0 ? json::find_path(*cluster, {"headGroupSpec", "template"})
                  : json::find(json::find(*cluster, "workerGroupSpecs")->get_array()[static_cast<std::size_t>(group)],
                               "template");
    const json::value* found = json::find_path(*tmpl, {"spec", "nodeSelector"});
    return found != nullptr ? *found : json::value(nullptr);
  }

  std::optional<bool> cluster_suspend() {
    return api_.get(ObjectKind::RayService, "ns", "svc")->bool_at({"spec", "rayClusterConfig", "suspend"});
  }

  /// The kinds and names of what owns a Workload.
  std::vector<std::string> queued() {
    std::vector<std::string> out;
    for (const auto& wl : api_.list(ObjectKind::Workload)) {
      out.emplace_back(std::string(wl->controller_reference()->kind) + "/" + std::string(wl->controller_reference()->name));
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  testing::FakeApi api_;
  introspection_actor introspection_;
  writer_actor writer_;
  event_recorder_actor events_;
  job_actor services_;
  job_actor clusters_;
};

TEST_F(RayServiceActorTest, QueuedWithKueuesPodSetsStartedWithEachFlavorRestoredWhenPreempted) {
  start({"batch/job", "ray.io/rayservice"}, true, false);
  auto workloads = api_.list(ObjectKind::Workload);
  ASSERT_EQ(workloads.size(), 1u);
  const auto& wl = *workloads.front();
  EXPECT_EQ(wl.controller_reference()->kind, "RayService");
  const json::array& pod_sets = wl.find({"spec", "podSets"})->get_array();
  ASSERT_EQ(pod_sets.size(), 2u);
  EXPECT_EQ(pod_sets[0].at("name"), "head");
  EXPECT_EQ(pod_sets[0].at("count"), 1);
  EXPECT_EQ(pod_sets[1].at("name"), "workers");
  EXPECT_EQ(pod_sets[1].at("count"), 2);

  const std::string name(wl.name());
  deliver(ObjectKind::Workload, name);
  api_.change(ObjectKind::Workload, "ns", name, yaml(kAdmitted));
  deliver(ObjectKind::Workload, name);
  EXPECT_EQ(cluster_suspend(), false);
  EXPECT_EQ(node_selector(-1), yaml("{instance-type: on-demand}"));
  EXPECT_EQ(node_selector(0), yaml("{instance-type: spot}"));
  EXPECT_EQ(api_.get(ObjectKind::RayService, "ns", "svc")->find({"spec", "suspend"}), nullptr)
      << "Kueue suspends the service's cluster, never the service";

  // Serving: it never finishes, the Workload keeps its quota.
  api_.change(ObjectKind::RayService, "ns", "svc",
              yaml(R"({status: {serviceStatus: Running, conditions: [{type: Ready, status: "True",
                  reason: NonZeroServeEndpoints, message: m, lastTransitionTime: "2026-01-01T00:00:30Z"}]}})"));
  deliver(ObjectKind::RayService, "svc");
  EXPECT_FALSE(api_.get(ObjectKind::Workload, "ns", name)->condition_true("Finished"));

  // Preempted while it serves: suspended and restored, the quota held until it is not Ready.
  api_.change(ObjectKind::Workload, "ns", name, yaml(kEvicted));
  deliver(ObjectKind::Workload, name);
  EXPECT_EQ(cluster_suspend(), true);
  EXPECT_EQ(node_selector(-1), json::value(nullptr));
  EXPECT_EQ(node_selector(0), json::value(nullptr));
  EXPECT_TRUE(api_.get(ObjectKind::Workload, "ns", name)->condition_true("QuotaReserved"));
  api_.change(ObjectKind::RayService, "ns", "svc",
              yaml(R"({status: {conditions: [{type: Ready, status: "False", reason: ZeroServeEndpoints,
                  message: m, lastTransitionTime: "2026-01-01T00:01:30Z"}]}})"));
  deliver(ObjectKind::RayService, "svc");
  EXPECT_FALSE(api_.get(ObjectKind::Workload, "ns", name)->condition_true("QuotaReserved"));
}

// Kueue's parent rule: the RayCluster a queued RayService controls runs under the
// service's Workload and is not queued itself.
TEST_F(RayServiceActorTest, TheClusterItControlsIsNotQueuedItself) {
  start({"batch/job", "ray.io/raycluster", "ray.io/rayservice"}, true, true);
  EXPECT_EQ(queued(), std::vector<std::string>{"RayService/svc"});
}

TEST_F(RayServiceActorTest, WithoutTheRayServiceIntegrationItsClusterIsQueued) {
  start({"batch/job", "ray.io/raycluster"}, false, true);
  EXPECT_EQ(queued(), std::vector<std::string>{"RayCluster/svc-raycluster-abcde"});
}

}  // namespace
}  // namespace kueuepp::actors
