#include "cmd/standalone/jobset_runner.hpp"

#include <gtest/gtest.h>

#include "kube/json/yaml.hpp"

namespace kueuepp::cmd {
namespace {

using kube::client::Object;

constexpr std::string_view kNow = "2026-01-01T00:00:00Z";

Object object(std::string_view text) {
  auto v = json::parse_yaml(text);
  EXPECT_TRUE(v.has_value());
  return Object(v ? *v : json::value(nullptr));
}

/// Two replicated jobs: workers (2 replicas) and driver (1), running.
Object jobset(bool suspended = false) {
  Object js = object(R"(
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js, namespace: ns, uid: js-uid}
spec:
  replicatedJobs:
  - name: workers
    replicas: 2
    template:
      spec:
        parallelism: 1
        completions: 1
        template:
          metadata: {labels: {kueue.x-k8s.io/podset: workers}}
          spec:
            nodeSelector: {instance-type: spot}
            containers: [{name: c, image: busybox, command: [sleep, "1"]}]
  - name: driver
    template:
      spec:
        template:
          spec:
            containers: [{name: c, image: busybox}]
)");
  js.ensure({"spec", "suspend"}) = suspended;
  return js;
}

/// The child Job the runner created, with the given status.
Object child(const Object& created, std::string_view status_yaml) {
  Object c = created;
  c.json().as_object()["metadata"].as_object()["uid"] = "uid-" + std::string(c.name());
  c.ensure({"status"}) = object(status_yaml).json();
  return c;
}

TEST(JobSetRunner, AResumedJobSetGetsOneOwnedJobPerReplicaWithItsTemplate) {
  JobSetStep step = jobset_step(jobset(), {}, kNow);
  ASSERT_EQ(step.create.size(), 3u);
  EXPECT_EQ(step.create[0].name(), "js-workers-0");
  EXPECT_EQ(step.create[1].name(), "js-workers-1");
  EXPECT_EQ(step.create[2].name(), "js-driver-0");
  const Object& w = step.create[1];
  auto owner = w.controller_reference();
  ASSERT_TRUE(owner.has_value());
  EXPECT_EQ(owner->kind, "JobSet");
  EXPECT_EQ(owner->uid, "js-uid");
  EXPECT_EQ(w.label("jobset.sigs.k8s.io/job-index"), "1");
  EXPECT_EQ(w.string_at({"spec", "template", "spec", "nodeSelector", "instance-type"}), "spot");
  EXPECT_EQ(w.string_at({"spec", "template", "metadata", "labels", "jobset.sigs.k8s.io/replicatedjob-name"}), "workers");
  EXPECT_EQ(w.find({"spec", "suspend"}), nullptr);
  EXPECT_TRUE(step.remove.empty());
  ASSERT_TRUE(step.status.has_value());
  EXPECT_EQ(json::find(*step.status, "conditions"), nullptr);
}

TEST(JobSetRunner, NothingCreatedWhileSuspended) {
  JobSetStep step = jobset_step(jobset(true), {}, kNow);
  EXPECT_TRUE(step.create.empty());
  EXPECT_TRUE(step.remove.empty());
}

TEST(JobSetRunner, StatusFollowsChildrenAndCompletesWhenAllDid) {
  Object js = jobset();
  std::vector<Object> created = jobset_step(js, {}, kNow).create;
  std::vector<Object> children{child(created[0], "{active: 1, ready: 1}"),
                               child(created[1], "{conditions: [{type: Complete, status: 'True'}]}"),
                               child(created[2], "{active: 1, ready: 0}")};
  JobSetStep step = jobset_step(js, children, kNow);
  EXPECT_TRUE(step.create.empty());
  ASSERT_TRUE(step.status.has_value());
  const json::array& statuses = json::find(*step.status, "replicatedJobsStatus")->get_array();
  EXPECT_EQ(statuses[0], json::parse_yaml("{name: workers, ready: 1, succeeded: 1, failed: 0, active: 1, suspended: 0}").value());
  EXPECT_EQ(statuses[1], json::parse_yaml("{name: driver, ready: 0, succeeded: 0, failed: 0, active: 1, suspended: 0}").value());
  EXPECT_EQ(json::find(*step.status, "conditions"), nullptr);

  for (auto& c : children) c.ensure({"status"}) = *json::parse_yaml("{conditions: [{type: Complete, status: 'True'}]}");
  step = jobset_step(js, children, kNow);
  ASSERT_TRUE(step.status.has_value());
  const json::value* conditions = json::find(*step.status, "conditions");
  ASSERT_NE(conditions, nullptr);
  EXPECT_EQ(json::get_string(conditions->get_array()[0], "type"), "Completed");
}

TEST(JobSetRunner, OneFailedChildFailsTheJobSet) {
  Object js = jobset();
  std::vector<Object> created = jobset_step(js, {}, kNow).create;
  std::vector<Object> children{child(created[0], "{conditions: [{type: Failed, status: 'True'}]}")};
  JobSetStep step = jobset_step(js, children, kNow);
  ASSERT_TRUE(step.status.has_value());
  EXPECT_EQ(json::get_string(json::find(*step.status, "conditions")->get_array()[0], "type"), "Failed");
}

TEST(JobSetRunner, SuspendingDeletesTheChildrenAndZeroesActive) {
  Object running = jobset();
  std::vector<Object> created = jobset_step(running, {}, kNow).create;
  std::vector<Object> children;
  for (const auto& c : created) children.push_back(child(c, "{active: 1, ready: 1}"));
  JobSetStep step = jobset_step(jobset(true), children, kNow);
  EXPECT_EQ(step.remove, (std::vector<std::string>{"js-workers-0", "js-workers-1", "js-driver-0"}));
  ASSERT_TRUE(step.status.has_value());
  for (const auto& s : json::find(*step.status, "replicatedJobsStatus")->get_array()) {
    EXPECT_EQ(s.at("active"), 0);
  }
}

TEST(JobSetRunner, JobsOfAnotherOwnerAreNotItsChildren) {
  Object js = jobset();
  std::vector<Object> created = jobset_step(js, {}, kNow).create;
  Object stranger = child(created[0], "{active: 1}");
  stranger.json().as_object()["metadata"].as_object()["ownerReferences"] = json::array{};
  EXPECT_EQ(jobset_step(js, {stranger}, kNow).create.size(), 3u);
}

TEST(JobSetRunner, AFinishedJobSetIsLeftAlone) {
  Object js = jobset();
  js.ensure({"status", "conditions"}) = *json::parse_yaml("[{type: Completed, status: 'True'}]");
  JobSetStep step = jobset_step(js, {}, kNow);
  EXPECT_TRUE(step.create.empty());
  EXPECT_FALSE(step.status.has_value());
}

}  // namespace
}  // namespace kueuepp::cmd
