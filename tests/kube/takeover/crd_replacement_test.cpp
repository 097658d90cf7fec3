#include "kube/takeover/crd_replacement.hpp"

#include <gtest/gtest.h>

#include "kube/json/yaml.hpp"

namespace kueuepp::kube::takeover {
namespace {

json::value yaml(std::string_view text) {
  auto v = json::parse_yaml(text);
  EXPECT_TRUE(v.has_value()) << (v ? "" : v.error().message);
  return v ? *v : json::value{};
}

const json::value kService = yaml(R"(
webhooks:
- name: mjob.kb.io
  clientConfig:
    caBundle: Q0E=
    service: {name: kueuepp-webhook-service, namespace: kueuepp-system, path: /mutate-batch-v1-job, port: 443}
)");

// Kueue's Workload CRD as a later Kueue installs it (cert-manager injects Kueue's CA).
const json::value kKueueWorkloads = yaml(R"(
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: workloads.kueue.x-k8s.io
  resourceVersion: "42"
  uid: u-1
  annotations: {cert-manager.io/inject-ca-from: kueue-system/kueue-serving-cert, keep: me}
spec:
  group: kueue.x-k8s.io
  conversion:
    strategy: Webhook
    webhook: {clientConfig: {service: {name: kueue-webhook-service, namespace: kueue-system, path: /convert}}}
  versions:
  - {name: v1beta1, served: true, storage: false}
  - name: v1beta2
    served: true
    storage: true
    selectableFields: [{jsonPath: .status.admission.clusterQueue}]
status: {storedVersions: [v1beta1, v1beta2]}
)");

const json::value kOurWorkloads = yaml(R"(
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: workloads.kueue.x-k8s.io}
spec:
  group: kueue.x-k8s.io
  versions:
  - {name: v1beta1, served: true, storage: false, schema: {openAPIV3Schema: {type: object}}}
  - {name: v1beta2, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
)");

TEST(ConversionClientConfig, FollowsKueueppsServiceAtConvert) {
  auto config = conversion_client_config(kService);
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(json::dump(*config),
            R"({"caBundle":"Q0E=","service":{"name":"kueuepp-webhook-service","namespace":"kueuepp-system","path":"/convert","port":443}})");
}

TEST(ConversionClientConfig, FollowsKueueppsUrlAtConvert) {
  auto config = conversion_client_config(
      yaml("webhooks: [{clientConfig: {caBundle: Q0E=, url: 'https://127.0.0.1:9443/mutate-batch-v1-job'}}]"));
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(json::get_string(*config, "url"), "https://127.0.0.1:9443/convert");
}

TEST(ConversionClientConfig, WithoutACaBundleSaysToWaitForKueuepp) {
  auto config = conversion_client_config(
      yaml("webhooks: [{clientConfig: {service: {name: kueuepp-webhook-service, namespace: kueuepp-system}}}]"));
  ASSERT_FALSE(config.has_value());
  EXPECT_NE(config.error().message.find("no caBundle yet"), std::string::npos);
}

TEST(ReplacementCrd, UpdatesKueuesCrdInPlaceWithOurSpecAndConversion) {
  auto config = conversion_client_config(kService);
  ASSERT_TRUE(config.has_value());
  auto crd = replacement_crd(kKueueWorkloads, kOurWorkloads, *config);
  ASSERT_TRUE(crd.has_value()) << crd.error().message;
  EXPECT_EQ(json::dump(*json::find_path(*crd, {"metadata", "resourceVersion"})), "\"42\"");
  EXPECT_EQ(json::find_path(*crd, {"metadata", "annotations", "cert-manager.io/inject-ca-from"}), nullptr);
  EXPECT_NE(json::find_path(*crd, {"metadata", "annotations", "keep"}), nullptr);
  EXPECT_EQ(json::dump(*json::find_path(*crd, {"spec", "conversion", "webhook", "clientConfig", "service", "name"})),
            "\"kueuepp-webhook-service\"");
  EXPECT_TRUE(is_kueuepp_crd(*crd));
  EXPECT_FALSE(is_kueuepp_crd(kKueueWorkloads));
}

TEST(ReplacementCrd, KeepsKueuesSelectableFields) {
  auto crd = replacement_crd(kKueueWorkloads, kOurWorkloads, *conversion_client_config(kService));
  ASSERT_TRUE(crd.has_value());
  const auto& versions = json::find_path(*crd, {"spec", "versions"})->get_array();
  EXPECT_EQ(json::find(versions[0], "selectableFields"), nullptr);
  const json::value* fields = json::find(versions[1], "selectableFields");
  ASSERT_NE(fields, nullptr);
  EXPECT_EQ(json::dump(*fields), R"([{"jsonPath":".status.admission.clusterQueue"}])");
}

TEST(ReplacementCrd, RefusesAManifestOfAnotherCrd) {
  json::value other = kOurWorkloads;
  other.get_object()["metadata"] = yaml("{name: clusterqueues.kueue.x-k8s.io}");
  auto crd = replacement_crd(kKueueWorkloads, other, *conversion_client_config(kService));
  ASSERT_FALSE(crd.has_value());
  EXPECT_NE(crd.error().message.find("not workloads.kueue.x-k8s.io"), std::string::npos);
}

TEST(StorageVersion, MovesTheStorageFlag) {
  auto moved = with_storage_version(kOurWorkloads, "v1beta1");
  ASSERT_TRUE(moved.has_value());
  const auto& versions = json::find_path(*moved, {"spec", "versions"})->get_array();
  EXPECT_TRUE(json::find(versions[0], "storage")->get_bool());
  EXPECT_FALSE(json::find(versions[1], "storage")->get_bool());
  EXPECT_FALSE(with_storage_version(kOurWorkloads, "v1alpha1").has_value());
}

TEST(RestoredCrd, TakesKueuesSpecOnTheLiveObject) {
  auto ours = replacement_crd(kKueueWorkloads, kOurWorkloads, *conversion_client_config(kService));
  ASSERT_TRUE(ours.has_value());
  auto back = restored_crd(*ours, kKueueWorkloads);
  ASSERT_TRUE(back.has_value());
  EXPECT_FALSE(is_kueuepp_crd(*back));
  EXPECT_EQ(json::dump(*json::find(*back, "spec")), json::dump(*json::find(kKueueWorkloads, "spec")));
}

}  // namespace
}  // namespace kueuepp::kube::takeover
