#include "cmd/standalone/trainjob_runner.hpp"

#include <gtest/gtest.h>

#include "kube/apiserver/patch/patch.hpp"
#include "kube/jobs/trainjob.hpp"
#include "kube/json/yaml.hpp"

namespace kueuepp::cmd {
namespace {

using kube::client::Object;

constexpr std::string_view kT0 = "2026-01-01T00:00:00Z";

Object from_yaml(std::string_view text) {
  auto v = json::parse_yaml(text);
  EXPECT_TRUE(v.has_value());
  return Object(v ? *v : json::value());
}

Object runtime() {
  return from_yaml(R"(
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: torch}
spec:
  mlPolicy: {numNodes: 1, torch: {}}
  template:
    spec:
      replicatedJobs:
      - name: node
        template:
          metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
          spec:
            template:
              spec:
                containers: [{name: node, image: torch, command: [sleep, "1"]}]
)");
}

Object trainjob(bool suspended) {
  Object tj = from_yaml(R"(
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: tj, namespace: ns, uid: u1}
spec:
  runtimeRef: {name: torch}
  trainer: {numNodes: 2, command: [sleep, "3"]}
  runtimePatches:
  - manager: kueue.x-k8s.io/manager
    trainingRuntimeSpec:
      template:
        spec:
          replicatedJobs:
          - name: node
            template: {spec: {template: {spec: {nodeSelector: {instance-type: on-demand}}}}}
)");
  tj.ensure({"spec", "suspend"}) = suspended;
  return tj;
}

Object patched(const Object& o, const json::value& patch) {
  auto r = kube::patch::merge_patch(o.json(), patch);
  EXPECT_TRUE(r.has_value());
  return Object(r ? *r : json::value());
}

TEST(TrainJobRunner, AnUnsuspendedTrainJobGetsTheJobSetTheTrainerBuilds) {
  const Object rt = runtime();
  EXPECT_FALSE(trainjob_step(trainjob(true), &rt, nullptr, kT0).create_jobset.has_value());
  EXPECT_FALSE(trainjob_step(trainjob(false), nullptr, nullptr, kT0).create_jobset.has_value());  // no runtime yet
  TrainJobStep step = trainjob_step(trainjob(false), &rt, nullptr, kT0);
  ASSERT_TRUE(step.create_jobset.has_value());
  const Object& js = *step.create_jobset;
  EXPECT_EQ(js.name(), "tj");
  EXPECT_EQ(js.namespace_name(), "ns");
  auto owner = js.controller_reference();
  ASSERT_TRUE(owner.has_value());
  EXPECT_EQ(owner->kind, "TrainJob");
  EXPECT_EQ(owner->uid, "u1");
  EXPECT_EQ(js.bool_at({"spec", "suspend"}), false);
  const json::value& rjob = js.find({"spec", "replicatedJobs"})->get_array()[0];
  EXPECT_EQ(*json::find_path(rjob, {"template", "spec", "parallelism"}), json::value(2));
  const json::value& pod = *json::find_path(rjob, {"template", "spec", "template", "spec"});
  EXPECT_EQ(json::get_string(*json::find(pod, "nodeSelector"), "instance-type"), "on-demand");
  EXPECT_EQ(json::find(pod, "containers")->get_array()[0].at("command"), json::parse_yaml("[sleep, '3']").value());
}

TEST(TrainJobRunner, SuspendedAgainItsJobSetIsSuspendedAndResumedRebuilt) {
  const Object rt = runtime();
  Object js = *trainjob_step(trainjob(false), &rt, nullptr, kT0).create_jobset;
  TrainJobStep stop = trainjob_step(trainjob(true), &rt, &js, kT0);
  ASSERT_TRUE(stop.jobset_patch.has_value());
  Object suspended = patched(js, *stop.jobset_patch);
  EXPECT_EQ(suspended.bool_at({"spec", "suspend"}), true);
  EXPECT_FALSE(trainjob_step(trainjob(true), &rt, &suspended, kT0).jobset_patch.has_value());
  // Resumed with another flavor: the JobSet takes the TrainJob's patch of then.
  Object resumed_tj = trainjob(false);
  resumed_tj.ensure({"spec", "runtimePatches"}).as_array()[0] =
      json::parse_yaml("{manager: kueue.x-k8s.io/manager, trainingRuntimeSpec: {template: {spec: {replicatedJobs: "
                       "[{name: node, template: {spec: {template: {spec: {nodeSelector: {instance-type: spot}}}}}}]}}}}")
          .value();
  TrainJobStep resume = trainjob_step(resumed_tj, &rt, &suspended, kT0);
  ASSERT_TRUE(resume.jobset_patch.has_value());
  Object running = patched(suspended, *resume.jobset_patch);
  EXPECT_EQ(running.bool_at({"spec", "suspend"}), false);
  const json::value& rjob = running.find({"spec", "replicatedJobs"})->get_array()[0];
  EXPECT_EQ(json::get_string(*json::find_path(rjob, {"template", "spec", "template", "spec", "nodeSelector"}),
                             "instance-type"),
            "spot");
}

TEST(TrainJobRunner, ItsStatusFollowsTheJobSetAndKueueReadsItAsFinished) {
  const Object rt = runtime();
  const Object tj = trainjob(false);
  Object js = *trainjob_step(tj, &rt, nullptr, kT0).create_jobset;
  js.ensure({"status"}) = json::parse_yaml("{replicatedJobsStatus: [{name: node, ready: 1, succeeded: 0, failed: 0, "
                                           "active: 1, suspended: 0}]}")
                              .value();
  TrainJobStep running = trainjob_step(tj, &rt, &js, kT0);
  ASSERT_TRUE(running.status.has_value());
  Object tj_running = patched(tj, json::object{{"status", *running.status}});
  const kube::jobs::JobIntegration& kueue = kube::jobs::trainjob_integration();
  EXPECT_TRUE(kueue.active(tj_running));
  EXPECT_FALSE(kueue.finished(tj_running).has_value());
  EXPECT_FALSE(trainjob_step(tj_running, &rt, &js, kT0).status.has_value());  // nothing new
  js.ensure({"status"}) = json::parse_yaml(
                              "{replicatedJobsStatus: [{name: node, ready: 0, succeeded: 1, failed: 0, active: 0, "
                              "suspended: 0}], conditions: [{type: Completed, status: 'True', reason: AllJobsCompleted, "
                              "message: jobset completed successfully}]}")
                              .value();
  TrainJobStep done = trainjob_step(tj_running, &rt, &js, kT0);
  ASSERT_TRUE(done.status.has_value());
  Object tj_done = patched(tj_running, json::object{{"status", *done.status}});
  EXPECT_FALSE(kueue.active(tj_done));
  auto f = kueue.finished(tj_done);
  ASSERT_TRUE(f.has_value());
  EXPECT_TRUE(f->succeeded);
  EXPECT_EQ(f->message, "jobset completed successfully");
  // Finished: the trainer leaves it.
  TrainJobStep after = trainjob_step(tj_done, &rt, &js, kT0);
  EXPECT_FALSE(after.status || after.jobset_patch || after.create_jobset);
}

}  // namespace
}  // namespace kueuepp::cmd
