// Kueue's TrainJob webhooks (mtrainjob/vtrainjob): jobframework's defaults with spec.suspend,
// Kueue's runtime patch appended, jobframework's validation; acting only when
// trainer.kubeflow.org/trainjob is in integrations.frameworks.

#include <gtest/gtest.h>

#include "kube/webhook/job_webhook.hpp"
#include "kube/webhook/webhook_catalog.hpp"
#include "tests/kube/webhook/webhook_test_support.hpp"

namespace kueuepp::kube::webhook {
namespace {

using testing::patched;
using testing::request;
using testing::TableFacts;

JobWebhookPolicy with_trainjob() {
  JobWebhookPolicy policy;
  policy.frameworks = {"batch/job", "trainer.kubeflow.org/trainjob"};
  return policy;
}

constexpr const char* kTrainJob =
    "{apiVersion: trainer.kubeflow.org/v1alpha1, kind: TrainJob, metadata: {name: tj, labels: "
    "{kueue.x-k8s.io/queue-name: q}}, spec: {runtimeRef: {name: torch-distributed}}}";

const json::value* runtime_patches(const json::value& o) { return json::find_path(o, {"spec", "runtimePatches"}); }

TEST(TrainJobDefaulting, ALabelledTrainJobIsStoredSuspendedWithKueuesRuntimePatch) {
  TableFacts facts;
  auto r = request(Operation::Create, kTrainJob);
  json::value tj = patched(r, default_trainjob(r, with_trainjob(), facts));
  EXPECT_EQ(*json::find_path(tj, {"spec", "suspend"}), json::value(true));
  ASSERT_NE(runtime_patches(tj), nullptr);
  ASSERT_EQ(runtime_patches(tj)->as_array().size(), 1u);
  EXPECT_EQ(runtime_patches(tj)->as_array()[0],
            testing::yaml("{manager: kueue.x-k8s.io/manager, trainingRuntimeSpec: {template: {spec: {}}}}"));
  // A user's own patch is kept, Kueue's appended after it; Kueue's is never added twice.
  auto with_user = request(Operation::Create,
                           "{apiVersion: trainer.kubeflow.org/v1alpha1, kind: TrainJob, metadata: {name: tj, labels: "
                           "{kueue.x-k8s.io/queue-name: q}}, spec: {suspend: false, runtimeRef: {name: r}, "
                           "runtimePatches: [{manager: example.com/me}]}}");
  json::value u = patched(with_user, default_trainjob(with_user, with_trainjob(), facts));
  ASSERT_EQ(runtime_patches(u)->as_array().size(), 2u);
  EXPECT_EQ(json::get_string(runtime_patches(u)->as_array()[0], "manager"), "example.com/me");
  EXPECT_EQ(json::get_string(runtime_patches(u)->as_array()[1], "manager"), "kueue.x-k8s.io/manager");
  EXPECT_EQ(*json::find_path(u, {"spec", "suspend"}), json::value(true));
  auto again = request(Operation::Create, json::dump(u));
  EXPECT_TRUE(default_trainjob(again, with_trainjob(), facts).patch.empty());
}

TEST(TrainJobDefaulting, NothingWhenTrainJobsAreNotIntegrated) {
  TableFacts facts;
  auto r = request(Operation::Create, kTrainJob);
  JobWebhookPolicy jobs_only;
  EXPECT_TRUE(default_trainjob(r, jobs_only, facts).patch.empty());
  // An unlabelled TrainJob is not suspended (Kueue still adds its runtime patch).
  auto unlabelled = request(Operation::Create,
                            "{apiVersion: trainer.kubeflow.org/v1alpha1, kind: TrainJob, metadata: {name: tj}, "
                            "spec: {runtimeRef: {name: r}}}");
  json::value u = patched(unlabelled, default_trainjob(unlabelled, with_trainjob(), facts));
  EXPECT_EQ(json::find_path(u, {"spec", "suspend"}), nullptr);
  EXPECT_EQ(runtime_patches(u)->as_array().size(), 1u);
}

TEST(TrainJobValidation, BadLabelsAreRefusedAndTheQueueIsFrozenWhileItRuns) {
  TableFacts facts;
  auto bad = request(Operation::Create,
                     "{apiVersion: trainer.kubeflow.org/v1alpha1, kind: TrainJob, metadata: {name: tj, labels: "
                     "{kueue.x-k8s.io/queue-name: Bad_Name, kueue.x-k8s.io/max-exec-time-seconds: '-1'}}, spec: {}}");
  auto refused = review_trainjob(bad, with_trainjob(), facts);
  EXPECT_FALSE(refused.allowed);
  EXPECT_NE(refused.status->message.find("metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"Bad_Name\""),
            std::string::npos)
      << refused.status->message;
  EXPECT_NE(refused.status->message.find("should be greater than 0"), std::string::npos) << refused.status->message;
  auto moved = request(Operation::Update,
                       "{apiVersion: trainer.kubeflow.org/v1alpha1, kind: TrainJob, metadata: {labels: "
                       "{kueue.x-k8s.io/queue-name: other}}, spec: {suspend: false}}",
                       "{apiVersion: trainer.kubeflow.org/v1alpha1, kind: TrainJob, metadata: {labels: "
                       "{kueue.x-k8s.io/queue-name: q}}, spec: {suspend: false}}");
  auto frozen = review_trainjob(moved, with_trainjob(), facts);
  EXPECT_FALSE(frozen.allowed);
  EXPECT_NE(frozen.status->message.find("field is immutable"), std::string::npos) << frozen.status->message;
  auto while_suspended = request(Operation::Update,
                                 "{apiVersion: trainer.kubeflow.org/v1alpha1, kind: TrainJob, metadata: {labels: "
                                 "{kueue.x-k8s.io/queue-name: other}}, spec: {suspend: true}}",
                                 "{apiVersion: trainer.kubeflow.org/v1alpha1, kind: TrainJob, metadata: {labels: "
                                 "{kueue.x-k8s.io/queue-name: q}}, spec: {suspend: true}}");
  EXPECT_TRUE(review_trainjob(while_suspended, with_trainjob(), facts).allowed);
  JobWebhookPolicy jobs_only;
  EXPECT_TRUE(review_trainjob(bad, jobs_only, facts).allowed);
}

TEST(TrainJobWebhooks, InTheCatalogWithKueuesNamesAndPaths) {
  const WebhookSpec* m = find_webhook("/mutate-trainer-kubeflow-org-v1alpha1-trainjob");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->name, "mtrainjob.kb.io");
  EXPECT_TRUE(m->mutating);
  EXPECT_EQ(m->group, "trainer.kubeflow.org");
  EXPECT_EQ(m->version, "v1alpha1");
  EXPECT_EQ(m->resources[0], "trainjobs");
  const WebhookSpec* v = find_webhook("/validate-trainer-kubeflow-org-v1alpha1-trainjob");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->name, "vtrainjob.kb.io");
  EXPECT_EQ(v->operations.size(), 2u);
}

}  // namespace
}  // namespace kueuepp::kube::webhook
