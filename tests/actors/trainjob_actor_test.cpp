// The job actor parameterised by the TrainJob integration on CAF's test coordinator against
// the in-memory API server (fake_api.hpp): it reads the TrainJob's runtime from the
// TrainingRuntime and ClusterTrainingRuntime watches, decides nothing before both are
// listed, gives a TrainJob without its runtime no Workload until the runtime appears, starts
// it with the flavor in Kueue's runtime patch, and when preempted suspends it first and
// clears the patch only once no child Job is active.

#include <caf/send.hpp>
#include <gtest/gtest.h>

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

constexpr std::string_view kRuntime = R"(
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: torch}
spec:
  mlPolicy: {numNodes: 1, torch: {}}
  template:
    spec:
      replicatedJobs:
      - name: node
        replicas: 1
        template:
          metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
          spec:
            template:
              spec:
                containers: [{name: node, image: torch, resources: {requests: {cpu: "1"}}}]
)";

constexpr std::string_view kTrainJob = R"(
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: tj
  namespace: ns
  uid: uid-tj
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  suspend: true
  runtimeRef: {apiGroup: trainer.kubeflow.org, kind: ClusterTrainingRuntime, name: torch}
  trainer: {numNodes: 2}
  runtimePatches:
  - manager: kueue.x-k8s.io/manager
    trainingRuntimeSpec: {template: {spec: {}}}
)";

constexpr std::string_view kAdmitted = R"(
status:
  admission:
    clusterQueue: cq
    podSetAssignments:
    - {name: node, flavors: {cpu: on-demand}, resourceUsage: {cpu: "2"}, count: 2}
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

