#include "kube/jobs/trainjob.hpp"

#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "kube/apiserver/patch/patch.hpp"
#include "kube/jobs/batch_job.hpp"

namespace kueuepp::kube::jobs {
namespace {

using testing::object;
using testing::yaml;

// Kueue's examples have no TrainJob; these follow the trainer's torch-distributed runtime
// (one trainer job "node", mlPolicy.numNodes) as the API server stores them.
constexpr std::string_view kClusterRuntime = R"(
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: torch-distributed}
spec:
  mlPolicy:
    numNodes: 2
    torch: {}
  template:
    metadata:
      labels: {runtime-label: r}
    spec:
      replicatedJobs:
      - name: node
        replicas: 1
        template:
          metadata:
            labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
          spec:
            template:
              spec:
                containers:
                - name: node
                  image: pytorch/pytorch
                  command: [sleep, "60"]
                  resources:
                    requests: {cpu: "1", memory: 100Mi}
)";

/// A namespaced runtime with a dataset initializer before the trainer, no ML policy.
constexpr std::string_view kNamespacedRuntime = R"(
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata: {name: with-initializer, namespace: ns}
spec:
  template:
    spec:
      replicatedJobs:
      - name: dataset-initializer
        replicas: 1
        template:
          metadata:
            labels: {trainer.kubeflow.org/trainjob-ancestor-step: dataset-initializer}
          spec:
            template:
              spec:
                containers:
                - name: dataset-initializer
                  image: initializer
                  resources:
                    requests: {cpu: 500m}
      - name: node
        replicas: 1
        template:
          metadata:
            labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
          spec:
            parallelism: 2
            template:
              spec:
                priorityClassName: high-pods
                containers:
                - name: node
                  image: trainer
                  resources:
                    requests: {cpu: "1"}
)";

/// A TrainJob as the API server stores it after Kueue's webhook (suspended, Kueue's
/// runtime patch appended, runtimeRef defaulted).
constexpr std::string_view kTrainJob = R"(
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: pytorch-simple
  namespace: ns
  uid: tj-uid-1
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  suspend: true
  managedBy: trainer.kubeflow.org/trainjob-controller
  runtimeRef: {apiGroup: trainer.kubeflow.org, kind: ClusterTrainingRuntime, name: torch-distributed}
  runtimePatches:
  - manager: kueue.x-k8s.io/manager
    trainingRuntimeSpec: {template: {spec: {}}}
)";

constexpr std::string_view kOnDemand = R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: on-demand}
spec:
  nodeLabels: {instance-type: on-demand}
  tolerations:
  - {key: on-demand, operator: Exists, effect: NoSchedule}
)";

constexpr std::string_view kAdmission = R"(
admission:
  clusterQueue: cluster-queue
  podSetAssignments:
  - {name: node, flavors: {cpu: on-demand, memory: on-demand}, resourceUsage: {cpu: "2", memory: 200Mi}, count: 2}
conditions:
- {type: QuotaReserved, status: "True", reason: QuotaReserved, message: reserved, lastTransitionTime: "2026-01-01T00:00:00Z"}
- {type: Admitted, status: "True", reason: Admitted, message: admitted, lastTransitionTime: "2026-01-01T00:00:00Z"}
)";

class TrainJobTest : public ::testing::Test {
 protected:
  client::Object cluster_runtime = object(kClusterRuntime);
  client::Object namespaced_runtime = object(kNamespacedRuntime);
  client::Object trainjob = object(kTrainJob);
  client::Object on_demand = object(kOnDemand);
  bool runtimes_exist = true;
  TrainingRuntimeLookup runtimes = [this](const TrainingRuntimeRef& ref) -> const client::Object* {
    if (!runtimes_exist) return nullptr;
    if (ref.kind == "ClusterTrainingRuntime" && ref.ns.empty() && ref.name == "torch-distributed") {
      return &cluster_runtime;
    }
    if (ref.kind == "TrainingRuntime" && ref.ns == "ns" && ref.name == "with-initializer") return &namespaced_runtime;
    return nullptr;
  };
  std::unique_ptr<const JobIntegration> tj = make_trainjob_integration(runtimes);
  FlavorLookup flavors = [this](std::string_view name) -> const client::Object* {
    return name == "on-demand" ? &on_demand : nullptr;
  };

  json::array pod_sets() {
    auto sets = trainjob_pod_sets(trainjob, runtimes);
    EXPECT_TRUE(sets.has_value()) << sets.error().message;
    return sets ? *sets : json::array{};
  }

  client::Object admitted_workload() {
    auto wl = tj->build_workload(trainjob, BuildOptions{});
    EXPECT_TRUE(wl.has_value()) << wl.error().message;
    client::Object out = wl ? *wl : client::Object();
    out.ensure({"status"}) = yaml(kAdmission);
    return out;
  }

