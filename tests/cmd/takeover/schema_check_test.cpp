// The takeover's schema check: objects Kueue left are validated against kueuepp's CRDs
// (deploy/crds, v1beta2, after conversion from v1beta1) before anything changes, so the
// storage migration never stops halfway on an object the new schema refuses.

#include "cmd/takeover/schema_check.hpp"

#include <gtest/gtest.h>

#include "cmd/takeover/crd_handover.hpp"
#include "kube/json/yaml.hpp"

namespace kueuepp::cmd::takeover {
namespace {

const kube::takeover::KueueKind& kind_named(std::string_view name) {
  for (const auto& k : kube::takeover::kueue_kinds()) {
    if (k.kind == name) return k;
  }
  throw std::logic_error("no such kind");
}

json::value yaml(std::string_view text) {
  auto v = json::parse_yaml(text);
  EXPECT_TRUE(v.has_value()) << (v ? "" : v.error().message);
  return v ? *v : json::value{};
}

class TakeoverSchemaCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    auto manifests = read_crd_manifests(std::string(KUEUEPP_SOURCE_DIR) + "/deploy/crds");
    ASSERT_TRUE(manifests.has_value()) << manifests.error().message;
    auto compiled = SchemaCheck::compile(*manifests);
    ASSERT_TRUE(compiled.has_value()) << compiled.error().message;
    check_.emplace(std::move(*compiled));
  }
  std::optional<SchemaCheck> check_;
};

TEST_F(TakeoverSchemaCheck, ValidObjectsOfEitherVersionPass) {
  EXPECT_TRUE(check_->check(kind_named("ClusterQueue"), yaml(R"(
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq}
spec:
  cohort: team
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default, resources: [{name: cpu, nominalQuota: 3}]}]
)")).empty());
  EXPECT_TRUE(check_->check(kind_named("LocalQueue"), yaml(R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: team-a}
spec: {clusterQueue: cq}
)")).empty());
}

TEST_F(TakeoverSchemaCheck, AnObjectTheSchemaRefusesIsNamedWithItsFields) {
  auto refusals = check_->check(kind_named("LocalQueue"), yaml(R"(
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: lq, namespace: team-a}
spec: {clusterQueue: Not_A_Name}
)"));
  ASSERT_EQ(refusals.size(), 1u);
  EXPECT_EQ(refusals[0].object, "LocalQueue \"team-a/lq\"");
  EXPECT_NE(refusals[0].reason.find("would not be valid under kueuepp's CRD"), std::string::npos) << refusals[0].reason;
  EXPECT_NE(refusals[0].reason.find("spec.clusterQueue"), std::string::npos) << refusals[0].reason;
  EXPECT_NE(refusals[0].remedy.find("kubectl edit"), std::string::npos);
}

TEST_F(TakeoverSchemaCheck, ACrdWithoutTheStorageVersionIsAnError) {
  auto compiled = SchemaCheck::compile({{"localqueues.kueue.x-k8s.io", yaml(R"(
spec:
  versions: [{name: v1beta1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]
)")}});
  ASSERT_FALSE(compiled.has_value());
  EXPECT_EQ(compiled.error().message, "kueuepp's CRD localqueues.kueue.x-k8s.io has no v1beta2 schema");
}

}  // namespace
}  // namespace kueuepp::cmd::takeover