class TrainJobActorTest : public DeterministicActorTest {
 protected:
  ~TrainJobActorTest() override {
    caf::anon_send_exit(trainjobs_, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(events_, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(writer_, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(introspection_, caf::exit_reason::user_shutdown);
    sched_->run();
  }

  /// The actor with every kind listed but the runtimes'.
  void start() {
    api_.put(ObjectKind::LocalQueue, yaml("{apiVersion: kueue.x-k8s.io/v1beta2, kind: LocalQueue, metadata: {name: "
                                          "user-queue, namespace: ns}, spec: {clusterQueue: cq}}"));
    api_.put(ObjectKind::ResourceFlavor, yaml(R"({apiVersion: kueue.x-k8s.io/v1beta2, kind: ResourceFlavor,
        metadata: {name: on-demand}, spec: {nodeLabels: {instance-type: on-demand}}})"));
    api_.put(ObjectKind::TrainJob, yaml(kTrainJob));
    auto& sys = *system_;
    introspection_ = spawn_introspection(sys);
    writer_ = spawn_writer(sys, api_.transport(), WriterOptions{4});
    auto clock = [] { return core::Time{}; };
    events_ = spawn_event_recorder(sys, writer_, introspection_, clock);
    JobIntegrationOptions options;
    options.frameworks = {"batch/job", "trainer.kubeflow.org/trainjob"};
    const JobLinks links{writer_, introspection_, events_, metrics_actor{}};
    auto entry = find_job_kind("trainer.kubeflow.org/trainjob");
    EXPECT_TRUE(entry.has_value());
    EXPECT_EQ(entry->tag, ObjectKind::TrainJob);
    EXPECT_EQ(related_kinds(ObjectKind::TrainJob).size(), 2u);
    trainjobs_ = spawn_job_actor(sys, options, links, clock, false, JobKind{&entry->integration(), entry->tag});
    for (ObjectKind k : {ObjectKind::Workload, ObjectKind::ResourceFlavor, ObjectKind::LocalQueue,
                         ObjectKind::WorkloadPriorityClass, ObjectKind::PriorityClass, ObjectKind::TrainJob}) {
      relist(k);
    }
  }

  void relist(ObjectKind k) {
    auto listed = api_.list(k);
    caf::anon_send(trainjobs_,
                   ObjectsRelisted{k, std::make_shared<const std::vector<CachedObject>>(listed.begin(), listed.end())});
    sched_->run();
  }

  void deliver(ObjectKind kind, const std::string& ns, const std::string& name) {
    caf::anon_send(trainjobs_, api_.watch_event(kind, ns, name));
    sched_->run();
  }

  /// Kueue's runtime patch's injected node selector for the node job (null when none).
  json::value injected_node_selector() {
    auto tj = api_.get(ObjectKind::TrainJob, "ns", "tj");
    const json::value* jobs = json::find_path(tj->find({"spec", "runtimePatches"})->get_array()[0],
                                              {"trainingRuntimeSpec", "template", "spec", "replicatedJobs"});
    if (jobs == nullptr) return json::value(nullptr);
    return *json::find_path(jobs->get_array()[0], {"template", "spec", "template", "spec", "nodeSelector"});
  }

  /// ErrWorkloadCompose Events written (a TrainJob's Workload could not be built).
  std::size_t compose_errors() const {
    std::size_t n = 0;
    for (const auto& [req, applied] : api_.requests) {
      if (req.kind != ObjectKind::Event) continue;
      const std::string text = req.body_text ? *req.body_text : (req.body ? json::dump(*req.body) : std::string());
      if (text.find("ErrWorkloadCompose") != std::string::npos) ++n;
    }
    return n;
  }

  testing::FakeApi api_;
  introspection_actor introspection_;
  writer_actor writer_;
  event_recorder_actor events_;
  job_actor trainjobs_;
};

TEST_F(TrainJobActorTest, NothingIsDecidedBeforeTheRuntimesAreListed) {
  api_.put(ObjectKind::ClusterTrainingRuntime, yaml(kRuntime));
  start();
  // Not "runtime not found": the runtimes are not known yet.
  EXPECT_TRUE(api_.list(ObjectKind::Workload).empty());
  EXPECT_EQ(compose_errors(), 0u);
  relist(ObjectKind::TrainingRuntime);
  EXPECT_TRUE(api_.list(ObjectKind::Workload).empty());
  EXPECT_EQ(compose_errors(), 0u);
  relist(ObjectKind::ClusterTrainingRuntime);
  auto workloads = api_.list(ObjectKind::Workload);
  ASSERT_EQ(workloads.size(), 1u);
  const json::array& pod_sets = workloads.front()->find({"spec", "podSets"})->get_array();
  ASSERT_EQ(pod_sets.size(), 1u);
  EXPECT_EQ(pod_sets[0].at("name"), "node");
  EXPECT_EQ(pod_sets[0].at("count"), 2);
}

TEST_F(TrainJobActorTest, QueuedOnceItsRuntimeAppearsStartedAndStoppedAsKueueDoes) {
  start();
  relist(ObjectKind::TrainingRuntime);
  relist(ObjectKind::ClusterTrainingRuntime);
  EXPECT_TRUE(api_.list(ObjectKind::Workload).empty()) << "no Workload without the runtime";
  EXPECT_GE(compose_errors(), 1u) << "an ErrWorkloadCompose Event says why";

  api_.put(ObjectKind::ClusterTrainingRuntime, yaml(kRuntime));
  deliver(ObjectKind::ClusterTrainingRuntime, "", "torch");
  auto workloads = api_.list(ObjectKind::Workload);
  ASSERT_EQ(workloads.size(), 1u);
  const std::string name(workloads.front()->name());
  EXPECT_EQ(workloads.front()->controller_reference()->kind, "TrainJob");

  deliver(ObjectKind::Workload, "ns", name);
  api_.change(ObjectKind::Workload, "ns", name, yaml(kAdmitted));
  deliver(ObjectKind::Workload, "ns", name);
  EXPECT_EQ(api_.get(ObjectKind::TrainJob, "ns", "tj")->bool_at({"spec", "suspend"}), false);
  EXPECT_EQ(injected_node_selector(), yaml("{instance-type: on-demand}"));

  // Preempted while its Jobs run: suspended first, the patch kept, the quota held.
  api_.change(ObjectKind::TrainJob, "ns", "tj", yaml("{status: {jobsStatus: [{name: node, active: 1}]}}"));
  deliver(ObjectKind::TrainJob, "ns", "tj");
  api_.change(ObjectKind::Workload, "ns", name, yaml(kEvicted));
  deliver(ObjectKind::Workload, "ns", name);
  deliver(ObjectKind::TrainJob, "ns", "tj");
  EXPECT_EQ(api_.get(ObjectKind::TrainJob, "ns", "tj")->bool_at({"spec", "suspend"}), true);
  EXPECT_EQ(injected_node_selector(), yaml("{instance-type: on-demand}"));
  EXPECT_TRUE(api_.get(ObjectKind::Workload, "ns", name)->condition_true("QuotaReserved"));
  // Its Jobs stopped: the patch cleared and the quota released.
  api_.change(ObjectKind::TrainJob, "ns", "tj", yaml("{status: {jobsStatus: [{name: node, active: 0}]}}"));
  deliver(ObjectKind::TrainJob, "ns", "tj");
  EXPECT_EQ(injected_node_selector(), json::value(nullptr));
  EXPECT_FALSE(api_.get(ObjectKind::Workload, "ns", name)->condition_true("QuotaReserved"));
}

}  // namespace
}  // namespace kueuepp::actors
