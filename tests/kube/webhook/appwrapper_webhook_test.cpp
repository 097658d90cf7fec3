// Kueue's webhooks for AppWrappers (mappwrapper/vappwrapper, jobframework's BaseWebhook):
// the defaults with spec.suspend, jobframework's create and update checks, acting only
// when workload.codeflare.dev/appwrapper is in integrations.frameworks; and what the
// AppWrapper controller creates for a queued AppWrapper is never suspended itself.

#include <gtest/gtest.h>

#include "kube/webhook/job_webhook.hpp"
#include "kube/webhook/webhook_catalog.hpp"
#include "tests/kube/webhook/webhook_test_support.hpp"

namespace kueuepp::kube::webhook {
namespace {

using testing::patched;
using testing::request;
using testing::TableFacts;

JobWebhookPolicy with_appwrappers() {
  JobWebhookPolicy policy;
  policy.frameworks = {"batch/job", "kubeflow.org/pytorchjob", "workload.codeflare.dev/appwrapper"};
  return policy;
}

const std::string kComponents =
    "[{template: {apiVersion: batch/v1, kind: Job, metadata: {name: j}, spec: {template: {spec: {containers: "
    "[{name: c}]}}}}}]";

std::string appwrapper(const std::string& labels, const std::string& extra_spec = "") {
  return "{apiVersion: workload.codeflare.dev/v1beta2, kind: AppWrapper, metadata: {name: aw, labels: " + labels +
         "}, spec: {" + extra_spec + "components: " + kComponents + "}}";
}

std::string refusal(const std::string& object, Operation op = Operation::Create, const std::string& old = "") {
  TableFacts facts;
  auto r = old.empty() ? request(op, object) : request(op, object, old);
  auto response = review_appwrapper(r, with_appwrappers(), facts);
  return response.allowed ? "" : response.status->message;
}

TEST(AppWrapperDefaulting, ALabelledAppWrapperIsStoredSuspended) {
  TableFacts facts;
  auto r = request(Operation::Create, appwrapper("{kueue.x-k8s.io/queue-name: q}"));
  json::value aw = patched(r, default_appwrapper(r, with_appwrappers(), facts));
  const json::value* suspend = json::find_path(aw, {"spec", "suspend"});
  ASSERT_NE(suspend, nullptr);
  EXPECT_TRUE(suspend->as_bool());
  EXPECT_TRUE(default_appwrapper(request(Operation::Create, appwrapper("{}")), with_appwrappers(), facts).patch.empty())
      << "no queue name, manageJobsWithoutQueueName off: not managed";
  JobWebhookPolicy jobs_only;
  EXPECT_TRUE(default_appwrapper(r, jobs_only, facts).patch.empty()) << "not integrated: Kueue's no-op webhook";
}

TEST(AppWrapperDefaulting, WhatTheAppWrapperControllerCreatesIsNotSuspended) {
  TableFacts facts;
  JobWebhookPolicy policy = with_appwrappers();
  policy.manage_jobs_without_queue_name = true;
  const std::string owner =
      "ownerReferences: [{apiVersion: workload.codeflare.dev/v1beta2, kind: AppWrapper, name: aw, uid: u, "
      "controller: true}]";
  auto job = request(Operation::Create, "{apiVersion: batch/v1, kind: Job, metadata: {name: j, " + owner +
                                            "}, spec: {template: {spec: {containers: [{name: c}]}}}}");
  EXPECT_TRUE(default_job(job, policy, facts).patch.empty()) << "a managed AppWrapper's Job runs under its Workload";
  auto pytorch = request(Operation::Create, "{apiVersion: kubeflow.org/v1, kind: PyTorchJob, metadata: {name: p, " +
                                                owner + "}, spec: {pytorchReplicaSpecs: {}}}");
  EXPECT_TRUE(default_kubeflow_job(pytorch, policy, facts).patch.empty());
  // Without the AppWrapper integration the same Job is queued on its own.
  policy.frameworks = {"batch/job"};
  EXPECT_FALSE(default_job(job, policy, facts).patch.empty());
}

TEST(AppWrapperValidation, JobframeworksChecksWithKueuesMessages) {
  EXPECT_EQ(refusal(appwrapper("{kueue.x-k8s.io/queue-name: q}")), "");
  EXPECT_NE(refusal(appwrapper("{kueue.x-k8s.io/queue-name: Not_A_Name}")).find("metadata.labels[kueue.x-k8s.io/queue-name]"),
            std::string::npos);
  EXPECT_EQ(refusal(appwrapper("{kueue.x-k8s.io/queue-name: q, kueue.x-k8s.io/max-exec-time-seconds: \"0\"}")),
            "metadata.labels[kueue.x-k8s.io/max-exec-time-seconds]: Invalid value: 0: should be greater than 0");
  // The queue is frozen while it runs, free while it is suspended.
  const std::string running = appwrapper("{kueue.x-k8s.io/queue-name: q}", "suspend: false, ");
  EXPECT_NE(refusal(appwrapper("{kueue.x-k8s.io/queue-name: other}", "suspend: false, "), Operation::Update, running)
                .find("field is immutable"),
            std::string::npos);
  const std::string suspended = appwrapper("{kueue.x-k8s.io/queue-name: q}", "suspend: true, ");
  EXPECT_EQ(refusal(appwrapper("{kueue.x-k8s.io/queue-name: other}", "suspend: true, "), Operation::Update, suspended),
            "");
  EXPECT_EQ(refusal(appwrapper("{kueue.x-k8s.io/queue-name: q, kueue.x-k8s.io/priority-class: high}", "suspend: false, "),
                    Operation::Update, running),
            "metadata.labels[kueue.x-k8s.io/priority-class]: Invalid value: \"high\": WorkloadPriorityClass cannot be "
            "added to a non-suspended workload");
  TableFacts facts;
  auto bad = request(Operation::Create, appwrapper("{kueue.x-k8s.io/queue-name: Not_A_Name}"));
  EXPECT_TRUE(review_appwrapper(bad, JobWebhookPolicy{}, facts).allowed) << "not integrated: Kueue's no-op webhook";
}

TEST(AppWrapperWebhooks, InTheCatalogWithKueuesNamesAndPaths) {
  const WebhookSpec* m = find_webhook("/mutate-workload-codeflare-dev-v1beta2-appwrapper");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->name, "mappwrapper.kb.io");
  EXPECT_EQ(m->kind, WebhookKind::MutateAppWrapper);
  const WebhookSpec* v = find_webhook("/validate-workload-codeflare-dev-v1beta2-appwrapper");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->name, "vappwrapper.kb.io");
  EXPECT_EQ(v->operations.size(), 2U);
  for (const WebhookSpec* w : {m, v}) {
    EXPECT_EQ(w->group, "workload.codeflare.dev");
    EXPECT_EQ(w->version, "v1beta2");
    EXPECT_EQ(w->resources[0], "appwrappers");
  }
}

}  // namespace
}  // namespace kueuepp::kube::webhook
