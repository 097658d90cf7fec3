#include "kube/jobs/job_start_stop.hpp"

#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "kube/apiserver/patch/patch.hpp"

namespace kueuepp::kube::jobs {
namespace {

using testing::object;
using testing::yaml;

class StartStopTest : public ::testing::Test {
 protected:
  client::Object job = object(testing::kJob);
  client::Object workload = object(testing::kAdmittedWorkload);
  client::Object flavor = object(testing::kFlavor);
  FlavorLookup lookup = [this](std::string_view name) -> const client::Object* {
    return name == "default-flavor" ? &flavor : nullptr;
  };
};

TEST_F(StartStopTest, StartInjectsFlavorAndUnsuspends) {
  auto r = start_job(job, workload, lookup);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_TRUE(r->changed);
  EXPECT_EQ(r->message, "Admitted by clusterQueue cluster-queue");
  const client::Object& j = r->job;
  EXPECT_EQ(j.bool_at({"spec", "suspend"}), false);
  EXPECT_EQ(j.int_at({"spec", "parallelism"}), 3);  // no partial admission: untouched
  EXPECT_EQ(*j.find({"spec", "template", "spec", "nodeSelector"}), yaml("{instance-type: on-demand, zone: a}"));
  EXPECT_EQ(*j.find({"spec", "template", "spec", "tolerations"}), yaml("[{key: spot, operator: Exists, effect: NoSchedule}]"));
  auto labels = j.string_map_at({"spec", "template", "metadata", "labels"});
  EXPECT_EQ(labels.at("kueue.x-k8s.io/podset"), "main");
  EXPECT_EQ(labels.at("kueue.x-k8s.io/local-queue-name"), "user-queue");
  EXPECT_EQ(labels.at("kueue.x-k8s.io/cluster-queue-name"), "cluster-queue");
  EXPECT_EQ(labels.at("app"), "demo");
  EXPECT_EQ(j.string_at({"spec", "template", "metadata", "annotations", "kueue.x-k8s.io/workload"}),
            "job-sample-job-2e47a");
  // The patch turns the given Job into the started one.
  auto applied = patch::merge_patch(job.json(), r->patch);
  ASSERT_TRUE(applied.has_value());
  EXPECT_EQ(*applied, j.json());
}

TEST_F(StartStopTest, StartingARunningJobChangesNothing) {
  auto first = start_job(job, workload, lookup);
  auto again = start_job(first->job, workload, lookup);
  ASSERT_TRUE(again.has_value());
  EXPECT_FALSE(again->changed);
  EXPECT_EQ(again->patch, json::value(json::object{}));
}

TEST_F(StartStopTest, KeepsExistingSelectorAndTolerations) {
  job.ensure({"spec", "template", "spec", "nodeSelector"}) = yaml("{disk: ssd}");
  job.ensure({"spec", "template", "spec", "tolerations"}) = yaml("[{key: spot, operator: Exists, effect: NoSchedule}]");
  auto r = start_job(job, workload, lookup);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(*r->job.find({"spec", "template", "spec", "nodeSelector"}), yaml("{disk: ssd, instance-type: on-demand, zone: a}"));
  EXPECT_EQ(r->job.find({"spec", "template", "spec", "tolerations"})->as_array().size(), 1u);
}

TEST_F(StartStopTest, ConflictingSelectorIsPermanent) {
  job.ensure({"spec", "template", "spec", "nodeSelector"}) = yaml("{zone: b}");
  auto r = start_job(job, workload, lookup);
  ASSERT_FALSE(r.has_value());
  EXPECT_TRUE(r.error().permanent);
  EXPECT_NE(r.error().message.find("conflict for nodeSelector"), std::string::npos);
  EXPECT_NE(r.error().message.find("ns/sample-job"), std::string::npos);
}

TEST_F(StartStopTest, MissingFlavorIsTransient) {
  FlavorLookup none = [](std::string_view) -> const client::Object* { return nullptr; };
  auto r = start_job(job, workload, none);
  ASSERT_FALSE(r.has_value());
  EXPECT_FALSE(r.error().permanent);
}

TEST_F(StartStopTest, NoAdmissionCannotStart) {
  workload.erase({"status", "admission"});
  auto r = start_job(job, workload, lookup);
  ASSERT_FALSE(r.has_value());
  EXPECT_FALSE(r.error().permanent);
}

TEST_F(StartStopTest, TwoPodSetsIsPermanent) {
  json::value& psa = workload.ensure({"status", "admission", "podSetAssignments"});
  psa.as_array().push_back(psa.as_array()[0]);
  auto r = start_job(job, workload, lookup);
  ASSERT_FALSE(r.has_value());
  EXPECT_TRUE(r.error().permanent);
  EXPECT_EQ(r.error().message, "invalid podset infos: expecting 1 podset, got 2");
}

TEST_F(StartStopTest, PartialAdmissionSetsParallelism) {
  job.set_annotation("kueue.x-k8s.io/job-min-parallelism", "1");
  workload.ensure({"status", "admission", "podSetAssignments"}).as_array()[0].as_object()["count"] = 2;
  auto r = start_job(job, workload, lookup);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->job.int_at({"spec", "parallelism"}), 2);
  EXPECT_EQ(r->job.int_at({"spec", "completions"}), 3);
  job.set_annotation("kueue.x-k8s.io/job-completions-equal-parallelism", "true");
  r = start_job(job, workload, lookup);
  EXPECT_EQ(r->job.int_at({"spec", "completions"}), 2);
}

TEST_F(StartStopTest, CountIgnoredWithoutPartialAdmission) {
  workload.ensure({"status", "admission", "podSetAssignments"}).as_array()[0].as_object()["count"] = 2;
  auto r = start_job(job, workload, lookup);
  EXPECT_EQ(r->job.int_at({"spec", "parallelism"}), 3);
}

TEST_F(StartStopTest, StopRunningJobInThreeSteps) {
  client::Object running = start_job(job, workload, lookup)->job;
  running.ensure({"status", "startTime"}) = "2026-01-01T00:00:05Z";
  StopResult s = stop_job(running, &workload);
  EXPECT_TRUE(s.changed);
  EXPECT_EQ(s.suspend_patch, yaml(R"({metadata: {annotations: {kueue.x-k8s.io/stopping: "true"}}, spec: {suspend: true}})"));
  EXPECT_TRUE(s.clear_start_time);
  EXPECT_EQ(clear_start_time_patch(), yaml("{status: {startTime: null}}"));
  // The final Job is the original one again (labels, selector, tolerations, annotations).
  EXPECT_EQ(s.job.bool_at({"spec", "suspend"}), true);
  EXPECT_FALSE(s.job.annotation("kueue.x-k8s.io/stopping"));
  EXPECT_EQ(s.job.find({"spec", "template", "spec", "nodeSelector"}), nullptr);
  EXPECT_EQ(s.job.find({"spec", "template", "spec", "tolerations"}), nullptr);
  EXPECT_EQ(s.job.find({"spec", "template", "metadata", "annotations"}), nullptr);
  EXPECT_EQ(s.job.string_map_at({"spec", "template", "metadata", "labels"}),
            job.string_map_at({"spec", "template", "metadata", "labels"}));
  // Applying the three writes in order gives the final Job.
  json::value doc = running.json();
  doc = *patch::merge_patch(doc, s.suspend_patch);
  doc = *patch::merge_patch(doc, clear_start_time_patch());
  doc = *patch::merge_patch(doc, s.restore_patch);
  EXPECT_EQ(doc, s.job.json());
  EXPECT_EQ(json::find(s.restore_patch, "status"), nullptr);
}

TEST_F(StartStopTest, StopAlreadyStoppedJobChangesNothing) {
  StopResult s = stop_job(job, &workload);
  EXPECT_FALSE(s.changed);
  EXPECT_TRUE(s.suspend_patch.is_null());
  EXPECT_TRUE(s.restore_patch.is_null());
  EXPECT_FALSE(s.clear_start_time);
}

TEST_F(StartStopTest, StopWithoutWorkloadOnlySuspends) {
  job.ensure({"spec", "suspend"}) = false;
  job.ensure({"spec", "template", "spec", "nodeSelector"}) = yaml("{zone: a}");
  StopResult s = stop_job(job, nullptr);
  EXPECT_TRUE(s.changed);
  EXPECT_FALSE(s.suspend_patch.is_null());
  EXPECT_EQ(*s.job.find({"spec", "template", "spec", "nodeSelector"}), yaml("{zone: a}"));
  // The stopping annotation set in write 1 is removed in write 3.
  EXPECT_EQ(s.restore_patch, yaml(R"({metadata: {annotations: null}})"));  // the Job had none
}

TEST_F(StartStopTest, InterruptedStopIsResumed) {
  job.set_annotation("kueue.x-k8s.io/stopping", "true");  // suspend=true already
  StopResult s = stop_job(job, &workload);
  EXPECT_TRUE(s.changed);
  EXPECT_TRUE(s.suspend_patch.is_null());
  EXPECT_FALSE(s.job.annotation("kueue.x-k8s.io/stopping"));
}

TEST_F(StartStopTest, StopRestoresParallelismUnderPartialAdmission) {
  job.set_annotation("kueue.x-k8s.io/job-min-parallelism", "1");
  job.set_annotation("kueue.x-k8s.io/job-completions-equal-parallelism", "true");
  job.ensure({"spec", "parallelism"}) = 2;
  job.ensure({"spec", "completions"}) = 2;
  job.ensure({"spec", "suspend"}) = false;
  StopResult s = stop_job(job, &workload);
  EXPECT_EQ(s.job.int_at({"spec", "parallelism"}), 3);
  EXPECT_EQ(s.job.int_at({"spec", "completions"}), 3);
}

TEST_F(StartStopTest, StopKeepsJobControllerLabels) {
  client::Object running = start_job(job, workload, lookup)->job;
  running.ensure({"spec", "template", "metadata", "labels", "controller-uid"}) = "new-uid";
  StopResult s = stop_job(running, &workload);
  auto labels = s.job.string_map_at({"spec", "template", "metadata", "labels"});
  EXPECT_EQ(labels.at("controller-uid"), "new-uid");
  EXPECT_EQ(labels.at("job-name"), "sample-job");
  EXPECT_FALSE(labels.contains("kueue.x-k8s.io/podset"));
}

}  // namespace
}  // namespace kueuepp::kube::jobs
