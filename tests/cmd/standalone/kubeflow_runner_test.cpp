#include "cmd/standalone/kubeflow_runner.hpp"

#include <gtest/gtest.h>

#include "kube/apiserver/patch/patch.hpp"
#include "kube/json/yaml.hpp"

namespace kueuepp::cmd {
namespace {

using kube::client::Object;

const kube::jobs::KubeflowKind& pytorch() { return *kube::jobs::find_kubeflow_kind("kubeflow.org/pytorchjob"); }

Object job() {
  auto v = json::parse_yaml(R"(
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: pt, namespace: ns, uid: u1}
spec:
  runPolicy: {suspend: false}
  pytorchReplicaSpecs:
    Master:
      template: {spec: {containers: [{name: c, command: [sleep, "3"]}]}}
    Worker:
      replicas: 3
      template: {spec: {containers: [{name: c, command: [sh, -c, "sleep 8 && echo done"]}]}}
)");
  EXPECT_TRUE(v.has_value());
  return Object(*v);
}

std::string condition_status(const json::object& status, std::string_view type) {
  for (const json::value& c : status.at("conditions").as_array()) {
    if (json::get_string(c, "type") == type) return std::string(json::get_string(c, "status"));
  }
  return "absent";
}

constexpr std::string_view kT0 = "2026-01-01T00:00:00Z";

TEST(KubeflowRunner, RunningCountsEveryReplicaActiveAndIsWhatKueueReadsAsReady) {
  json::object s = kubeflow_status(pytorch(), job(), KubeflowPhase::Running, kT0);
  EXPECT_EQ(condition_status(s, "Created"), "True");
  EXPECT_EQ(condition_status(s, "Running"), "True");
  EXPECT_EQ(condition_status(s, "Succeeded"), "absent");
  EXPECT_EQ(s.at("replicaStatuses").at("Master").at("active"), 1);  // replicas defaults to 1
  EXPECT_EQ(s.at("replicaStatuses").at("Worker").at("active"), 3);
  // What Kueue reads of it: pods ready and active, not finished.
  Object running = job();
  running.ensure({"status"}) = s;
  const auto& integration = kube::jobs::pytorchjob_integration();
  EXPECT_TRUE(integration.pods_ready(running));
  EXPECT_TRUE(integration.active(running));
  EXPECT_FALSE(integration.finished(running).has_value());
}

TEST(KubeflowRunner, SuspendedStopsThePodsAndSucceededEndsTheJob) {
  Object running = job();
  running.ensure({"status"}) = kubeflow_status(pytorch(), running, KubeflowPhase::Running, kT0);
  json::object suspended = kubeflow_status(pytorch(), running, KubeflowPhase::Suspended, kT0);
  EXPECT_EQ(condition_status(suspended, "Running"), "False");
  EXPECT_EQ(condition_status(suspended, "Suspended"), "True");
  EXPECT_EQ(suspended.at("replicaStatuses").at("Worker").at("active"), 0);
  // Merge-patched over the running status, as the runner writes it: nothing is active.
  auto patched = kube::patch::merge_patch(running.json(), json::object{{"status", suspended}});
  ASSERT_TRUE(patched.has_value());
  EXPECT_FALSE(kube::jobs::pytorchjob_integration().active(Object(*patched)));
  // Resumed: Suspended goes False again.
  Object stopped = job();
  stopped.ensure({"status"}) = suspended;
  EXPECT_EQ(condition_status(kubeflow_status(pytorch(), stopped, KubeflowPhase::Running, kT0), "Suspended"), "False");

  json::object done = kubeflow_status(pytorch(), running, KubeflowPhase::Succeeded, kT0);
  EXPECT_EQ(condition_status(done, "Succeeded"), "True");
  EXPECT_EQ(condition_status(done, "Running"), "False");
  EXPECT_EQ(done.at("replicaStatuses").at("Worker").at("succeeded"), 3);
  Object finished = job();
  finished.ensure({"status"}) = done;
  const auto& integration = kube::jobs::pytorchjob_integration();
  ASSERT_TRUE(integration.finished(finished).has_value());
  EXPECT_TRUE(integration.finished(finished)->succeeded);
  EXPECT_FALSE(integration.active(finished));
}

TEST(KubeflowRunner, RunsForTheLongestSleepOfItsReplicas) {
  EXPECT_EQ(kubeflow_requested_duration(pytorch(), job()), std::chrono::milliseconds(8'000));
  Object none = job();
  none.erase({"spec", "pytorchReplicaSpecs"});
  EXPECT_FALSE(kubeflow_requested_duration(pytorch(), none).has_value());
}

}  // namespace
}  // namespace kueuepp::cmd
