// deploy/: the admission webhooks as a cluster gets them. The two webhook configurations
// are exactly the ones kube/webhook builds from its catalog (Kueue's names and paths,
// kueuepp's failure policies and selectors), and the objects around them fit: the
// Deployment serves the webhooks on the port the Service targets, the Secret is the one
// the controller keeps the certificates in, and the roles name these objects.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kube/json/json.hpp"
#include "kube/json/yaml.hpp"
#include "kube/webhook/webhook_catalog.hpp"
#include "kube/webhook/webhook_configurations.hpp"
#include "tests/support/source_tree.hpp"

namespace kueuepp {
namespace {

using test_support::source_dir;

namespace fs = std::filesystem;
namespace wh = kube::webhook;

json::value load(const std::string& relative) {
  std::ifstream in(source_dir() + "/deploy/" + relative);
  std::ostringstream text;
  text << in.rdbuf();
  auto doc = json::parse_yaml(text.str());
  EXPECT_TRUE(doc) << relative << ": " << (doc ? "" : doc.error().message);
  return doc ? std::move(*doc) : json::value();
}

std::vector<json::value> load_all(const std::string& relative) {
  std::ifstream in(source_dir() + "/deploy/" + relative);
  std::ostringstream text;
  text << in.rdbuf();
  auto docs = json::parse_yaml_documents(text.str());
  EXPECT_TRUE(docs) << relative;
  return docs ? std::move(*docs) : std::vector<json::value>{};
}

TEST(DeployWebhooks, TheConfigurationsAreTheCatalogs) {
  wh::WebhookTarget target;  // by Service, no caBundle: the controller writes it
  EXPECT_EQ(json::dump(load("webhook/mutating_webhook_configuration.yaml")), json::dump(wh::mutating_configuration(target)));
  EXPECT_EQ(json::dump(load("webhook/validating_webhook_configuration.yaml")),
            json::dump(wh::validating_configuration(target)));
  std::string kustomization = json::dump(load("kustomization.yaml"));
  for (const char* file : {"webhook/mutating_webhook_configuration.yaml", "webhook/validating_webhook_configuration.yaml",
                           "manager/webhook_service.yaml", "manager/webhook_secret.yaml"}) {
    EXPECT_NE(kustomization.find(file), std::string::npos) << file << " is not in deploy/kustomization.yaml";
  }
}

TEST(DeployWebhooks, TheJobWebhooksLeaveSystemNamespacesOutAndNeverBlockUnlabelledJobs) {
  for (const auto& w : wh::webhook_catalog()) {
    if (w.group != "batch") continue;
    SCOPED_TRACE(w.name);
    EXPECT_TRUE(w.namespaced);
    // A Job without a queue name is never refused because kueuepp is down (Kueue #5244).
    if (w.object_filter != wh::ObjectFilter::QueueNameSet) {
      EXPECT_EQ(w.failure_policy, wh::FailurePolicy::Ignore);
    }
  }
  json::value m = load("webhook/mutating_webhook_configuration.yaml");
  for (const auto& hook : m.at("webhooks").as_array()) {
    if (hook.at("rules").at(0).at("apiGroups").at(0) != "batch") continue;
    EXPECT_EQ(json::dump(hook.at("namespaceSelector").at("matchExpressions").at(0).at("values")),
              R"(["kube-system","kueuepp-system"])");
  }
}

TEST(DeployWebhooks, ServiceDeploymentSecretAndRolesFitTogether) {
  json::value service = load("manager/webhook_service.yaml");
  EXPECT_EQ(service.at("metadata").at("name").as_string(), "kueuepp-webhook-service");
  EXPECT_EQ(service.at("spec").at("ports").at(0).at("port"), 443);
  EXPECT_EQ(service.at("spec").at("ports").at(0).at("targetPort"), "webhook");
  json::value deployment = load("manager/deployment.yaml");
  const auto& container = deployment.at("spec").at("template").at("spec").at("containers").at(0);
  bool port = false;
  for (const auto& p : container.at("ports").as_array()) port = port || (p.at("name") == "webhook" && p.at("containerPort") == 9443);
  EXPECT_TRUE(port) << "the container has no port named webhook on 9443";
  std::string args = json::dump(container.at("args"));
  EXPECT_NE(args.find(R"("--webhook-listen","0.0.0.0:9443")"), std::string::npos) << args;
  json::value secret = load("manager/webhook_secret.yaml");
  EXPECT_EQ(secret.at("metadata").at("name").as_string(), "kueuepp-webhook-server-cert");
  EXPECT_EQ(secret.at("metadata").at("namespace").as_string(), "kueuepp-system");
  std::string role = json::dump(load("rbac/role.yaml"));
  EXPECT_NE(role.find(R"("resourceNames":["kueuepp-webhook-server-cert"])"), std::string::npos) << role;
  std::string cluster_role;
  for (const auto& d : load_all("rbac/cluster_role.yaml")) cluster_role += json::dump(d);
  EXPECT_NE(cluster_role.find(std::string("\"") + std::string(wh::kMutatingConfigurationName) + "\""), std::string::npos);
  EXPECT_NE(cluster_role.find(std::string("\"") + std::string(wh::kValidatingConfigurationName) + "\""), std::string::npos);
}

}  // namespace
}  // namespace kueuepp
