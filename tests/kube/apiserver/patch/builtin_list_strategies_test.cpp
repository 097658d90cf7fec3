// The built-in list strategies (facts from k8s.io/api Go tags).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kube/apiserver/patch/patch.hpp"

namespace kueuepp::kube::patch {
namespace {

using K = ListStrategy::Kind;

ListStrategy at(const ListStrategyResolver& r, std::vector<std::string> path) { return r(FieldPath(path)); }

void expect(const ListStrategy& s, K kind, std::vector<std::string> keys = {}) {
  EXPECT_EQ(s.kind, kind);
  EXPECT_EQ(s.keys, keys);
}

TEST(BuiltinListStrategies, JobPodTemplateForStrategicMerge) {
  const auto r = builtin_list_strategies("batch", "Job");
  const std::vector<std::string> pod{"spec", "template", "spec"};
  auto in_pod = [&](std::vector<std::string> rest) {
    std::vector<std::string> p = pod;
    p.insert(p.end(), rest.begin(), rest.end());
    return at(r, p);
  };
  expect(in_pod({"containers"}), K::Map, {"name"});
  expect(in_pod({"initContainers"}), K::Map, {"name"});
  expect(in_pod({"ephemeralContainers"}), K::Map, {"name"});
  expect(in_pod({"containers", "env"}), K::Map, {"name"});
  expect(in_pod({"initContainers", "env"}), K::Map, {"name"});
  expect(in_pod({"containers", "ports"}), K::Map, {"containerPort"});
  expect(in_pod({"containers", "volumeMounts"}), K::Map, {"mountPath"});
  expect(in_pod({"containers", "volumeDevices"}), K::Map, {"devicePath"});
  expect(in_pod({"containers", "resources", "claims"}), K::Atomic);
  expect(in_pod({"containers", "args"}), K::Atomic);
  expect(in_pod({"containers", "command"}), K::Atomic);
  expect(in_pod({"containers", "envFrom"}), K::Atomic);
  expect(in_pod({"volumes"}), K::Map, {"name"});
  expect(in_pod({"imagePullSecrets"}), K::Map, {"name"});
  expect(in_pod({"tolerations"}), K::Atomic);
  expect(in_pod({"hostAliases"}), K::Map, {"ip"});
  expect(in_pod({"topologySpreadConstraints"}), K::Map, {"topologyKey"});
  expect(in_pod({"resourceClaims"}), K::Map, {"name"});
  expect(in_pod({"schedulingGates"}), K::Map, {"name"});
  expect(in_pod({"readinessGates"}), K::Atomic);
  expect(at(r, {"spec", "template", "metadata", "finalizers"}), K::Set);
  expect(at(r, {"metadata", "finalizers"}), K::Set);
  expect(at(r, {"metadata", "ownerReferences"}), K::Map, {"uid"});
  expect(at(r, {"metadata", "managedFields"}), K::Atomic);
  expect(at(r, {"status", "conditions"}), K::Map, {"type"});
  expect(at(r, {"status", "uncountedTerminatedPods", "succeeded"}), K::Atomic);
  expect(at(r, {"spec", "podFailurePolicy", "rules"}), K::Atomic);
  expect(at(r, {"no", "such", "field"}), K::Atomic);
}

TEST(BuiltinListStrategies, JobForServerSideApply) {
  const auto r = builtin_apply_list_strategies("batch", "Job");
  const auto ports = at(r, {"spec", "template", "spec", "containers", "ports"});
  expect(ports, K::Map, {"containerPort", "protocol"});
  EXPECT_EQ(json::get_string(json::value(ports.key_defaults), "protocol"), "TCP");
  expect(at(r, {"spec", "template", "spec", "topologySpreadConstraints"}), K::Map, {"topologyKey", "whenUnsatisfiable"});
  expect(at(r, {"spec", "template", "spec", "containers", "resources", "claims"}), K::Map, {"name"});
  expect(at(r, {"status", "conditions"}), K::Atomic);
  expect(at(r, {"status", "uncountedTerminatedPods", "failed"}), K::Set);
  expect(at(r, {"metadata", "finalizers"}), K::Set);
}

TEST(BuiltinListStrategies, OtherKinds) {
  expect(at(builtin_list_strategies("", "Pod"), {"spec", "containers"}), K::Map, {"name"});
  expect(at(builtin_list_strategies("", "Pod"), {"status", "conditions"}), K::Map, {"type"});
  expect(at(builtin_list_strategies("", "Pod"), {"status", "podIPs"}), K::Map, {"ip"});
  expect(at(builtin_list_strategies("", "Pod"), {"status", "hostIPs"}), K::Map, {"ip"});
  expect(at(builtin_apply_list_strategies("", "Pod"), {"status", "hostIPs"}), K::Atomic);
  expect(at(builtin_apply_list_strategies("", "Pod"), {"status", "conditions"}), K::Map, {"type"});
  expect(at(builtin_list_strategies("", "Namespace"), {"status", "conditions"}), K::Map, {"type"});
  expect(at(builtin_list_strategies("", "Namespace"), {"spec", "finalizers"}), K::Atomic);
  expect(at(builtin_list_strategies("", "ServiceAccount"), {"secrets"}), K::Map, {"name"});
  expect(at(builtin_list_strategies("", "ServiceAccount"), {"imagePullSecrets"}), K::Atomic);
  for (auto [group, kind] : {std::pair{"", "ConfigMap"}, std::pair{"", "Event"}, std::pair{"coordination.k8s.io", "Lease"},
                             std::pair{"scheduling.k8s.io", "PriorityClass"}, std::pair{"kueue.x-k8s.io", "Workload"}}) {
    expect(at(builtin_list_strategies(group, kind), {"metadata", "finalizers"}), K::Set);
    expect(at(builtin_list_strategies(group, kind), {"metadata", "ownerReferences"}), K::Map, {"uid"});
  }
  // A Job path means nothing for a Pod.
  expect(at(builtin_list_strategies("", "Pod"), {"spec", "template", "spec", "containers"}), K::Atomic);
}

TEST(BuiltinAtomicObjects, SelectorsAndReferences) {
  const auto job = builtin_atomic_objects("batch", "Job");
  auto is = [&](std::vector<std::string> p) { return job(FieldPath(p)); };
  EXPECT_TRUE(is({"spec", "selector"}));
  EXPECT_TRUE(is({"spec", "template", "spec", "nodeSelector"}));
  EXPECT_TRUE(is({"spec", "template", "spec", "containers", "env", "valueFrom", "secretKeyRef"}));
  EXPECT_TRUE(is({"spec", "template", "spec", "topologySpreadConstraints", "labelSelector"}));
  EXPECT_TRUE(is({"spec", "template", "spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution"}));
  EXPECT_TRUE(is({"spec", "template", "spec", "imagePullSecrets"}));
  EXPECT_TRUE(is({"metadata", "ownerReferences"}));
  EXPECT_FALSE(is({"spec", "template", "spec"}));
  EXPECT_FALSE(is({"metadata", "labels"}));
  EXPECT_FALSE(is({"spec", "template", "spec", "containers", "resources"}));
  EXPECT_TRUE(builtin_atomic_objects("", "Event")(FieldPath(std::vector<std::string>{"involvedObject"})));
  EXPECT_TRUE(builtin_atomic_objects("events.k8s.io", "Event")(FieldPath(std::vector<std::string>{"regarding"})));
}

}  // namespace
}  // namespace kueuepp::kube::patch