  static client::Object patched(const client::Object& o, const json::value& patch) {
    auto applied = patch::merge_patch(o.json(), patch);
    EXPECT_TRUE(applied.has_value());
    return client::Object(applied ? *applied : json::value());
  }
};

TEST_F(TrainJobTest, IsFoundByKueuesFrameworkName) {
  const JobIntegration* found = find_integration("trainer.kubeflow.org/trainjob");
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found, &trainjob_integration());
  EXPECT_EQ(found->resource().api_version(), "trainer.kubeflow.org/v1alpha1");
  EXPECT_EQ(found->resource().kind, "TrainJob");
  EXPECT_EQ(tj->framework(), kTrainJobFramework);
}

TEST_F(TrainJobTest, OverAClusterTrainingRuntimeTheTrainerCountsMlPolicysNumNodes) {
  json::array sets = pod_sets();
  ASSERT_EQ(sets.size(), 1u);
  EXPECT_EQ(json::get_string(sets[0], "name"), "node");
  EXPECT_EQ(sets[0].at("count"), 2);
  EXPECT_EQ(*json::find_path(sets[0], {"template", "spec", "containers"}),
            yaml("[{name: node, image: pytorch/pytorch, command: [sleep, '60'], "
                 "resources: {requests: {cpu: '1', memory: 100Mi}}}]"));
}

TEST_F(TrainJobTest, TrainersNumNodesAndResourcesPerNodeOverrideTheRuntime) {
  trainjob.ensure({"spec", "trainer"}) =
      yaml("{numNodes: 3, image: mine, resourcesPerNode: {requests: {cpu: '2'}, limits: {cpu: '4'}}}");
  json::array sets = pod_sets();
  ASSERT_EQ(sets.size(), 1u);
  EXPECT_EQ(sets[0].at("count"), 3);
  const json::value& container = json::find_path(sets[0], {"template", "spec", "containers"})->get_array()[0];
  EXPECT_EQ(json::get_string(container, "image"), "mine");
  // Merged per resource: the runtime's memory request stays.
  EXPECT_EQ(*json::find(container, "resources"), yaml("{requests: {cpu: '2', memory: 100Mi}, limits: {cpu: '4'}}"));
}

TEST_F(TrainJobTest, OverANamespacedTrainingRuntimeEveryReplicatedJobIsAPodSet) {
  trainjob.ensure({"spec", "runtimeRef"}) = yaml("{apiGroup: trainer.kubeflow.org, kind: TrainingRuntime, name: with-initializer}");
  json::array sets = pod_sets();
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(json::get_string(sets[0], "name"), "dataset-initializer");
  EXPECT_EQ(sets[0].at("count"), 1);
  EXPECT_EQ(json::get_string(sets[1], "name"), "node");
  // No ML policy: the trainer's count is the runtime's parallelism, then numNodes.
  EXPECT_EQ(sets[1].at("count"), 2);
  trainjob.ensure({"spec", "trainer"}) = yaml("{numNodes: 4}");
  EXPECT_EQ(pod_sets()[1].at("count"), 4);
  // The runtime is looked for in the TrainJob's namespace only.
  trainjob.set_namespace("other");
  auto missing = trainjob_pod_sets(trainjob, runtimes);
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().message.find("TrainingRuntime with-initializer in namespace other does not exist"),
            std::string::npos)
      << missing.error().message;
}

TEST_F(TrainJobTest, PriorityFromThePodSetsPriorityClass) {
  trainjob.ensure({"spec", "runtimeRef"}) = yaml("{kind: TrainingRuntime, name: with-initializer}");
  BuildOptions o;
  o.priority_class = [](std::string_view name) -> std::optional<std::int32_t> {
    return name == "high-pods" ? std::optional<std::int32_t>(500) : std::nullopt;
  };
  auto wl = tj->build_workload(trainjob, o);
  ASSERT_TRUE(wl.has_value()) << wl.error().message;
  EXPECT_EQ(wl->int_at({"spec", "priority"}), 500);
}

