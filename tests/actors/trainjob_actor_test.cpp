// The job actor parameterised by the TrainJob integration on CAF's test coordinator against
// the in-memory API server (fake_api.hpp): it reads the TrainJob's runtime from the
// TrainingRuntime and ClusterTrainingRuntime watches, decides nothing before both are
// listed, gives a TrainJob without its runtime no Workload until the runtime appears, starts
// it with the flavor in Kueue's runtime patch, and when preempted suspends it first and
// clears the patch only once no child Job is active.

#include <gtest/gtest.h>

#include <string>

#include "tests/actors/job_kind_actor_test.hpp"

namespace kueuepp::actors {
namespace {

using namespace messages;
using testing::yaml;

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

constexpr std::string_view kAssignments = R"([{name: node, flavors: {cpu: on-demand}, resourceUsage: {cpu: "2"}, count: 2}])";

class TrainJobActorTest : public testing::JobKindActorTest {
 protected:
  /// The actor with every kind listed but the runtimes'.
  void start() {
    put_local_queue();
    put_flavors({"on-demand"});
    api_.put(ObjectKind::TrainJob, yaml(kTrainJob));
    spawn_links();
    JobIntegrationOptions options;
    options.frameworks = {"batch/job", "trainer.kubeflow.org/trainjob"};
    EXPECT_EQ(related_kinds(ObjectKind::TrainJob).size(), 2u);
    trainjobs_ = spawn_kind("trainer.kubeflow.org/trainjob", ObjectKind::TrainJob, options);
    relist_all(trainjobs_, {ObjectKind::TrainJob});
    sched_->run();
  }

  void relist(ObjectKind k) {
    JobKindActorTest::relist(trainjobs_, k);
    sched_->run();
  }

  void deliver(ObjectKind kind, const std::string& ns, const std::string& name) {
    JobKindActorTest::deliver(trainjobs_, kind, ns, name);
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
  api_.change(ObjectKind::Workload, "ns", name, testing::admitted_status(kAssignments));
  deliver(ObjectKind::Workload, "ns", name);
  EXPECT_EQ(api_.get(ObjectKind::TrainJob, "ns", "tj")->bool_at({"spec", "suspend"}), false);
  EXPECT_EQ(injected_node_selector(), yaml("{instance-type: on-demand}"));

  // Preempted while its Jobs run: suspended first, the patch kept, the quota held.
  api_.change(ObjectKind::TrainJob, "ns", "tj", yaml("{status: {jobsStatus: [{name: node, active: 1}]}}"));
  deliver(ObjectKind::TrainJob, "ns", "tj");
  api_.change(ObjectKind::Workload, "ns", name, testing::preempted_status());
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
