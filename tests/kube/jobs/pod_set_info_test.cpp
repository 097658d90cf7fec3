#include "kube/jobs/pod_set_info.hpp"

#include <gtest/gtest.h>

#include "fixtures.hpp"

namespace kueuepp::kube::jobs {
namespace {

using testing::object;
using testing::yaml;

class PodSetInfoTest : public ::testing::Test {
 protected:
  client::Object flavor = object(testing::kFlavor);
  client::Object workload = object(testing::kAdmittedWorkload);
  FlavorLookup lookup = [this](std::string_view name) -> const client::Object* {
    return name == "default-flavor" ? &flavor : nullptr;
  };
};

TEST_F(PodSetInfoTest, FromAdmission) {
  auto infos = pod_set_infos_from_admission(workload, lookup);
  ASSERT_TRUE(infos.has_value()) << infos.error().message;
  ASSERT_EQ(infos->size(), 1u);
  const PodSetInfo& i = infos->front();
  EXPECT_EQ(i.name, "main");
  EXPECT_EQ(i.count, 3);
  EXPECT_EQ(i.node_selector, (client::StringMap{{"instance-type", "on-demand"}, {"zone", "a"}}));
  ASSERT_EQ(i.tolerations.size(), 1u);  // the flavor is used by two resources, counted once
  EXPECT_EQ(i.labels, (client::StringMap{{"kueue.x-k8s.io/podset", "main"},
                                         {"kueue.x-k8s.io/local-queue-name", "user-queue"},
                                         {"kueue.x-k8s.io/cluster-queue-name", "cluster-queue"}}));
  EXPECT_EQ(i.annotations, (client::StringMap{{"kueue.x-k8s.io/workload", "job-sample-job-2e47a"}}));
  EXPECT_TRUE(i.scheduling_gates.empty());
}

TEST_F(PodSetInfoTest, OptionsTurnOffQueueLabelsAndWorkloadAnnotation) {
  auto infos = pod_set_infos_from_admission(workload, lookup, InjectionOptions{false, false});
  ASSERT_TRUE(infos.has_value());
  EXPECT_EQ(infos->front().labels, (client::StringMap{{"kueue.x-k8s.io/podset", "main"}}));
  EXPECT_TRUE(infos->front().annotations.empty());
}

TEST_F(PodSetInfoTest, ClusterQueueLabelOnlyForValidLabelNames) {
  workload.ensure({"status", "admission", "clusterQueue"}) = "cq.with.dots";
  auto infos = pod_set_infos_from_admission(workload, lookup);
  EXPECT_FALSE(infos->front().labels.contains("kueue.x-k8s.io/cluster-queue-name"));
}

TEST_F(PodSetInfoTest, CountDefaultsToSpecCount) {
  workload.find({"status", "admission", "podSetAssignments"});
  json::value& psa = workload.ensure({"status", "admission", "podSetAssignments"});
  psa.as_array()[0].as_object().erase("count");
  EXPECT_EQ(pod_set_infos_from_admission(workload, lookup)->front().count, 3);
}

TEST_F(PodSetInfoTest, MissingFlavorIsTransient) {
  FlavorLookup none = [](std::string_view) -> const client::Object* { return nullptr; };
  auto infos = pod_set_infos_from_admission(workload, none);
  ASSERT_FALSE(infos.has_value());
  EXPECT_FALSE(infos.error().permanent);
  EXPECT_NE(infos.error().message.find("default-flavor"), std::string::npos);
}

TEST_F(PodSetInfoTest, NoAdmissionNoInfos) {
  workload.erase({"status", "admission"});
  auto infos = pod_set_infos_from_admission(workload, lookup);
  ASSERT_TRUE(infos.has_value());
  EXPECT_TRUE(infos->empty());
}

TEST_F(PodSetInfoTest, TopologyAssignmentAddsGateAndUnconstrainedAnnotation) {
  workload.ensure({"status", "admission", "podSetAssignments"}).as_array()[0].as_object()["topologyAssignment"] =
      yaml("{levels: [hostname]}");
  auto infos = pod_set_infos_from_admission(workload, lookup);
  EXPECT_EQ(infos->front().scheduling_gates, yaml("[{name: kueue.x-k8s.io/topology}]").as_array());
  EXPECT_EQ(infos->front().annotations.at("kueue.x-k8s.io/podset-unconstrained-topology"), "true");
  // An explicit request: no unconstrained annotation.
  workload.ensure({"spec", "podSets"}).as_array()[0].as_object()["topologyRequest"] = yaml("{required: rack}");
  infos = pod_set_infos_from_admission(workload, lookup);
  EXPECT_FALSE(infos->front().annotations.contains("kueue.x-k8s.io/podset-unconstrained-topology"));
}

TEST_F(PodSetInfoTest, AdmissionCheckPodSetUpdatesMerge) {
  workload.ensure({"status", "admissionChecks"}) = yaml(R"(
- name: prov
  state: Ready
  podSetUpdates:
  - {name: main, labels: {extra: "1"}, nodeSelector: {pool: p}, tolerations: [{key: k, operator: Exists}]}
)");
  auto infos = pod_set_infos_from_admission(workload, lookup);
  ASSERT_TRUE(infos.has_value());
  EXPECT_EQ(infos->front().labels.at("extra"), "1");
  EXPECT_EQ(infos->front().node_selector.at("pool"), "p");
  EXPECT_EQ(infos->front().tolerations.size(), 2u);
}

TEST_F(PodSetInfoTest, AdmissionCheckConflictIsPermanent) {
  workload.ensure({"status", "admissionChecks"}) = yaml(R"(
- name: prov
  state: Ready
  podSetUpdates: [{name: main, nodeSelector: {zone: b}}]
)");
  auto infos = pod_set_infos_from_admission(workload, lookup);
  ASSERT_FALSE(infos.has_value());
  EXPECT_TRUE(infos.error().permanent);
  EXPECT_EQ(infos.error().message,
            "in admission check \"prov\": invalid admission check PodSetUpdate: conflict for nodeSelector: conflict "
            "for key=zone, value1=a, value2=b");
}

TEST(PodSetInfo, FromSpec) {
  client::Object wl = object(R"(
spec:
  podSets:
  - name: main
    count: 4
    template:
      metadata: {labels: {a: b}, annotations: {x: y}}
      spec:
        nodeSelector: {n: s}
        tolerations: [{key: t}]
        schedulingGates: [{name: g}]
)");
  auto infos = pod_set_infos_from_spec(wl);
  ASSERT_EQ(infos.size(), 1u);
  EXPECT_EQ(infos[0].count, 4);
  EXPECT_EQ(infos[0].labels.at("a"), "b");
  EXPECT_EQ(infos[0].annotations.at("x"), "y");
  EXPECT_EQ(infos[0].node_selector.at("n"), "s");
  EXPECT_EQ(infos[0].tolerations.size(), 1u);
  EXPECT_EQ(infos[0].scheduling_gates.size(), 1u);
  EXPECT_TRUE(pod_set_infos_from_spec(client::Object()).empty());
}

TEST(PodSetInfo, MergeDeduplicatesTolerationsAndGates) {
  PodSetInfo into;
  into.tolerations = yaml("[{key: a, operator: Equal, value: v, effect: NoSchedule, tolerationSeconds: 5}]").as_array();
  into.scheduling_gates = yaml("[{name: g}]").as_array();
  PodSetInfo from;
  from.tolerations = yaml("[{key: a, value: v, effect: NoSchedule}, {key: b, operator: Exists}]").as_array();
  from.scheduling_gates = yaml("[{name: g}, {name: h}]").as_array();
  ASSERT_TRUE(merge_info(into, from).has_value());
  EXPECT_EQ(into.tolerations.size(), 2u);  // "" operator is Equal; tolerationSeconds ignored
  EXPECT_EQ(into.scheduling_gates.size(), 2u);
}

TEST(PodSetInfo, MergeSameValueIsNoConflict) {
  PodSetInfo into;
  into.labels = {{"k", "v"}};
  PodSetInfo from;
  from.labels = {{"k", "v"}, {"l", "w"}};
  ASSERT_TRUE(merge_info(into, from).has_value());
  EXPECT_EQ(into.labels.size(), 2u);
  from.annotations = {{"a", "1"}};
  into.annotations = {{"a", "2"}};
  auto r = merge_info(into, from);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("conflict for annotations"), std::string::npos);
}

TEST(PodSetInfo, MergeIntoTemplateAndRestore) {
  json::value tmpl = yaml(R"(
metadata: {labels: {app: demo}}
spec:
  nodeSelector: {disk: ssd}
  containers: [{name: c}]
)");
  const json::value original = tmpl;
  PodSetInfo info;
  info.labels = {{"kueue.x-k8s.io/podset", "main"}};
  info.node_selector = {{"zone", "a"}};
  info.tolerations = yaml("[{key: spot, operator: Exists}]").as_array();
  ASSERT_TRUE(merge_into_template(tmpl, info).has_value());
  EXPECT_EQ(tmpl.at_pointer("/metadata/labels"), yaml("{app: demo, kueue.x-k8s.io/podset: main}"));
  EXPECT_EQ(tmpl.at_pointer("/spec/nodeSelector"), yaml("{disk: ssd, zone: a}"));
  EXPECT_EQ(tmpl.at_pointer("/spec/tolerations"), yaml("[{key: spot, operator: Exists}]"));

  PodSetInfo back;
  back.labels = {{"app", "demo"}};
  back.node_selector = {{"disk", "ssd"}};
  EXPECT_TRUE(restore_template(tmpl, back));
  EXPECT_EQ(tmpl, original);
  EXPECT_FALSE(restore_template(tmpl, back));
}

TEST(PodSetInfo, MergeNothingKeepsTemplateIdentical) {
  json::value tmpl = yaml("{spec: {containers: [{name: c}]}}");
  const json::value original = tmpl;
  ASSERT_TRUE(merge_into_template(tmpl, PodSetInfo{}).has_value());
  EXPECT_EQ(tmpl, original);
}

TEST(PodSetInfo, MergeConflictWithTemplate) {
  json::value tmpl = yaml("{spec: {nodeSelector: {zone: b}}}");
  PodSetInfo info;
  info.node_selector = {{"zone", "a"}};
  auto r = merge_into_template(tmpl, info);
  ASSERT_FALSE(r.has_value());
  EXPECT_TRUE(r.error().permanent);
}

TEST(PodSetInfo, SameToleration) {
  EXPECT_TRUE(same_toleration(yaml("{key: a}"), yaml("{key: a, operator: Equal}")));
  EXPECT_FALSE(same_toleration(yaml("{key: a}"), yaml("{key: a, operator: Exists}")));
  EXPECT_FALSE(same_toleration(yaml("{key: a, effect: NoSchedule}"), yaml("{key: a, effect: NoExecute}")));
  EXPECT_TRUE(same_toleration(yaml("{key: a, tolerationSeconds: 1}"), yaml("{key: a, tolerationSeconds: 2}")));
}

}  // namespace
}  // namespace kueuepp::kube::jobs