TEST_F(TrainJobTest, WorkloadHasKueuesNameOwnerQueueAndPodSets) {
  auto wl = tj->build_workload(trainjob, BuildOptions{});
  ASSERT_TRUE(wl.has_value()) << wl.error().message;
  // GetWorkloadNameForOwnerWithGVK: sha1("TrainJob\ntrainer.kubeflow.org\npytorch-simple\ntj-uid-1")[:5]
  EXPECT_EQ(wl->name(), "trainjob-pytorch-simple-b4b5d");
  auto owner = wl->controller_reference();
  ASSERT_TRUE(owner.has_value());
  EXPECT_EQ(owner->api_version, "trainer.kubeflow.org/v1alpha1");
  EXPECT_EQ(owner->kind, "TrainJob");
  EXPECT_EQ(wl->string_at({"spec", "queueName"}), "user-queue");
  ASSERT_EQ(wl->find({"spec", "podSets"})->get_array().size(), 1u);
  EXPECT_TRUE(tj->equivalent(trainjob, *wl, flavors));
  // A new numNodes is another Workload.
  trainjob.ensure({"spec", "trainer"}) = yaml("{numNodes: 5}");
  EXPECT_FALSE(tj->equivalent(trainjob, *wl, flavors));
}

TEST_F(TrainJobTest, WithoutItsRuntimeNoWorkloadAndAnExistingOneIsKept) {
  client::Object wl = admitted_workload();
  runtimes_exist = false;
  auto built = tj->build_workload(trainjob, BuildOptions{});
  ASSERT_FALSE(built.has_value());
  EXPECT_EQ(built.error().message,
            "TrainJob ns/pytorch-simple: runtime 'torch-distributed' not found: ClusterTrainingRuntime "
            "torch-distributed does not exist; create it and the TrainJob is queued");
  EXPECT_TRUE(tj->equivalent(trainjob, wl, flavors));
  auto started = tj->start(trainjob, wl, flavors);
  ASSERT_FALSE(started.has_value());
  EXPECT_FALSE(started.error().permanent);  // retried when the runtime comes back
  EXPECT_FALSE(trainjob_integration().build_workload(trainjob, BuildOptions{}).has_value());
}

TEST_F(TrainJobTest, AnUnsupportedRuntimeKindIsSaid) {
  trainjob.ensure({"spec", "runtimeRef"}) = yaml("{apiGroup: example.com, kind: Other, name: x}");
  auto built = tj->build_workload(trainjob, BuildOptions{});
  ASSERT_FALSE(built.has_value());
  EXPECT_NE(built.error().message.find("unsupported runtime: Other.example.com"), std::string::npos);
}

TEST_F(TrainJobTest, StartWritesKueuesRuntimePatchAndStopRestoresIt) {
  client::Object wl = admitted_workload();
  const client::Object original = trainjob;
  auto r = tj->start(trainjob, wl, flavors);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_TRUE(r->changed);
  client::Object running = patched(trainjob, r->patch);
  EXPECT_EQ(running.json(), r->job.json());
  EXPECT_EQ(running.bool_at({"spec", "suspend"}), false);
  const json::value* injected = json::find_path(running.find({"spec", "runtimePatches"})->get_array()[0],
                                                {"trainingRuntimeSpec", "template", "spec", "replicatedJobs"});
  ASSERT_NE(injected, nullptr);
  ASSERT_EQ(injected->get_array().size(), 1u);
  const json::value& node = injected->get_array()[0];
  EXPECT_EQ(json::get_string(node, "name"), "node");
  EXPECT_EQ(*json::find_path(node, {"template", "spec", "template", "spec", "nodeSelector"}),
            yaml("{instance-type: on-demand}"));
  EXPECT_EQ(*json::find_path(node, {"template", "spec", "template", "spec", "tolerations"}),
            yaml("[{key: on-demand, operator: Exists, effect: NoSchedule}]"));
  // The runtime is untouched; the JobSet the trainer builds carries the flavor.
  auto jobset = trainjob_jobset(running, cluster_runtime);
  ASSERT_TRUE(jobset.has_value());
  const json::value& pod = *json::find_path(jobset->find({"spec", "replicatedJobs"})->get_array()[0],
                                            {"template", "spec", "template"});
  EXPECT_EQ(*json::find_path(pod, {"spec", "nodeSelector"}), yaml("{instance-type: on-demand}"));
  EXPECT_EQ(json::get_string(*json::find_path(pod, {"metadata", "labels"}), "kueue.x-k8s.io/podset"), "node");
  EXPECT_EQ(jobset->bool_at({"spec", "suspend"}), false);
  // Running as admitted it still matches its Workload; starting again changes nothing.
  EXPECT_TRUE(tj->equivalent(running, wl, flavors));
  EXPECT_FALSE(tj->start(running, wl, flavors)->changed);

  // Stop, first write: suspended, the injections kept while a child Job is active.
  auto first = tj->stop(running, &wl);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->what, "suspended");
  EXPECT_FALSE(first->last);
  client::Object suspended = patched(running, first->patch);
  EXPECT_TRUE(tj->stopping(suspended));
  EXPECT_FALSE(tj->suspended(suspended));
  suspended.ensure({"status"}) = yaml("{jobsStatus: [{name: node, active: 1, ready: 1, succeeded: 0}]}");
  EXPECT_TRUE(tj->active(suspended));
  EXPECT_FALSE(tj->stop(suspended, &wl).has_value());
  // Second write once nothing is active: Kueue's patch emptied, the TrainJob as it was.
  suspended.ensure({"status"}) = yaml("{jobsStatus: [{name: node, active: 0, ready: 0, succeeded: 0}]}");
  auto second = tj->stop(suspended, &wl);
  ASSERT_TRUE(second.has_value());
  EXPECT_TRUE(second->last);
  client::Object restored = patched(suspended, second->patch);
  restored.erase({"status"});
  EXPECT_EQ(restored.json(), original.json());
  EXPECT_TRUE(tj->suspended(restored));
  EXPECT_FALSE(tj->stop(restored, &wl).has_value());
}

