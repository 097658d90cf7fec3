// Kueue's webhooks for RayServices (mrayservice/vrayservice): jobframework's defaults with
// spec.rayClusterConfig.suspend as the suspend flag, Kueue's cluster rules for a managed
// RayService (errors named spec.rayClusterSpec, as Kueue names them), the queue frozen
// while it serves, acting only when ray.io/rayservice is in integrations.frameworks.

#include <gtest/gtest.h>

#include "kube/webhook/job_webhook.hpp"
#include "kube/webhook/webhook_catalog.hpp"
#include "tests/kube/webhook/webhook_test_support.hpp"

namespace kueuepp::kube::webhook {
namespace {

using testing::patched;
using testing::request;
using testing::TableFacts;

JobWebhookPolicy with_services() {
  JobWebhookPolicy policy;
  policy.frameworks = {"batch/job", "ray.io/raycluster", "ray.io/rayservice"};
  return policy;
}

const std::string kCluster =
    "headGroupSpec: {template: {spec: {containers: [{name: head}]}}}, "
    "workerGroupSpecs: [{groupName: small-group, replicas: 1, template: {spec: {containers: [{name: w}]}}}]";

/// A RayService with `labels` whose rayClusterConfig has `cluster` (the fields inside
/// its braces).
std::string service(const std::string& cluster = kCluster,
                    const std::string& labels = "{kueue.x-k8s.io/queue-name: q}") {
  return "{apiVersion: ray.io/v1, kind: RayService, metadata: {name: svc, labels: " + labels +
         "}, spec: {serveConfigV2: 'applications: []', rayClusterConfig: {" + cluster + "}}}";
}

std::string refusal(const std::string& object, Operation op = Operation::Create, const std::string& old = "",
                    const TableFacts& facts = {}) {
  auto r = old.empty() ? request(op, object) : request(op, object, old);
  auto response = review_rayservice(r, with_services(), facts);
  return response.allowed ? "" : response.status->message;
}

TEST(RayServiceDefaulting, ALabelledServiceIsStoredWithItsClusterSuspended) {
  TableFacts facts;
  auto r = request(Operation::Create, service());
  json::value svc = patched(r, default_rayservice(r, with_services(), facts));
  const json::value* suspend = json::find_path(svc, {"spec", "rayClusterConfig", "suspend"});
  ASSERT_NE(suspend, nullptr);
  EXPECT_TRUE(suspend->as_bool());
  EXPECT_EQ(json::find_path(svc, {"spec", "suspend"}), nullptr) << "the service's own flag is not Kueue's";
  EXPECT_TRUE(default_rayservice(request(Operation::Create, service(kCluster + ", suspend: true")), with_services(),
                                 facts)
                  .patch.empty())
      << "already suspended";
  JobWebhookPolicy clusters_only;
  clusters_only.frameworks = {"batch/job", "ray.io/raycluster"};
  EXPECT_TRUE(default_rayservice(r, clusters_only, facts).patch.empty()) << "not integrated: Kueue's no-op webhook";
  EXPECT_TRUE(default_rayservice(request(Operation::Create, service(kCluster, "{}")), with_services(), facts)
                  .patch.empty())
      << "unlabelled and not managed";
}

TEST(RayServiceDefaulting, TheClusterItCreatesIsLeftToIt) {
  TableFacts facts;
  auto child = request(Operation::Create,
                       "{apiVersion: ray.io/v1, kind: RayCluster, metadata: {name: svc-raycluster-x, labels: "
                       "{kueue.x-k8s.io/queue-name: q}, ownerReferences: [{apiVersion: ray.io/v1, kind: RayService, "
                       "name: svc, uid: u, controller: true}]}, spec: {headGroupSpec: {template: {}}}}");
  EXPECT_TRUE(default_raycluster(child, with_services(), facts).patch.empty());
  JobWebhookPolicy clusters_only;
  clusters_only.frameworks = {"batch/job", "ray.io/raycluster"};
  EXPECT_FALSE(default_raycluster(child, clusters_only, facts).patch.empty())
      << "without the RayService integration the cluster is queued itself";
}

TEST(RayServiceValidation, AManagedServiceFollowsKueuesClusterRulesWithKueuesMessages) {
  EXPECT_EQ(refusal(service()), "");
  EXPECT_EQ(refusal(service("enableInTreeAutoscaling: true, " + kCluster)),
            "spec.rayClusterSpec.enableInTreeAutoscaling: Invalid value: true: a kueue managed job should only use "
            "autoscaling when workload slicing is enabled");
  EXPECT_EQ(refusal(service("headGroupSpec: {template: {}}, workerGroupSpecs: [{groupName: head, template: {}}]")),
            "spec.rayClusterSpec.workerGroupSpecs[0].groupName: Forbidden: \"head\" is reserved for the head group");
  std::string groups;
  for (int i = 0; i < 18; ++i) groups += (i ? ", " : "") + std::string("{groupName: g") + std::to_string(i) + "}";
  EXPECT_EQ(refusal(service("headGroupSpec: {}, workerGroupSpecs: [" + groups + "]")),
            "spec.rayClusterSpec.workerGroupSpecs: Too many: 19: must have at most 18 items");
  EXPECT_EQ(refusal(service("enableInTreeAutoscaling: true, " + kCluster, "{}")), "") << "unmanaged: not checked";
  TableFacts facts;
  JobWebhookPolicy clusters_only;
  clusters_only.frameworks = {"batch/job", "ray.io/raycluster"};
  EXPECT_TRUE(review_rayservice(request(Operation::Create, service("enableInTreeAutoscaling: true, " + kCluster)),
                                clusters_only, facts)
                  .allowed)
      << "not integrated: Kueue's no-op webhook";
}

TEST(RayServiceValidation, TheQueueIsFrozenWhileItServesAndCannotBeDropped) {
  const std::string serving = kCluster + ", suspend: false";
  const std::string suspended = kCluster + ", suspend: true";
  EXPECT_EQ(refusal(service(serving, "{kueue.x-k8s.io/queue-name: other}"), Operation::Update, service(serving)),
            "metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"other\": field is immutable");
  EXPECT_EQ(refusal(service(suspended, "{kueue.x-k8s.io/queue-name: other}"), Operation::Update, service(suspended)),
            "")
      << "suspended, it may move";
  // ValidateRayAndSparkJobUpdates (on by default): the old object's queue name counts.
  EXPECT_EQ(refusal(service(serving, "{}"), Operation::Update, service(serving)),
            "metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"\": field is immutable");
  TableFacts with_default;
  with_default.namespaces_with_default_queue.insert("team");
  EXPECT_EQ(refusal(service(suspended, "{}"), Operation::Update, service(suspended, "{kueue.x-k8s.io/queue-name: default}"),
                    with_default),
            "metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"\": queue-name must not be empty in "
            "namespace with default queue");
  EXPECT_EQ(refusal(service(suspended, "{}"), Operation::Update, service(suspended)), "");
  EXPECT_EQ(refusal(service(serving, "{}"), Operation::Update, service(serving, "{}")), "") << "never managed";
}

TEST(RayServiceWebhooks, InTheCatalogWithKueuesNamesAndPaths) {
  const WebhookSpec* m = find_webhook("/mutate-ray-io-v1-rayservice");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->name, "mrayservice.kb.io");
  EXPECT_EQ(m->kind, WebhookKind::MutateRayService);
  const WebhookSpec* v = find_webhook("/validate-ray-io-v1-rayservice");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->name, "vrayservice.kb.io");
  EXPECT_EQ(v->kind, WebhookKind::ValidateRayService);
  for (const WebhookSpec* w : {m, v}) {
    EXPECT_EQ(w->group, "ray.io");
    EXPECT_EQ(w->version, "v1");
    EXPECT_EQ(w->resources[0], "rayservices");
  }
}

}  // namespace
}  // namespace kueuepp::kube::webhook
