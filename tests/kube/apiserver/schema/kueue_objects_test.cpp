// Kueue objects through the real CRD schemas (prune, default, validate), checking where
// each CEL rule reports and that valid objects of every kind pass.

#include "tests/kube/apiserver/schema/test_support.hpp"

namespace kueuepp::kube::schema {
namespace {

using testing::causes;
using testing::J;

std::vector<FieldError> admit(const SchemaPtr& s, std::string_view object, const char* old = nullptr) {
  json::value v = J(object);
  prune(*s, v);
  apply_defaults(*s, v);
  if (old == nullptr) return validate(*s, v, nullptr);
  json::value o = J(old);
  prune(*s, o);
  apply_defaults(*s, o);
  return validate(*s, v, &o);
}

const char* kWorkload = R"({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "metadata": {"name": "w"},
  "spec": {"queueName": "q", "podSets": [{"name": "main", "count": 2, "minCount": 1, "template": {"spec": {
    "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "1"}}}]}}}]}})";

TEST(KueueObjects, ValidObjectsOfEveryKindPass) {
  struct Doc {
    const char* plural;
    const char* object;
  };
  const Doc docs[] = {
      {"resourceflavors", R"({"spec": {"nodeLabels": {"pool": "a"}, "topologyName": "t",
          "tolerations": [{"key": "k", "operator": "Equal", "value": "v", "effect": "NoSchedule"}],
          "nodeTaints": [{"key": "k", "value": "v", "effect": "NoExecute"}]}})"},
      {"clusterqueues", R"({"spec": {"cohortName": "c", "namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["cpu"],
          "flavors": [{"name": "rf", "resources": [{"name": "cpu", "nominalQuota": "10", "borrowingLimit": "5"}]}]}],
          "preemption": {"reclaimWithinCohort": "Any", "borrowWithinCohort": {"policy": "LowerPriority"}},
          "flavorFungibility": {"whenCanBorrow": "TryNextFlavor", "whenCanPreempt": "TryNextFlavor"}}})"},
      {"localqueues", R"({"spec": {"clusterQueue": "cq"}})"},
      {"workloads", kWorkload},
      {"topologies", R"({"spec": {"levels": [{"nodeLabel": "rack"}, {"nodeLabel": "kubernetes.io/hostname"}]}})"},
      {"multikueueconfigs", R"({"spec": {"clusters": ["a", "b"]}})"},
      {"workloadpriorityclasses", R"({"value": 100})"},
      {"admissionchecks", R"({"spec": {"controllerName": "c"}})"},
      {"cohorts", R"({"spec": {}})"}};
  for (const Doc& d : docs) {
    KUEUEPP_REQUIRE_SCHEMA(s, d.plural, "v1beta2");
    auto e = admit(s, d.object);
    EXPECT_TRUE(e.empty()) << d.plural << ": " << describe(e);
  }
}

TEST(KueueObjects, ResourceFlavorRules) {
  KUEUEPP_REQUIRE_SCHEMA(s, "resourceflavors", "v1beta2");
  auto e = admit(s, R"({"spec": {"topologyName": "t", "nodeLabels": {},
      "tolerations": [{"operator": "Equal"}, {"key": "k", "operator": "Exists", "value": "v"},
                      {"key": "k", "effect": "NoSchedule", "tolerationSeconds": 3}],
      "nodeTaints": [{"key": "k", "value": "v", "effect": "Sometimes"}]}})");
  // spec's rule (nodeLabels needed with a topology), then its children in document order:
  // three toleration rules, the taint effect rule.
  EXPECT_EQ(causes(e), (std::vector<std::string>{"FieldValueInvalid spec", "FieldValueInvalid spec.tolerations",
                                                "FieldValueInvalid spec.tolerations", "FieldValueInvalid spec.tolerations",
                                                "FieldValueInvalid spec.nodeTaints"}))
      << describe(e);
  // topologyName is immutable once set.
  e = admit(s, R"({"spec": {"topologyName": "u", "nodeLabels": {"a": "b"}}})",
            R"({"spec": {"topologyName": "t", "nodeLabels": {"a": "b"}}})");
  EXPECT_EQ(causes(e), std::vector<std::string>{"FieldValueInvalid spec"});
  EXPECT_EQ(e[0].message, "Invalid value: \"object\": topologyName is immutable when topologyName is set");
}

TEST(KueueObjects, ClusterQueueRules) {
  KUEUEPP_REQUIRE_SCHEMA(s, "clusterqueues", "v1beta2");
  auto e = admit(s, R"({"spec": {"cohortName": "c", "resourceGroups": [{"coveredResources": ["cpu"],
      "flavors": [{"name": "rf", "resources": [{"name": "cpu", "nominalQuota": "1"}]}]}],
      "preemption": {"reclaimWithinCohort": "Never", "borrowWithinCohort": {"policy": "LowerPriority"}},
      "flavorFungibility": {"preference": "BorrowingOverPreemption"}}})");
  EXPECT_EQ(causes(e), (std::vector<std::string>{"FieldValueInvalid spec.preemption", "FieldValueInvalid spec.flavorFungibility"}))
      << describe(e);
}

TEST(KueueObjects, LocalQueueClusterQueueIsImmutable) {
  KUEUEPP_REQUIRE_SCHEMA(s, "localqueues", "v1beta2");
  EXPECT_TRUE(admit(s, R"({"spec": {"clusterQueue": "a"}})", R"({"spec": {"clusterQueue": "a"}})").empty());
  auto e = admit(s, R"({"spec": {"clusterQueue": "b"}})", R"({"spec": {"clusterQueue": "a"}})");
  ASSERT_EQ(causes(e), std::vector<std::string>{"FieldValueInvalid spec.clusterQueue"});
  EXPECT_EQ(e[0].message, "Invalid value: \"string\": field is immutable");
}