TEST_F(TrainJobTest, StartAddsKueuesRuntimePatchWhenTheWebhookDidNot) {
  trainjob.erase({"spec", "runtimePatches"});
  client::Object wl = admitted_workload();
  auto r = tj->start(trainjob, wl, flavors);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  const json::value& patch = r->job.find({"spec", "runtimePatches"})->get_array()[0];
  EXPECT_EQ(json::get_string(patch, "manager"), "kueue.x-k8s.io/manager");
}

TEST_F(TrainJobTest, AnAdmissionOfAnotherPodSetCountFailsToStart) {
  client::Object wl = admitted_workload();
  trainjob.ensure({"spec", "runtimeRef"}) = yaml("{kind: TrainingRuntime, name: with-initializer}");
  auto r = tj->start(trainjob, wl, flavors);
  ASSERT_FALSE(r.has_value());
  EXPECT_TRUE(r.error().permanent);
  EXPECT_EQ(r.error().message, "invalid podset infos: expecting 2 podset, got 1");
}

TEST_F(TrainJobTest, FinishedFromCompleteOrFailedPodsReadyFromJobsStatus) {
  EXPECT_FALSE(tj->finished(trainjob).has_value());
  trainjob.ensure({"status"}) = yaml("{conditions: [{type: Complete, status: 'True', message: done}]}");
  auto f = tj->finished(trainjob);
  ASSERT_TRUE(f.has_value());
  EXPECT_TRUE(f->succeeded);
  EXPECT_EQ(f->message, "done");
  trainjob.ensure({"status"}) = yaml("{conditions: [{type: Failed, status: 'True', message: broke}]}");
  ASSERT_TRUE(tj->finished(trainjob).has_value());
  EXPECT_FALSE(tj->finished(trainjob)->succeeded);
  trainjob.ensure({"status"}) = yaml("{jobsStatus: [{name: node, ready: 0, succeeded: 0, active: 1}]}");
  EXPECT_FALSE(tj->pods_ready(trainjob));
  trainjob.ensure({"status"}) = yaml("{jobsStatus: [{name: node, ready: 1, succeeded: 0, active: 1}]}");
  EXPECT_TRUE(tj->pods_ready(trainjob));
}

TEST_F(TrainJobTest, MpiCountsTheNodeJobLessTheLauncherRunAsANode) {
  cluster_runtime.ensure({"spec", "mlPolicy"}) = yaml("{numNodes: 1, mpi: {runLauncherAsNode: true}}");
  trainjob.ensure({"spec", "trainer"}) = yaml("{numNodes: 4}");
  EXPECT_EQ(pod_sets()[0].at("count"), 3);
  cluster_runtime.ensure({"spec", "mlPolicy"}) = yaml("{numNodes: 1, mpi: {}}");
  EXPECT_EQ(pod_sets()[0].at("count"), 4);
}

TEST(StrategicMergeTest, MergesKeyedListsAndReplacesTheOthers) {
  json::value target = testing::yaml(R"(
containers: [{name: a, image: x, env: [{name: A, value: '1'}]}, {name: b, image: y}]
tolerations: [{key: t1}]
nodeSelector: {a: '1', b: '2'}
)");
  strategic_merge(target, testing::yaml(R"(
containers: [{name: a, env: [{name: B, value: '2'}]}, {name: c, image: z}]
tolerations: [{key: t2}]
nodeSelector: {b: null, c: '3'}
)"));
  EXPECT_EQ(target, testing::yaml(R"(
containers: [{name: a, image: x, env: [{name: A, value: '1'}, {name: B, value: '2'}]}, {name: b, image: y}, {name: c, image: z}]
tolerations: [{key: t2}]
nodeSelector: {a: '1', c: '3'}
)"));
}

}  // namespace
}  // namespace kueuepp::kube::jobs
