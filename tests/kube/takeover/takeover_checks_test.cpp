#include "kube/takeover/takeover_checks.hpp"

#include <gtest/gtest.h>

#include "kube/json/yaml.hpp"

namespace kueuepp::kube::takeover {
namespace {

json::value yaml(std::string_view text) {
  auto v = json::parse_yaml(text);
  EXPECT_TRUE(v.has_value()) << (v ? "" : v.error().message);
  return v ? *v : json::value{};
}

const KueueKind& kind_named(std::string_view name) {
  for (const KueueKind& k : kueue_kinds()) {
    if (k.kind == name) return k;
  }
  throw std::logic_error("no such kind");
}

json::value crd(std::string_view plural, std::string_view served_versions, std::string_view storage,
                std::string_view stored) {
  std::string text = "metadata: {name: " + std::string(plural) + ".kueue.x-k8s.io}\nspec:\n  versions:\n";
  for (std::string_view v : {std::string_view("v1beta1"), std::string_view("v1beta2")}) {
    if (served_versions.find(v) == std::string_view::npos) continue;
    text += "  - {name: " + std::string(v) + ", served: true, storage: " + (v == storage ? "true" : "false") + "}\n";
  }
  text += "status: {storedVersions: [" + std::string(stored) + "]}\n";
  return yaml(text);
}

InstalledCrds all_crds(std::string_view served, std::string_view storage, std::string_view stored) {
  InstalledCrds out;
  for (const KueueKind& k : kueue_kinds()) {
    if (k.served_by_kueuepp()) out[k.crd_name()] = crd(k.plural, served, storage, stored);
  }
  return out;
}

TEST(TakeoverChecks, KueueV014AndLaterCrdsAreTakenOver) {
  EXPECT_TRUE(check_installed_crds(all_crds("v1beta1", "v1beta1", "v1beta1")).empty());
  EXPECT_TRUE(check_installed_crds(all_crds("v1beta1 v1beta2", "v1beta2", "v1beta1, v1beta2")).empty());
}

TEST(TakeoverChecks, AMissingCrdIsRefusedByName) {
  InstalledCrds crds = all_crds("v1beta1", "v1beta1", "v1beta1");
  crds["workloads.kueue.x-k8s.io"] = std::nullopt;
  auto refusals = check_installed_crds(crds);
  ASSERT_EQ(refusals.size(), 1u);
  EXPECT_EQ(refusals[0].object, "CRD workloads.kueue.x-k8s.io");
  EXPECT_NE(refusals[0].describe().find("is not installed"), std::string::npos);
}

TEST(TakeoverChecks, AnOlderStoredVersionIsRefused) {
  InstalledCrds crds = all_crds("v1beta1", "v1beta1", "v1alpha1, v1beta1");
  auto refusals = check_installed_crds(crds);
  ASSERT_FALSE(refusals.empty());
  EXPECT_NE(refusals[0].reason.find("stored as v1alpha1"), std::string::npos);
}

TEST(TakeoverChecks, ObjectsOfAKindKueueppDoesNotServeAreRefused) {
  EXPECT_FALSE(check_unserved_kind(kind_named("Topology"), 0, {}).has_value());
  auto refusal = check_unserved_kind(kind_named("Topology"), 3, {"a", "b"});
  ASSERT_TRUE(refusal.has_value());
  EXPECT_EQ(refusal->object, "3 Topologys (a, b, ...)");
  EXPECT_NE(refusal->reason.find("topology-aware scheduling"), std::string::npos);
}

TEST(TakeoverChecks, AV1beta1ClusterQueueIsReadThroughKueuesConversion) {
  auto refusals = check_object(kind_named("ClusterQueue"), yaml(R"(
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq}
spec:
  cohort: team
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default, resources: [{name: cpu, nominalQuota: 2}]}]
)"));
  EXPECT_TRUE(refusals.empty()) << refusals[0].describe();
}

TEST(TakeoverChecks, AClusterQueueWithAdmissionScopeIsRefusedAsTheControllerRefusesIt) {
  auto refusals = check_object(kind_named("ClusterQueue"), yaml(R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: fair}
spec:
  namespaceSelector: {}
  admissionScope: {admissionMode: UsageBasedAdmissionFairSharing}
)"));
  ASSERT_EQ(refusals.size(), 1u);
  EXPECT_EQ(refusals[0].object, "ClusterQueue \"fair\"");
  EXPECT_NE(refusals[0].reason.find("admissionScope"), std::string::npos);
}

TEST(TakeoverChecks, AFlavorWithATopologyIsRefused) {
  auto refusals = check_object(kind_named("ResourceFlavor"), yaml(R"(
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: tas}
spec: {topologyName: default}
)"));
  ASSERT_EQ(refusals.size(), 1u);
  EXPECT_NE(refusals[0].reason.find("topologyName"), std::string::npos);
}

TEST(TakeoverChecks, AWorkloadKueueppCannotReadIsRefusedByName) {
  auto refusals = check_object(kind_named("Workload"), yaml(R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: broken, namespace: team}
spec:
  queueName: lq
  podSets:
  - name: main
    count: many
    template: {spec: {containers: [{name: c}]}}
)"));
  ASSERT_EQ(refusals.size(), 1u);
  EXPECT_EQ(refusals[0].object, "Workload \"team/broken\"");
  EXPECT_NE(refusals[0].remedy.find("kubectl edit"), std::string::npos);
}

TEST(TakeoverChecks, AnAdmittedV1beta1WorkloadIsAccepted) {
  auto refusals = check_object(kind_named("Workload"), yaml(R"(
apiVersion: kueue.x-k8s.io/v1beta1
kind: Workload
metadata: {name: job-a, namespace: team}
spec:
  queueName: lq
  podSets:
  - name: main
    count: 1
    template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}
status:
  admission:
    clusterQueue: cq
    podSetAssignments: [{name: main, count: 1, flavors: {cpu: default}, resourceUsage: {cpu: "1"}}]
)"));
  EXPECT_TRUE(refusals.empty()) << refusals[0].describe();
}

}  // namespace
}  // namespace kueuepp::kube::takeover
