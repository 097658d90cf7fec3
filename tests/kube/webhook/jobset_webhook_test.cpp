// Kueue's JobSet webhooks (mjobset, vjobset) and the child rule of mjob: a Job a
// managed JobSet controls is neither suspended nor queued itself.

#include <gtest/gtest.h>

#include "kube/webhook/job_webhook.hpp"
#include "kube/webhook/webhook_catalog.hpp"
#include "tests/kube/webhook/webhook_test_support.hpp"

namespace kueuepp::kube::webhook {
namespace {

using testing::patched;
using testing::request;
using testing::TableFacts;

bool suspended(const json::value& object) {
  const json::value* s = json::find_path(object, {"spec", "suspend"});
  return s != nullptr && s->is_bool() && s->get_bool();
}

JobWebhookPolicy with_jobsets() {
  JobWebhookPolicy policy;
  policy.frameworks = {"batch/job", "jobset.x-k8s.io/jobset"};
  return policy;
}

constexpr const char* kLabelledJobSet =
    "{metadata: {name: js, labels: {kueue.x-k8s.io/queue-name: user-queue}}, "
    "spec: {replicatedJobs: [{name: workers, template: {spec: {template: {spec: {containers: []}}}}}]}}";

TEST(JobSetDefaulting, ALabelledJobSetIsStoredSuspended) {
  TableFacts facts;
  auto r = request(Operation::Create, kLabelledJobSet);
  EXPECT_TRUE(suspended(patched(r, default_jobset(r, with_jobsets(), facts))));
}

TEST(JobSetDefaulting, TheDefaultLocalQueueAndPriorityClassAsForJobs) {
  TableFacts facts;
  facts.namespaces_with_default_queue.insert("team");
  facts.default_priority_class = true;
  facts.namespace_labels_by_name["team"] = {{"kubernetes.io/metadata.name", "team"}};
  auto r = request(Operation::Create, "{metadata: {name: js}, spec: {replicatedJobs: []}}");
  json::value js = patched(r, default_jobset(r, with_jobsets(), facts));
  EXPECT_TRUE(suspended(js));
  EXPECT_EQ(json::find_path(js, {"metadata", "labels"})->at("kueue.x-k8s.io/queue-name"), "default");
  EXPECT_EQ(json::find_path(js, {"metadata", "labels"})->at("kueue.x-k8s.io/priority-class"), "default");
}

TEST(JobSetDefaulting, NothingWhenJobSetsAreNotIntegrated) {
  TableFacts facts;
  auto r = request(Operation::Create, kLabelledJobSet);
  EXPECT_TRUE(default_jobset(r, JobWebhookPolicy{}, facts).patch.empty());
  EXPECT_TRUE(review_jobset(request(Operation::Create,
                                    "{metadata: {labels: {kueue.x-k8s.io/queue-name: Bad_Name}}, spec: {}}"),
                            JobWebhookPolicy{}, facts)
                  .allowed);
}

TEST(JobSetDefaulting, AJobSetsChildJobIsNotSuspended) {
  TableFacts facts;
  facts.namespaces_with_default_queue.insert("team");
  facts.namespace_labels_by_name["team"] = {{"kubernetes.io/metadata.name", "team"}};
  const char* child =
      "{metadata: {name: js-workers-0, ownerReferences: [{apiVersion: jobset.x-k8s.io/v1alpha2, kind: JobSet, "
      "name: js, uid: u, controller: true}]}, spec: {suspend: false}}";
  auto r = request(Operation::Create, child);
  EXPECT_TRUE(default_job(r, with_jobsets(), facts).patch.empty());
  // With JobSets not integrated, the child is a Job like any other (the default queue).
  EXPECT_TRUE(suspended(patched(r, default_job(r, JobWebhookPolicy{}, facts))));
  // An owner that is not its controller does not count.
  auto not_controller = request(
      Operation::Create,
      "{metadata: {name: j, ownerReferences: [{apiVersion: jobset.x-k8s.io/v1alpha2, kind: JobSet, name: js, uid: u}]}, "
      "spec: {}}");
  EXPECT_TRUE(suspended(patched(not_controller, default_job(not_controller, with_jobsets(), facts))));
}

TEST(JobSetValidation, KueuesLabelChecks) {
  TableFacts facts;
  auto bad = request(Operation::Create,
                     "{metadata: {labels: {kueue.x-k8s.io/queue-name: Bad_Name}}, spec: {replicatedJobs: []}}");
  auto refused = review_jobset(bad, with_jobsets(), facts);
  EXPECT_FALSE(refused.allowed);
  EXPECT_NE(refused.status->message.find("metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"Bad_Name\""),
            std::string::npos)
      << refused.status->message;
  EXPECT_TRUE(review_jobset(request(Operation::Create, kLabelledJobSet), with_jobsets(), facts).allowed);
}

TEST(JobSetValidation, TheQueueNameIsFrozenWhileItRuns) {
  TableFacts facts;
  auto r = request(Operation::Update,
                   "{metadata: {labels: {kueue.x-k8s.io/queue-name: other}}, spec: {suspend: false}}",
                   "{metadata: {labels: {kueue.x-k8s.io/queue-name: user-queue}}, spec: {suspend: false}}");
  auto refused = review_jobset(r, with_jobsets(), facts);
  EXPECT_FALSE(refused.allowed);
  EXPECT_NE(refused.status->message.find("field is immutable"), std::string::npos) << refused.status->message;
  auto while_suspended =
      request(Operation::Update, "{metadata: {labels: {kueue.x-k8s.io/queue-name: other}}, spec: {suspend: true}}",
              "{metadata: {labels: {kueue.x-k8s.io/queue-name: user-queue}}, spec: {suspend: true}}");
  EXPECT_TRUE(review_jobset(while_suspended, with_jobsets(), facts).allowed);
}

TEST(JobSetWebhooks, InTheCatalogWithKueuesNamesAndPaths) {
  const WebhookSpec* m = find_webhook("/mutate-jobset-x-k8s-io-v1alpha2-jobset");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->kind, WebhookKind::MutateJobSet);
  EXPECT_EQ(m->name, "mjobset.kb.io");
  const WebhookSpec* v = find_webhook("/validate-jobset-x-k8s-io-v1alpha2-jobset");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->name, "vjobset.kb.io");
  EXPECT_EQ(v->resources[0], "jobsets");
}

}  // namespace
}  // namespace kueuepp::kube::webhook
