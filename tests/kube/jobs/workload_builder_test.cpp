#include "kube/jobs/workload_builder.hpp"

#include <gtest/gtest.h>

#include "fixtures.hpp"

namespace kueuepp::kube::jobs {
namespace {

using testing::object;
using testing::yaml;

BuildOptions options_with_classes() {
  BuildOptions o;
  o.workload_priority_class = [](std::string_view name) -> std::optional<std::int32_t> {
    if (name == "high") return 1000;
    return std::nullopt;
  };
  o.priority_class = [](std::string_view name) -> std::optional<std::int32_t> {
    if (name == "pod-high") return 500;
    return std::nullopt;
  };
  return o;
}

TEST(WorkloadBuilder, PlainJob) {
  auto wl = build_workload(object(testing::kJob), BuildOptions{});
  ASSERT_TRUE(wl.has_value()) << wl.error().message;
  EXPECT_EQ(wl->api_version(), "kueue.x-k8s.io/v1beta2");
  EXPECT_EQ(wl->kind(), "Workload");
  EXPECT_EQ(wl->name(), "job-sample-job-2e47a");
  EXPECT_EQ(wl->namespace_name(), "ns");
  EXPECT_EQ(wl->json().at_pointer("/metadata/ownerReferences"), yaml(R"(
- {apiVersion: batch/v1, kind: Job, name: sample-job, uid: uid-1, controller: true, blockOwnerDeletion: true}
)"));
  EXPECT_EQ(wl->label("kueue.x-k8s.io/job-uid"), "uid-1");
  EXPECT_EQ(wl->finalizers(), std::vector<std::string>{"kueue.x-k8s.io/resource-in-use"});
  EXPECT_EQ(wl->string_at({"spec", "queueName"}), "user-queue");
  EXPECT_EQ(wl->int_at({"spec", "priority"}), 0);
  EXPECT_EQ(wl->find({"spec", "priorityClassRef"}), nullptr);
  EXPECT_EQ(wl->find({"spec", "active"}), nullptr);
  EXPECT_EQ(wl->find({"spec", "maximumExecutionTimeSeconds"}), nullptr);
  const json::value& ps = wl->find({"spec", "podSets"})->as_array()[0];
  EXPECT_EQ(ps.at("name").as_string(), "main");
  EXPECT_EQ(ps.at("count").as_int64(), 3);
  EXPECT_EQ(ps.at_pointer("/template/spec/containers/0/resources/requests/cpu").as_string(), "1");
  EXPECT_EQ(wl->find({"status"}), nullptr);
}

TEST(WorkloadBuilder, DefaultQueueForJobsWithoutLabel) {
  client::Object job = object(testing::kJob);
  job.remove_label("kueue.x-k8s.io/queue-name");
  auto none = build_workload(job, BuildOptions{});
  ASSERT_FALSE(none.has_value());
  EXPECT_NE(none.error().message.find("ns/sample-job"), std::string::npos);
  BuildOptions o;
  o.default_queue = "default";
  auto wl = build_workload(job, o);
  ASSERT_TRUE(wl.has_value());
  EXPECT_EQ(wl->string_at({"spec", "queueName"}), "default");
}

TEST(WorkloadBuilder, MinCountWithPartialAdmission) {
  client::Object job = object(testing::kJob);
  job.set_annotation("kueue.x-k8s.io/job-min-parallelism", "2");
  auto wl = build_workload(job, BuildOptions{});
  ASSERT_TRUE(wl.has_value()) << wl.error().message;
  EXPECT_EQ(wl->find({"spec", "podSets"})->as_array()[0].at("minCount").as_int64(), 2);
  BuildOptions off;
  off.partial_admission = false;
  auto without = build_workload(job, off);
  EXPECT_EQ(json::find(without->find({"spec", "podSets"})->as_array()[0], "minCount"), nullptr);
}

TEST(WorkloadBuilder, InvalidMinParallelism) {
  for (const char* bad : {"3", "0", "-1", "x"}) {
    client::Object job = object(testing::kJob);
    job.set_annotation("kueue.x-k8s.io/job-min-parallelism", bad);
    auto wl = build_workload(job, BuildOptions{});
    ASSERT_FALSE(wl.has_value()) << bad;
    EXPECT_NE(wl.error().message.find("Job ns/sample-job"), std::string::npos);
    EXPECT_NE(wl.error().message.find("job-min-parallelism"), std::string::npos);
  }
}

TEST(WorkloadBuilder, InvalidQueueName) {
  client::Object job = object(testing::kJob);
  job.set_label("kueue.x-k8s.io/queue-name", "Bad_Queue");
  auto wl = build_workload(job, BuildOptions{});
  ASSERT_FALSE(wl.has_value());
  EXPECT_NE(wl.error().message.find("DNS-1123"), std::string::npos);
}

TEST(WorkloadBuilder, MaxExecutionTime) {
  client::Object job = object(testing::kJob);
  job.set_label("kueue.x-k8s.io/max-exec-time-seconds", "600");
  auto wl = build_workload(job, BuildOptions{});
  ASSERT_TRUE(wl.has_value());
  EXPECT_EQ(wl->int_at({"spec", "maximumExecutionTimeSeconds"}), 600);
  for (const char* bad : {"0", "-5", "ten", "99999999999"}) {
    job.set_label("kueue.x-k8s.io/max-exec-time-seconds", bad);
    EXPECT_FALSE(build_workload(job, BuildOptions{}).has_value()) << bad;
  }
}

TEST(WorkloadBuilder, CompletionsEqualParallelismValidation) {
  client::Object job = object(testing::kJob);
  job.set_annotation("kueue.x-k8s.io/job-completions-equal-parallelism", "true");
  auto nonindexed = build_workload(job, BuildOptions{});
  ASSERT_FALSE(nonindexed.has_value());
  EXPECT_NE(nonindexed.error().message.find("NonIndexed"), std::string::npos);
  job.ensure({"spec", "completionMode"}) = "Indexed";
  EXPECT_TRUE(build_workload(job, BuildOptions{}).has_value());
  job.ensure({"spec", "completions"}) = 4;
  EXPECT_FALSE(build_workload(job, BuildOptions{}).has_value());
  job.set_annotation("kueue.x-k8s.io/job-completions-equal-parallelism", "perhaps");
  EXPECT_FALSE(build_workload(job, BuildOptions{}).has_value());
  job.set_annotation("kueue.x-k8s.io/job-completions-equal-parallelism", "false");
  EXPECT_TRUE(build_workload(job, BuildOptions{}).has_value());
}

TEST(WorkloadBuilder, WorkloadPriorityClassLabel) {
  client::Object job = object(testing::kJob);
  job.set_label("kueue.x-k8s.io/priority-class", "high");
  job.ensure({"spec", "template", "spec", "priorityClassName"}) = "pod-high";
  auto wl = build_workload(job, options_with_classes());
  ASSERT_TRUE(wl.has_value()) << wl.error().message;
  EXPECT_EQ(wl->int_at({"spec", "priority"}), 1000);
  EXPECT_EQ(*wl->find({"spec", "priorityClassRef"}),
            yaml("{group: kueue.x-k8s.io, kind: WorkloadPriorityClass, name: high}"));
}

TEST(WorkloadBuilder, MissingWorkloadPriorityClass) {
  client::Object job = object(testing::kJob);
  job.set_label("kueue.x-k8s.io/priority-class", "nope");
  auto wl = build_workload(job, options_with_classes());
  ASSERT_FALSE(wl.has_value());
  EXPECT_NE(wl.error().message.find("WorkloadPriorityClass \"nope\""), std::string::npos);
}

TEST(WorkloadBuilder, PodPriorityClass) {
  client::Object job = object(testing::kJob);
  job.ensure({"spec", "template", "spec", "priorityClassName"}) = "pod-high";
  auto wl = build_workload(job, options_with_classes());
  ASSERT_TRUE(wl.has_value());
  EXPECT_EQ(wl->int_at({"spec", "priority"}), 500);
  EXPECT_EQ(*wl->find({"spec", "priorityClassRef"}),
            yaml("{group: scheduling.k8s.io, kind: PriorityClass, name: pod-high}"));
  job.ensure({"spec", "template", "spec", "priorityClassName"}) = "missing";
  EXPECT_FALSE(build_workload(job, options_with_classes()).has_value());
  job.ensure({"spec", "template", "spec", "priorityClassName"}) = "system-cluster-critical";
  EXPECT_EQ(build_workload(job, options_with_classes())->int_at({"spec", "priority"}), 2000000000);
}

TEST(WorkloadBuilder, GlobalDefaultPriorityClass) {
  BuildOptions o = options_with_classes();
  o.default_priority_class = std::make_pair(std::string("default-pc"), 7);
  auto wl = build_workload(object(testing::kJob), o);
  EXPECT_EQ(wl->int_at({"spec", "priority"}), 7);
  EXPECT_EQ(wl->find({"spec", "priorityClassRef"})->at("name").as_string(), "default-pc");
}

TEST(WorkloadBuilder, CopiesSelectedLabelsAndProvReqAnnotations) {
  client::Object job = object(testing::kJob);
  job.set_label("team", "a");
  job.set_label("other", "b");
  job.set_annotation("provreq.kueue.x-k8s.io/ValidUntilSeconds", "60");
  job.set_annotation("unrelated", "x");
  job.set_annotation("kueue.x-k8s.io/admission-gated-by", "example.com/gate");
  BuildOptions o;
  o.label_keys_to_copy = {"team", "absent"};
  auto wl = build_workload(job, o);
  ASSERT_TRUE(wl.has_value());
  EXPECT_EQ(wl->labels(), (client::StringMap{{"kueue.x-k8s.io/job-uid", "uid-1"}, {"team", "a"}}));
  EXPECT_EQ(wl->annotations(), (client::StringMap{{"kueue.x-k8s.io/admission-gated-by", "example.com/gate"},
                                                  {"provreq.kueue.x-k8s.io/ValidUntilSeconds", "60"}}));
  o.admission_gated_by = false;
  EXPECT_FALSE(build_workload(job, o)->annotation("kueue.x-k8s.io/admission-gated-by"));
}

TEST(WorkloadBuilder, UidThatIsNotALabelValueGetsNoLabel) {
  client::Object job = object(testing::kJob);
  job.json().as_object()["metadata"].as_object()["uid"] = std::string(70, 'u');
  auto wl = build_workload(job, BuildOptions{});
  ASSERT_TRUE(wl.has_value());
  EXPECT_FALSE(wl->label("kueue.x-k8s.io/job-uid"));
  EXPECT_EQ(wl->controller_reference()->uid, std::string(70, 'u'));
}

TEST(WorkloadBuilder, ShortNames) {
  client::Object job = object(testing::kJob);
  job.set_name(std::string(100, 'a'));
  BuildOptions o;
  o.short_workload_names = true;
  EXPECT_EQ(build_workload(job, o)->name().size(), 63u);
}

TEST(WorkloadBuilder, NoTemplateIsAnError) {
  auto wl = build_workload(object("metadata: {name: j, namespace: ns, labels: {kueue.x-k8s.io/queue-name: q}}"),
                           BuildOptions{});
  ASSERT_FALSE(wl.has_value());
  EXPECT_NE(wl.error().message.find("ns/j"), std::string::npos);
}

TEST(WorkloadBuilder, ValidateJobAcceptsPlainJob) { EXPECT_TRUE(validate_job(object(testing::kJob)).has_value()); }

}  // namespace
}  // namespace kueuepp::kube::jobs