TEST(KueueObjects, WorkloadRules) {
  KUEUEPP_REQUIRE_SCHEMA(s, "workloads", "v1beta2");
  // minCount above count, priorityClassRef without priority, wrong kind for the group.
  auto e = admit(s, R"({"spec": {"priorityClassRef": {"group": "scheduling.k8s.io", "kind": "WorkloadPriorityClass", "name": "p"},
      "podSets": [{"name": "main", "count": 1, "minCount": 2, "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}]}})");
  EXPECT_EQ(causes(e), (std::vector<std::string>{"FieldValueInvalid spec", "FieldValueInvalid spec.priorityClassRef",
                                                "FieldValueInvalid spec.podSets[0]"}))
      << describe(e);
  // A root rule reports at <nil>: quota reserved with a podSetAssignments count mismatch.
  e = admit(s, R"({"spec": {"podSets": [{"name": "main", "count": 1, "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}]},
      "status": {"conditions": [{"type": "QuotaReserved", "status": "True", "reason": "r", "message": "m",
                                 "lastTransitionTime": "2024-01-01T00:00:00Z"}],
                 "admission": {"clusterQueue": "cq", "podSetAssignments": []}}})");
  ASSERT_EQ(causes(e), std::vector<std::string>{"FieldValueInvalid <nil>"}) << describe(e);
  EXPECT_EQ(e[0].message, "Invalid value: \"object\": podSetAssignments must have the same number of podSets as the spec");
  // Transition rule: priorityClassRef cannot appear while quota is reserved.
  const char* reserved = R"({"spec": {"podSets": [{"name": "main", "count": 1, "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}]},
      "status": {"conditions": [{"type": "QuotaReserved", "status": "True", "reason": "r", "message": "m",
                                 "lastTransitionTime": "2024-01-01T00:00:00Z"}]}})";
  e = admit(s, R"({"spec": {"priority": 1, "priorityClassRef": {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": "p"},
      "podSets": [{"name": "main", "count": 1, "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}]},
      "status": {"conditions": [{"type": "QuotaReserved", "status": "True", "reason": "r", "message": "m",
                                 "lastTransitionTime": "2024-01-01T00:00:00Z"}]}})",
            reserved);
  ASSERT_EQ(causes(e), std::vector<std::string>{"FieldValueInvalid <nil>"}) << describe(e);
  EXPECT_EQ(e[0].message, "Invalid value: \"object\": priorityClassRef is immutable while workload quota reserved");
  // Schema errors: a missing template is blocking (the root rules are not checked).
  e = admit(s, R"({"spec": {"podSets": [{"name": "main", "count": 1}]}})");
  EXPECT_EQ(causes(e), (std::vector<std::string>{"FieldValueRequired spec.podSets[0].template", "FieldValueInvalid <nil>"}));
  // list-type=map podSets: duplicate names.
  e = admit(s, R"({"spec": {"podSets": [
      {"name": "a", "count": 1, "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}},
      {"name": "a", "count": 1, "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}]}})");
  EXPECT_EQ(causes(e), std::vector<std::string>{"FieldValueDuplicate spec.podSets[1]"}) << describe(e);
}

TEST(KueueObjects, TopologyAndMultiKueueRules) {
  KUEUEPP_REQUIRE_SCHEMA(t, "topologies", "v1beta2");
  auto e = admit(t, R"({"spec": {"levels": [{"nodeLabel": "kubernetes.io/hostname"}, {"nodeLabel": "rack"}]}})");
  EXPECT_EQ(causes(e), std::vector<std::string>{"FieldValueInvalid spec.levels"}) << describe(e);
  e = admit(t, R"({"spec": {"levels": [{"nodeLabel": "block"}]}})", R"({"spec": {"levels": [{"nodeLabel": "rack"}]}})");
  EXPECT_EQ(causes(e), std::vector<std::string>{"FieldValueInvalid spec.levels"}) << describe(e);
  KUEUEPP_REQUIRE_SCHEMA(m, "multikueueconfigs", "v1beta2");
  e = admit(m, R"({"spec": {"clusters": ["a", "a"]}})");
  EXPECT_EQ(causes(e), std::vector<std::string>{"FieldValueInvalid spec.clusters"}) << describe(e);
  KUEUEPP_REQUIRE_SCHEMA(c, "multikueueclusters", "v1beta2");
  e = admit(c, R"({"spec": {"clusterSource": {}}})");
  EXPECT_EQ(causes(e), std::vector<std::string>{"FieldValueInvalid spec.clusterSource"}) << describe(e);
}

TEST(KueueObjects, QuantitiesAreIntOrString) {
  KUEUEPP_REQUIRE_SCHEMA(s, "clusterqueues", "v1beta2");
  auto e = admit(s, R"({"spec": {"resourceGroups": [{"coveredResources": ["cpu", "memory", "pods"],
      "flavors": [{"name": "rf", "resources": [{"name": "cpu", "nominalQuota": 10}, {"name": "memory", "nominalQuota": "1.5Gi"},
                                               {"name": "pods", "nominalQuota": true}]}]}]}})");
  EXPECT_EQ(causes(e), (std::vector<std::string>{"FieldValueTypeInvalid spec.resourceGroups[0].flavors[0].resources[2].nominalQuota",
                                                "FieldValueInvalid <nil>",
                                                "FieldValueTypeInvalid spec.resourceGroups[0].flavors[0].resources[2].nominalQuota",
                                                "FieldValueInvalid <nil>"}))
      << describe(e);
}

}  // namespace
}  // namespace kueuepp::kube::schema
