// The job actor parameterised by the AppWrapper integration on CAF's test coordinator
// against the in-memory API server (fake_api.hpp): Kueue's pytorch-sample AppWrapper gets
// one Workload with Kueue's pod sets, is started with each pod set's flavor in its
// component's podSetInfos, and when preempted is suspended with them cleared, its quota
// released only once the AppWrapper controller reports QuotaReserved False. A Job an
// AppWrapper controls is not queued itself.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/actors/job_kind_actor_test.hpp"

namespace kueuepp::actors {
namespace {

using namespace messages;
using testing::yaml;

// Kueue's appwrapper/pytorch-sample.yaml, as stored (suspended by mappwrapper).
constexpr std::string_view kAppWrapper = R"(
apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata:
  name: sample-appwrapper-pytorch-job
  namespace: ns
  uid: uid-aw
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  suspend: true
  components:
  - template:
      apiVersion: "kubeflow.org/v1"
      kind: PyTorchJob
      metadata: {name: pytorch-simple}
      spec:
        pytorchReplicaSpecs:
          Master:
            replicas: 1
            restartPolicy: OnFailure
            template:
              spec:
                containers:
                - {name: pytorch, image: docker.io/kubeflowkatib/pytorch-mnist-cpu:v1beta1-fc858d1, resources: {requests: {cpu: 1}}}
          Worker:
            replicas: 1
            restartPolicy: OnFailure
            template:
              spec:
                containers:
                - {name: pytorch, image: docker.io/kubeflowkatib/pytorch-mnist-cpu:v1beta1-fc858d1, resources: {requests: {cpu: 1}}}
)";

constexpr std::string_view kAssignments = R"([
    {name: sample-appwrapper-pytorch-job-0, flavors: {cpu: on-demand}, resourceUsage: {cpu: "1"}, count: 1},
    {name: sample-appwrapper-pytorch-job-1, flavors: {cpu: spot}, resourceUsage: {cpu: "1"}, count: 1}])";

/// The AppWrapper controller's QuotaReserved condition, `status` "True" or "False".
std::string quota_reserved(std::string_view status) {
  return "{status: {conditions: [{type: QuotaReserved, status: \"" + std::string(status) +
         "\", reason: r, message: m, lastTransitionTime: \"2026-01-01T00:00:00Z\"}]}}";
}

class ActorTestBase : public testing::JobKindActorTest {
 protected:
  void spawn(std::string_view framework, ObjectKind kind, std::vector<std::string> frameworks) {
    put_local_queue();
    spawn_links();
    JobIntegrationOptions options;
    options.frameworks = std::move(frameworks);
    jobs_ = spawn_kind(framework, kind, options);
    relist_all(jobs_, {kind});
    sched_->run();
  }

  void deliver(ObjectKind kind, const std::string& name) { JobKindActorTest::deliver(jobs_, kind, "ns", name); }

  job_actor jobs_;
};

class AppWrapperActorTest : public ActorTestBase {
 protected:
  void start() {
    put_flavors();
    api_.put(ObjectKind::AppWrapper, yaml(kAppWrapper));
    spawn("workload.codeflare.dev/appwrapper", ObjectKind::AppWrapper,
          {"batch/job", "kubeflow.org/pytorchjob", "workload.codeflare.dev/appwrapper"});
  }

  /// Pod set `i`'s nodeSelector in the component's podSetInfos (null when none).
  json::value node_selector(std::size_t i) {
    auto aw = api_.get(ObjectKind::AppWrapper, "ns", "sample-appwrapper-pytorch-job");
    const json::value* infos = json::find(aw->find({"spec", "components"})->get_array()[0], "podSetInfos");
    if (infos == nullptr || !infos->is_array() || i >= infos->get_array().size()) return json::value(nullptr);
    const json::value* found = json::find(infos->get_array()[i], "nodeSelector");
    return found != nullptr ? *found : json::value(nullptr);
  }
};

