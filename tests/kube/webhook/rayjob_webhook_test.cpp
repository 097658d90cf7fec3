// Kueue's webhooks for RayJobs (mrayjob/vrayjob): jobframework's defaults with spec.suspend,
// and Kueue's RayJob rules for a managed RayJob (no autoscaling, shutdown after finishing,
// a cluster of its own), acting only when ray.io/rayjob is in integrations.frameworks.

#include <gtest/gtest.h>

#include "kube/webhook/job_webhook.hpp"
#include "kube/webhook/webhook_catalog.hpp"
#include "tests/kube/webhook/webhook_test_support.hpp"

namespace kueuepp::kube::webhook {
namespace {

using testing::patched;
using testing::request;
using testing::TableFacts;

JobWebhookPolicy with_ray() {
  JobWebhookPolicy policy;
  policy.frameworks = {"batch/job", "ray.io/rayjob"};
  return policy;
}

/// A labelled RayJob whose spec is `spec`.
std::string rayjob(const std::string& spec, const std::string& labels = "{kueue.x-k8s.io/queue-name: q}") {
  return "{apiVersion: ray.io/v1, kind: RayJob, metadata: {name: rj, labels: " + labels + "}, spec: " + spec + "}";
}

const std::string kCluster =
    "{headGroupSpec: {template: {spec: {containers: [{name: head}]}}}, "
    "workerGroupSpecs: [{groupName: small-group, replicas: 1, template: {spec: {containers: [{name: w}]}}}]}";

std::string refusal(const std::string& object, Operation op = Operation::Create, const std::string& old = "") {
  TableFacts facts;
  auto r = old.empty() ? request(op, object) : request(op, object, old);
  auto response = review_rayjob(r, with_ray(), facts);
  return response.allowed ? "" : response.status->message;
}

TEST(RayJobDefaulting, ALabelledRayJobIsStoredSuspended) {
  TableFacts facts;
  auto r = request(Operation::Create, rayjob("{shutdownAfterJobFinishes: true, rayClusterSpec: " + kCluster + "}"));
  json::value job = patched(r, default_rayjob(r, with_ray(), facts));
  const json::value* suspend = json::find_path(job, {"spec", "suspend"});
  ASSERT_NE(suspend, nullptr);
  EXPECT_TRUE(suspend->as_bool());
  JobWebhookPolicy jobs_only;
  EXPECT_TRUE(default_rayjob(r, jobs_only, facts).patch.empty()) << "not integrated: Kueue's no-op webhook";
}

TEST(RayJobValidation, AManagedRayJobFollowsKueuesRulesWithKueuesMessages) {
  EXPECT_EQ(refusal(rayjob("{shutdownAfterJobFinishes: true, rayClusterSpec: " + kCluster + "}")), "");
  EXPECT_EQ(refusal(rayjob("{rayClusterSpec: " + kCluster + "}")),
            "spec.shutdownAfterJobFinishes: Invalid value: false: a kueue managed job should delete the cluster after "
            "finishing");
  std::string autoscaling = kCluster;
  autoscaling.insert(1, "enableInTreeAutoscaling: true, ");
  EXPECT_EQ(refusal(rayjob("{shutdownAfterJobFinishes: true, rayClusterSpec: " + autoscaling + "}")),
            "spec.rayClusterSpec.enableInTreeAutoscaling: Invalid value: true: a kueue managed job should only use "
            "autoscaling when workload slicing is enabled");
  EXPECT_EQ(refusal(rayjob("{shutdownAfterJobFinishes: true, rayClusterSpec: {headGroupSpec: {template: {}}, "
                           "workerGroupSpecs: [{groupName: head, template: {}}]}}")),
            "spec.rayClusterSpec.workerGroupSpecs[0].groupName: Forbidden: \"head\" is reserved for the head group");
  EXPECT_EQ(refusal(rayjob("{shutdownAfterJobFinishes: true}")),
            "spec.rayClusterSpec: Required value: rayClusterSpec is required for Kueue-managed jobs that don't use "
            "clusterSelector");
  EXPECT_EQ(refusal(rayjob("{clusterSelector: {ray.io/cluster: c}, rayClusterSpec: " + kCluster + "}")),
            "spec.clusterSelector: Invalid value: map[ray.io/cluster:c]: a kueue managed job should not use an existing "
            "cluster");
  EXPECT_EQ(refusal(rayjob("{clusterSelector: {ray.io/cluster: c}}")), "") << "an existing cluster: not Kueue's";
  std::string groups;
  for (int i = 0; i < 18; ++i) groups += (i ? ", " : "") + std::string("{groupName: g") + std::to_string(i) + "}";
  EXPECT_EQ(refusal(rayjob("{shutdownAfterJobFinishes: true, rayClusterSpec: {headGroupSpec: {}, workerGroupSpecs: [" +
                           groups + "]}}")),
            "spec.rayClusterSpec.workerGroupSpecs: Too many: 19: must have at most 18 items");
}

TEST(RayJobValidation, AnUnlabelledRayJobIsLeftAloneAndTheQueueIsFrozenWhileItRuns) {
  EXPECT_EQ(refusal(rayjob("{}", "{}")), "");
  const std::string running = "{suspend: false, shutdownAfterJobFinishes: true, rayClusterSpec: " + kCluster + "}";
  EXPECT_NE(refusal(rayjob(running, "{kueue.x-k8s.io/queue-name: other}"), Operation::Update, rayjob(running))
                .find("field is immutable"),
            std::string::npos);
  TableFacts facts;
  JobWebhookPolicy jobs_only;
  auto bad = request(Operation::Create, rayjob("{}"));
  EXPECT_TRUE(review_rayjob(bad, jobs_only, facts).allowed) << "not integrated: Kueue's no-op webhook";
}

// ValidateRayAndSparkJobUpdates (Kueue's ShouldValidateRayOrSparkJobOnUpdate): on, as by
// default, dropping the queue name of a running RayJob or RayCluster is refused; off, the
// update of an object that is no longer labelled is not checked.
TEST(RayJobValidation, DroppingTheQueueNameWhileRunningFollowsValidateRayAndSparkJobUpdates) {
  TableFacts facts;
  const std::string running = "{suspend: false, shutdownAfterJobFinishes: true, rayClusterSpec: " + kCluster + "}";
  auto drop = request(Operation::Update, rayjob(running, "{}"), rayjob(running));
  JobWebhookPolicy policy = with_ray();
  auto refused = review_rayjob(drop, policy, facts);
  ASSERT_FALSE(refused.allowed);
  EXPECT_EQ(refused.status->message, "metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"\": field is immutable");
  policy.validate_ray_updates = false;
  EXPECT_TRUE(review_rayjob(drop, policy, facts).allowed);

  const std::string cluster_labels = "{apiVersion: ray.io/v1, kind: RayCluster, metadata: {name: c, labels: ";
  const std::string cluster_spec = "}, spec: {suspend: false, headGroupSpec: {template: {}}}}";
  auto drop_cluster = request(Operation::Update, cluster_labels + "{}" + cluster_spec,
                              cluster_labels + "{kueue.x-k8s.io/queue-name: q}" + cluster_spec);
  JobWebhookPolicy clusters;
  clusters.frameworks = {"batch/job", "ray.io/raycluster"};
  EXPECT_FALSE(review_raycluster(drop_cluster, clusters, facts).allowed);
  clusters.validate_ray_updates = false;
  EXPECT_TRUE(review_raycluster(drop_cluster, clusters, facts).allowed);
}

TEST(RayJobWebhooks, InTheCatalogWithKueuesNamesAndPaths) {
  const WebhookSpec* m = find_webhook("/mutate-ray-io-v1-rayjob");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->name, "mrayjob.kb.io");
  const WebhookSpec* v = find_webhook("/validate-ray-io-v1-rayjob");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->name, "vrayjob.kb.io");
  for (const WebhookSpec* w : {m, v}) {
    EXPECT_EQ(w->group, "ray.io");
    EXPECT_EQ(w->version, "v1");
    EXPECT_EQ(w->resources[0], "rayjobs");
  }
}

}  // namespace
}  // namespace kueuepp::kube::webhook

