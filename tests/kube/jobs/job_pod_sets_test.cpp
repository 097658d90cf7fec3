#include "kube/jobs/job_pod_sets.hpp"

#include <gtest/gtest.h>

#include "fixtures.hpp"

namespace kueuepp::kube::jobs {
namespace {

using testing::object;

client::Object job_with(std::string_view spec_yaml) {
  return object(std::string("metadata: {name: j, namespace: ns}\nspec:\n") + std::string(spec_yaml));
}

TEST(JobPodSets, CountIsParallelismCappedByCompletions) {
  EXPECT_EQ(job_pods_count(job_with("  parallelism: 3\n  completions: 2\n")), 2);
  EXPECT_EQ(job_pods_count(job_with("  parallelism: 3\n  completions: 5\n")), 3);
  EXPECT_EQ(job_pods_count(job_with("  parallelism: 4\n")), 4);
  EXPECT_EQ(job_pods_count(job_with("  completions: 5\n")), 1);
  EXPECT_EQ(job_pods_count(job_with("  parallelism: 0\n")), 0);
}

TEST(JobPodSets, MinPodsCountFromAnnotation) {
  EXPECT_FALSE(job_min_pods_count(object("metadata: {name: j}")));
  EXPECT_EQ(job_min_pods_count(object("metadata: {annotations: {kueue.x-k8s.io/job-min-parallelism: '2'}}")), 2);
  EXPECT_EQ(job_min_pods_count(object("metadata: {annotations: {kueue.x-k8s.io/job-min-parallelism: '+2'}}")), 2);
  EXPECT_FALSE(job_min_pods_count(object("metadata: {annotations: {kueue.x-k8s.io/job-min-parallelism: two}}")));
  EXPECT_FALSE(job_min_pods_count(object("metadata: {annotations: {kueue.x-k8s.io/job-min-parallelism: ''}}")));
}

TEST(JobPodSets, CompletionsFollowParallelism) {
  EXPECT_TRUE(job_completions_follow_parallelism(
      object("metadata: {annotations: {kueue.x-k8s.io/job-completions-equal-parallelism: 'true'}}")));
  EXPECT_TRUE(job_completions_follow_parallelism(
      object("metadata: {annotations: {kueue.x-k8s.io/job-completions-equal-parallelism: T}}")));
  EXPECT_FALSE(job_completions_follow_parallelism(
      object("metadata: {annotations: {kueue.x-k8s.io/job-completions-equal-parallelism: 'yes'}}")));
  EXPECT_FALSE(job_completions_follow_parallelism(object("metadata: {name: j}")));
}

TEST(JobPodSets, GoParseBool) {
  for (auto t : {"1", "t", "T", "TRUE", "true", "True"}) EXPECT_EQ(parse_go_bool(t), true) << t;
  for (auto f : {"0", "f", "F", "FALSE", "false", "False"}) EXPECT_EQ(parse_go_bool(f), false) << f;
  EXPECT_FALSE(parse_go_bool("tRuE"));
  EXPECT_FALSE(parse_go_bool(""));
}

TEST(JobPodSets, MainPodSetShape) {
  auto sets = job_pod_sets(object(testing::kJob));
  ASSERT_TRUE(sets.has_value()) << sets.error().message;
  ASSERT_EQ(sets->size(), 1u);
  const json::value& ps = (*sets)[0];
  EXPECT_EQ(ps.at("name").as_string(), "main");
  EXPECT_EQ(ps.at("count").as_int64(), 3);
  EXPECT_EQ(json::find(ps, "minCount"), nullptr);
  // Labels the Job controller manages are dropped, but batch.kubernetes.io/job-name is kept.
  const auto& labels = ps.at_pointer("/template/metadata/labels").as_object();
  EXPECT_EQ(labels.size(), 2u);
  EXPECT_TRUE(labels.contains("app"));
  EXPECT_TRUE(labels.contains("batch.kubernetes.io/job-name"));
  EXPECT_EQ(ps.at_pointer("/template/spec/containers/0/image").as_string(), "busybox");
  EXPECT_EQ(ps.at_pointer("/topologyRequest/podIndexLabel").as_string(), "batch.kubernetes.io/job-completion-index");
}

TEST(JobPodSets, MinCountOnlyWithPartialAdmission) {
  client::Object job = object(testing::kJob);
  job.set_annotation("kueue.x-k8s.io/job-min-parallelism", "1");
  EXPECT_EQ((*job_pod_sets(job))[0].at("minCount").as_int64(), 1);
  EXPECT_EQ(json::find((*job_pod_sets(job, {false, true}))[0], "minCount"), nullptr);
}

TEST(JobPodSets, WithoutTasNoTopologyRequest) {
  EXPECT_EQ(json::find((*job_pod_sets(object(testing::kJob), {true, false}))[0], "topologyRequest"), nullptr);
}

TEST(JobPodSets, TopologyAnnotations) {
  client::Object job = object(testing::kJob);
  job.ensure({"spec", "template", "metadata", "annotations"}) = testing::yaml(R"(
kueue.x-k8s.io/podset-required-topology: rack
kueue.x-k8s.io/podset-preferred-topology: block
kueue.x-k8s.io/podset-group-name: g
kueue.x-k8s.io/podset-slice-required-topology: host
kueue.x-k8s.io/podset-slice-size: "2"
)");
  auto sets = job_pod_sets(job);
  ASSERT_TRUE(sets.has_value());
  EXPECT_EQ((*sets)[0].at("topologyRequest"), testing::yaml(R"(
{required: rack, podSetSliceRequiredTopology: host, podSetSliceSize: 2,
 podIndexLabel: batch.kubernetes.io/job-completion-index, podSetGroupName: g})"));
  // The template keeps the annotations.
  EXPECT_TRUE((*sets)[0].at_pointer("/template/metadata/annotations").as_object().contains("kueue.x-k8s.io/podset-group-name"));
}

TEST(JobPodSets, UnconstrainedTopologyMustBeBool) {
  client::Object job = object(testing::kJob);
  job.ensure({"spec", "template", "metadata", "annotations"}) =
      testing::yaml("{kueue.x-k8s.io/podset-unconstrained-topology: 'true'}");
  EXPECT_EQ((*job_pod_sets(job))[0].at_pointer("/topologyRequest/unconstrained").as_bool(), true);
  job.ensure({"spec", "template", "metadata", "annotations"}) =
      testing::yaml("{kueue.x-k8s.io/podset-unconstrained-topology: maybe}");
  auto bad = job_pod_sets(job);
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("ns/sample-job"), std::string::npos);
}

TEST(JobPodSets, DuplicateEnvVarsCollapseToTheLast) {
  client::Object job = object(testing::kJob);
  job.ensure({"spec", "template", "spec", "containers"}) = testing::yaml(R"(
- name: c
  env: [{name: A, value: "1"}, {name: B, value: "2"}, {name: A, value: "3"}]
)");
  job.ensure({"spec", "template", "spec", "initContainers"}) = testing::yaml(R"(
- name: i
  env: [{name: X, value: "1"}, {name: X, value: "2"}]
)");
  auto sets = job_pod_sets(job);
  EXPECT_EQ((*sets)[0].at_pointer("/template/spec/containers/0/env"),
            testing::yaml(R"([{name: A, value: "3"}, {name: B, value: "2"}])"));
  EXPECT_EQ((*sets)[0].at_pointer("/template/spec/initContainers/0/env"), testing::yaml(R"([{name: X, value: "2"}])"));
}

TEST(JobPodSets, NoTemplateIsAnError) {
  auto sets = job_pod_sets(object("metadata: {name: j, namespace: ns}\nspec: {parallelism: 1}"));
  ASSERT_FALSE(sets.has_value());
  EXPECT_NE(sets.error().message.find("Job ns/j"), std::string::npos);
  EXPECT_NE(sets.error().message.find("spec.template"), std::string::npos);
}

}  // namespace
}  // namespace kueuepp::kube::jobs