TEST_F(AppWrapperActorTest, QueuedWithKueuesPodSetsStartedWithPodSetInfosClearedWhenPreempted) {
  start();
  auto workloads = api_.list(ObjectKind::Workload);
  ASSERT_EQ(workloads.size(), 1u);
  const auto& wl = *workloads.front();
  EXPECT_EQ(wl.controller_reference()->kind, "AppWrapper");
  const json::array& pod_sets = wl.find({"spec", "podSets"})->get_array();
  ASSERT_EQ(pod_sets.size(), 2u);
  EXPECT_EQ(pod_sets[0].at("name"), "sample-appwrapper-pytorch-job-0");
  EXPECT_EQ(pod_sets[1].at("name"), "sample-appwrapper-pytorch-job-1");

  const std::string name(wl.name());
  deliver(ObjectKind::Workload, name);
  api_.change(ObjectKind::Workload, "ns", name, testing::admitted_status(kAssignments));
  deliver(ObjectKind::Workload, name);
  auto aw = api_.get(ObjectKind::AppWrapper, "ns", "sample-appwrapper-pytorch-job");
  EXPECT_EQ(aw->bool_at({"spec", "suspend"}), false);
  EXPECT_EQ(node_selector(0), yaml("{instance-type: on-demand}"));
  EXPECT_EQ(node_selector(1), yaml("{instance-type: spot}"));

  // Preempted while its resources are deployed: suspended and cleared, the quota held.
  api_.change(ObjectKind::AppWrapper, "ns", "sample-appwrapper-pytorch-job", yaml(quota_reserved("True")));
  deliver(ObjectKind::AppWrapper, "sample-appwrapper-pytorch-job");
  api_.change(ObjectKind::Workload, "ns", name, testing::preempted_status());
  deliver(ObjectKind::Workload, name);
  aw = api_.get(ObjectKind::AppWrapper, "ns", "sample-appwrapper-pytorch-job");
  EXPECT_EQ(aw->bool_at({"spec", "suspend"}), true);
  EXPECT_EQ(json::find(aw->find({"spec", "components"})->get_array()[0], "podSetInfos"), nullptr);
  EXPECT_TRUE(api_.get(ObjectKind::Workload, "ns", name)->condition_true("QuotaReserved"));
  api_.change(ObjectKind::AppWrapper, "ns", "sample-appwrapper-pytorch-job", yaml(quota_reserved("False")));
  deliver(ObjectKind::AppWrapper, "sample-appwrapper-pytorch-job");
  EXPECT_FALSE(api_.get(ObjectKind::Workload, "ns", name)->condition_true("QuotaReserved"));
}

// Kueue's parent rule: a Job an AppWrapper controls runs under the AppWrapper's Workload
// and is not queued itself; a Job of its own is.
class AppWrapperChildActorTest : public ActorTestBase {
 protected:
  void start(std::vector<std::string> frameworks) {
    api_.put(ObjectKind::Job, yaml(R"({apiVersion: batch/v1, kind: Job,
        metadata: {name: child, namespace: ns, uid: uid-child, labels: {kueue.x-k8s.io/queue-name: user-queue},
                   ownerReferences: [{apiVersion: workload.codeflare.dev/v1beta2, kind: AppWrapper, name: aw,
                                      uid: uid-aw, controller: true}]},
        spec: {suspend: true, template: {spec: {restartPolicy: Never, containers: [{name: c}]}}}})"));
    api_.put(ObjectKind::Job, yaml(R"({apiVersion: batch/v1, kind: Job,
        metadata: {name: own, namespace: ns, uid: uid-own, labels: {kueue.x-k8s.io/queue-name: user-queue}},
        spec: {suspend: true, template: {spec: {restartPolicy: Never, containers: [{name: c}]}}}})"));
    spawn("batch/job", ObjectKind::Job, std::move(frameworks));
  }

  /// The names of the Jobs that own a Workload.
  std::vector<std::string> queued() {
    std::vector<std::string> out;
    for (const auto& wl : api_.list(ObjectKind::Workload)) out.emplace_back(wl->controller_reference()->name);
    std::sort(out.begin(), out.end());
    return out;
  }
};

TEST_F(AppWrapperChildActorTest, OneAnAppWrapperControlsIsNotQueuedItself) {
  start({"batch/job", "workload.codeflare.dev/appwrapper"});
  EXPECT_EQ(queued(), std::vector<std::string>{"own"});
}

TEST_F(AppWrapperChildActorTest, WithoutTheAppWrapperIntegrationBothAreQueued) {
  start({"batch/job"});
  EXPECT_EQ(queued(), (std::vector<std::string>{"child", "own"}));
}

}  // namespace
}  // namespace kueuepp::actors