namespace kueuepp::kube::webhook {
namespace {

JobWebhookPolicy with_ray_clusters() {
  JobWebhookPolicy policy;
  policy.frameworks = {"batch/job", "ray.io/rayjob", "ray.io/raycluster"};
  return policy;
}

TEST(RayClusterWebhooks, AQueuedClusterIsStoredSuspendedOneARayJobControlsIsLeftToIt) {
  TableFacts facts;
  auto r = request(Operation::Create,
                   "{apiVersion: ray.io/v1, kind: RayCluster, metadata: {name: c, labels: {kueue.x-k8s.io/queue-name: "
                   "q}}, spec: {headGroupSpec: {template: {}}}}");
  json::value cluster = patched(r, default_raycluster(r, with_ray_clusters(), facts));
  EXPECT_TRUE(json::find_path(cluster, {"spec", "suspend"})->as_bool());
  auto child = request(Operation::Create,
                       "{apiVersion: ray.io/v1, kind: RayCluster, metadata: {name: c, labels: {kueue.x-k8s.io/queue-name: "
                       "q}, ownerReferences: [{apiVersion: ray.io/v1, kind: RayJob, name: rj, uid: u, controller: true}]}, "
                       "spec: {headGroupSpec: {template: {}}}}");
  EXPECT_TRUE(default_raycluster(child, with_ray_clusters(), facts).patch.empty());
}

TEST(RayClusterWebhooks, AutoscalingIsRefusedWithKueuesMessageForRayClusters) {
  TableFacts facts;
  auto r = request(Operation::Create,
                   "{apiVersion: ray.io/v1, kind: RayCluster, metadata: {name: c, labels: {kueue.x-k8s.io/queue-name: "
                   "q}}, spec: {enableInTreeAutoscaling: true, headGroupSpec: {template: {}}}}");
  auto refused = review_raycluster(r, with_ray_clusters(), facts);
  ASSERT_FALSE(refused.allowed);
  EXPECT_EQ(refused.status->message,
            "spec.enableInTreeAutoscaling: Invalid value: true: a kueue-managed RayCluster can use autoscaling only as "
            "an elastic job: enable the ElasticJobsViaWorkloadSlices feature gate and set the "
            "\"kueue.x-k8s.io/elastic-job\": \"true\" annotation");
  EXPECT_TRUE(review_raycluster(r, with_ray(), facts).allowed) << "not integrated: Kueue's no-op webhook";
  const WebhookSpec* v = find_webhook("/validate-ray-io-v1-raycluster");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->name, "vraycluster.kb.io");
  ASSERT_NE(find_webhook("/mutate-ray-io-v1-raycluster"), nullptr);
}

}  // namespace
}  // namespace kueuepp::kube::webhook
