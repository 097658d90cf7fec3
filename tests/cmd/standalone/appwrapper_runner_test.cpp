#include "cmd/standalone/appwrapper_runner.hpp"

#include <gtest/gtest.h>

#include "kube/json/yaml.hpp"

namespace kueuepp::cmd {
namespace {

using kube::client::Object;

constexpr std::string_view kNow = "2026-01-01T00:00:00Z";

json::value yaml(std::string_view text) {
  auto v = json::parse_yaml(text);
  EXPECT_TRUE(v.has_value());
  return v ? *v : json::value(nullptr);
}

/// An AppWrapper of one batch/v1 Job of two pods, admitted on a flavor (podSetInfos).
Object appwrapper(bool suspended) {
  Object aw(yaml(R"(
apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata: {name: aw, namespace: ns, uid: aw-uid, labels: {kueue.x-k8s.io/queue-name: q}}
spec:
  components:
  - podSetInfos:
    - nodeSelector: {instance-type: on-demand}
      labels: {kueue.x-k8s.io/podset: aw-0}
    template:
      apiVersion: batch/v1
      kind: Job
      metadata: {name: wrapped}
      spec:
        parallelism: 2
        template:
          spec:
            restartPolicy: Never
            containers: [{name: c, image: busybox, command: [sleep, "1"]}]
)"));
  aw.ensure({"spec", "suspend"}) = suspended;
  return aw;
}

/// The Job the runner made for `aw`, with `conditions`.
Object child(const Object& aw, std::string_view conditions = "[]") {
  auto made = appwrapper_component(aw, 0);
  EXPECT_TRUE(made.has_value());
  Object job = made ? *made : Object();
  job.ensure({"status", "conditions"}) = yaml(conditions);
  return job;
}

std::string condition(const json::value& status, std::string_view type) {
  const json::value* list = json::find(status, "conditions");
  if (list == nullptr || !list->is_array()) return "<none>";
  for (const json::value& c : list->get_array()) {
    if (json::get_string(c, "type") == type) return std::string(json::get_string(c, "status"));
  }
  return "<none>";
}

Object with_status(Object aw, const json::value& status) {
  aw.ensure({"status"}) = status;
  return aw;
}

TEST(AppWrapperRunner, AnUnsuspendedAppWrapperGetsItsComponentOwnedWithThePodSetInfosApplied) {
  Object aw = appwrapper(false);
  AppWrapperStep step = appwrapper_step(aw, {}, kNow);
  ASSERT_EQ(step.create.size(), 1U);
  const Object& job = step.create[0];
  EXPECT_EQ(job.kind(), "Job");
  EXPECT_EQ(job.name(), "wrapped");
  EXPECT_EQ(job.namespace_name(), "ns");
  auto owner = job.controller_reference();
  ASSERT_TRUE(owner.has_value());
  EXPECT_EQ(owner->kind, "AppWrapper");
  EXPECT_EQ(owner->uid, "aw-uid");
  EXPECT_EQ(job.string_at({"spec", "template", "spec", "nodeSelector", "instance-type"}), "on-demand");
  EXPECT_EQ(job.string_at({"spec", "template", "metadata", "labels", "kueue.x-k8s.io/podset"}), "aw-0");
  EXPECT_EQ(job.string_at({"spec", "template", "metadata", "labels", "workload.codeflare.dev/appwrapper"}), "aw");
  ASSERT_TRUE(step.status.has_value());
  EXPECT_EQ(json::get_string(*step.status, "phase"), "Resuming");
  EXPECT_EQ(condition(*step.status, "QuotaReserved"), "True");
  EXPECT_EQ(json::find(*step.status, "componentStatus")->as_array().size(), 1U);
}

TEST(AppWrapperRunner, ItRunsWhileItsComponentRunsAndSucceedsWithIt) {
  Object aw = appwrapper(false);
  Object resumed = with_status(aw, *appwrapper_step(aw, {}, kNow).status);
  AppWrapperStep running = appwrapper_step(resumed, {child(aw)}, kNow);
  EXPECT_TRUE(running.create.empty());
  ASSERT_TRUE(running.status.has_value());
  EXPECT_EQ(json::get_string(*running.status, "phase"), "Running");
  EXPECT_EQ(condition(*running.status, "PodsReady"), "True");
  Object now_running = with_status(resumed, *running.status);
  EXPECT_FALSE(appwrapper_step(now_running, {child(aw)}, kNow).status.has_value()) << "nothing changed";

  AppWrapperStep done =
      appwrapper_step(now_running, {child(aw, R"([{type: Complete, status: "True"}])")}, kNow);
  ASSERT_TRUE(done.status.has_value());
  EXPECT_EQ(json::get_string(*done.status, "phase"), "Succeeded");
  EXPECT_EQ(condition(*done.status, "QuotaReserved"), "False");
  EXPECT_TRUE(done.remove.empty()) << "a succeeded component is left, as the AppWrapper controller leaves it";
}

TEST(AppWrapperRunner, SuspendedItsComponentsAreDeletedThenItIsSuspended) {
  Object aw = appwrapper(false);
  Object running = with_status(aw, *appwrapper_step(aw, {child(aw)}, kNow).status);
  running.ensure({"spec", "suspend"}) = true;
  AppWrapperStep suspending = appwrapper_step(running, {child(aw)}, kNow);
  ASSERT_EQ(suspending.remove.size(), 1U);
  EXPECT_EQ(suspending.remove[0].name(), "wrapped");
  EXPECT_EQ(json::get_string(*suspending.status, "phase"), "Suspending");
  EXPECT_EQ(condition(*suspending.status, "QuotaReserved"), "True") << "its pods may still exist";

  AppWrapperStep suspended = appwrapper_step(with_status(running, *suspending.status), {}, kNow);
  ASSERT_TRUE(suspended.status.has_value());
  EXPECT_EQ(json::get_string(*suspended.status, "phase"), "Suspended");
  EXPECT_EQ(condition(*suspended.status, "QuotaReserved"), "False");
  EXPECT_TRUE(suspended.create.empty());
}

TEST(AppWrapperRunner, AFailedComponentFailsItAndItsComponentsAreDeleted) {
  Object aw = appwrapper(false);
  Object running = with_status(aw, *appwrapper_step(aw, {child(aw)}, kNow).status);
  AppWrapperStep failed = appwrapper_step(running, {child(aw, R"([{type: Failed, status: "True"}])")}, kNow);
  EXPECT_EQ(json::get_string(*failed.status, "phase"), "Failed");
  Object now_failed = with_status(running, *failed.status);
  AppWrapperStep deleting = appwrapper_step(now_failed, {child(aw)}, kNow);
  EXPECT_EQ(deleting.remove.size(), 1U);
  AppWrapperStep gone = appwrapper_step(now_failed, {}, kNow);
  ASSERT_TRUE(gone.status.has_value());
  EXPECT_EQ(condition(*gone.status, "ResourcesDeployed"), "False");
}

TEST(AppWrapperRunner, OnlyObjectsItControlsCount) {
  Object aw = appwrapper(false);
  Object stranger = child(aw);
  stranger.ensure({"metadata", "ownerReferences"}).as_array()[0].as_object()["uid"] = "other-uid";
  AppWrapperStep step = appwrapper_step(aw, {stranger}, kNow);
  EXPECT_EQ(step.create.size(), 1U) << "another AppWrapper's Job of the same name is not this one's";
}

TEST(AppWrapperRunner, ComponentsItCannotBuildAreReportedNotCreated) {
  Object aw = appwrapper(false);
  aw.ensure({"spec", "components"}).as_array()[0].as_object()["template"] =
      yaml("{apiVersion: example.com/v1, kind: Widget, metadata: {name: w}, spec: {}}");
  AppWrapperStep step = appwrapper_step(aw, {}, kNow);
  EXPECT_TRUE(step.create.empty());
  ASSERT_EQ(step.problems.size(), 1U);
  EXPECT_NE(step.problems[0].find("Widget"), std::string::npos) << step.problems[0];
}

}  // namespace
}  // namespace kueuepp::cmd
