#include "kube/webhook/webhook_configurations.hpp"

#include <gtest/gtest.h>

#include <set>

#include "core/base64.hpp"
#include "kube/webhook/webhook_catalog.hpp"

namespace kueuepp::kube::webhook {
namespace {

TEST(WebhookCatalog, KueuesNamesAndPaths) {
  EXPECT_EQ(find_webhook("/mutate-batch-v1-job")->kind, WebhookKind::MutateJob);
  EXPECT_EQ(find_webhook("/validate-batch-v1-job")->name, "vjob.kb.io");
  EXPECT_EQ(find_webhook("/validate-kueue-x-k8s-io-v1beta2-clusterqueue")->name, "vclusterqueue.kb.io");
  EXPECT_EQ(find_webhook("/nope"), nullptr);
  std::set<std::string_view> names;
  for (const auto& w : webhook_catalog()) EXPECT_TRUE(names.insert(w.name).second) << w.name;
}

TEST(WebhookConfigurations, ByServiceLeaveSystemNamespacesAndUnlabelledJobsToIgnore) {
  WebhookTarget target;
  target.ca_bundle_pem = "PEM";
  json::value m = mutating_configuration(target);
  EXPECT_EQ(m.at("kind"), "MutatingWebhookConfiguration");
  EXPECT_EQ(m.at("metadata").at("name").as_string(), kMutatingConfigurationName);
  const auto& hooks = m.at("webhooks").as_array();
  // mjob, mjobset, the six Kubeflow kinds', mrayjob, mraycluster, mrayservice, mtrainjob and mappwrapper
  // twice each, clusterqueue, resourceflavor (not the Workload's)
  ASSERT_EQ(hooks.size(), 28u);
  const auto& mjob = hooks[0].as_object();
  EXPECT_EQ(mjob.at("name").as_string(), "mjob.kb.io");
  EXPECT_EQ(mjob.at("failurePolicy"), "Fail");
  EXPECT_EQ(json::dump(mjob.at("objectSelector")),
            R"({"matchExpressions":[{"key":"kueue.x-k8s.io/queue-name","operator":"Exists"}]})");
  EXPECT_EQ(json::dump(mjob.at("namespaceSelector")),
            R"({"matchExpressions":[{"key":"kubernetes.io/metadata.name","operator":"NotIn","values":["kube-system","kueuepp-system"]}]})");
  EXPECT_EQ(mjob.at("clientConfig").at("service").at("path"), "/mutate-batch-v1-job");
  EXPECT_EQ(*core::base64_decode(mjob.at("clientConfig").at("caBundle").as_string()), "PEM");
  EXPECT_EQ(hooks[1].at("failurePolicy"), "Ignore");
  EXPECT_EQ(hooks[1].at("objectSelector").at("matchExpressions").at(0).at("operator"), "DoesNotExist");
  EXPECT_EQ(hooks[2].at("name"), "mjobset.kb.io");
  EXPECT_EQ(hooks[2].at("rules").at(0).at("resources").at(0), "jobsets");
  EXPECT_EQ(hooks[4].at("name"), "mpytorchjob.kb.io");
  EXPECT_EQ(hooks[4].at("rules").at(0).at("resources").at(0), "pytorchjobs");
  EXPECT_EQ(hooks[16].at("name"), "mrayjob.kb.io");
  EXPECT_EQ(hooks[18].at("name"), "mraycluster.kb.io");
  EXPECT_EQ(hooks[20].at("name"), "mrayservice.kb.io");
  EXPECT_EQ(hooks[20].at("rules").at(0).at("resources").at(0), "rayservices");
  EXPECT_EQ(hooks[22].at("name"), "mtrainjob.kb.io");
  EXPECT_EQ(hooks[22].at("rules").at(0).at("resources").at(0), "trainjobs");
  EXPECT_EQ(hooks[24].at("name"), "mappwrapper.kb.io");
  EXPECT_EQ(hooks[24].at("rules").at(0).at("apiGroups").at(0), "workload.codeflare.dev");
  EXPECT_EQ(hooks[26].at("name"), "mclusterqueue.kb.io");
  EXPECT_FALSE(hooks[26].as_object().contains("namespaceSelector"));  // ClusterQueues are cluster-scoped
  json::value v = validating_configuration(target);
  EXPECT_EQ(v.at("webhooks").as_array().size(), 16u);
}

TEST(WebhookConfigurations, ByUrl) {
  WebhookTarget target;
  target.url_base = "https://127.0.0.1:9443";
  json::value v = validating_configuration(target);
  const auto& cc = v.at("webhooks").at(0).at("clientConfig").as_object();
  EXPECT_EQ(cc.at("url"), "https://127.0.0.1:9443/validate-batch-v1-job");
  EXPECT_FALSE(cc.contains("service"));
  EXPECT_FALSE(cc.contains("caBundle"));
}

TEST(WebhookConfigurations, CaBundlePatchNamesOnlyOurWebhooksThatDiffer) {
  WebhookTarget target;
  json::value live = mutating_configuration(target);
  live.as_object()["webhooks"].as_array().emplace_back(json::object{{"name", "someone-else.example.com"}});
  auto patch = ca_bundle_patch(live, "CA");
  ASSERT_TRUE(patch);
  const auto& entries = patch->at("webhooks").as_array();
  EXPECT_EQ(entries.size(), 28u);  // every mutating webhook of ours (the catalog's registered ones)
  EXPECT_EQ(*core::base64_decode(entries[0].at("clientConfig").at("caBundle").as_string()), "CA");
  target.ca_bundle_pem = "CA";
  EXPECT_FALSE(ca_bundle_patch(mutating_configuration(target), "CA"));
}

TEST(WebhookConfigurations, UpdatedOnlyWhenTheWebhooksDiffer) {
  WebhookTarget target;
  target.url_base = "https://127.0.0.1:9443";
  json::value desired = mutating_configuration(target);
  json::value live = desired;
  live.as_object()["metadata"].as_object()["resourceVersion"] = "7";
  // Defaults the API server adds do not count.
  live.as_object()["webhooks"].as_array()[0].as_object()["reinvocationPolicy"] = "Never";
  EXPECT_FALSE(updated_configuration(live, desired));
  target.url_base = "https://127.0.0.1:9444";
  auto updated = updated_configuration(live, mutating_configuration(target));
  ASSERT_TRUE(updated);
  EXPECT_EQ(updated->at("metadata").at("resourceVersion"), "7");
  EXPECT_EQ(updated->at("webhooks").at(0).at("clientConfig").at("url"), "https://127.0.0.1:9444/mutate-batch-v1-job");
}

}  // namespace
}  // namespace kueuepp::kube::webhook
