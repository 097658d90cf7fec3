// Kueue's webhooks for the Kubeflow jobs and MPIJob (mpytorchjob/vpytorchjob, ...,
// mmpijob/vmpijob): jobframework's defaults and validation with spec.runPolicy.suspend as
// the suspend flag, acting only for the kinds in integrations.frameworks.

#include <gtest/gtest.h>

#include "kube/webhook/job_webhook.hpp"
#include "kube/webhook/webhook_catalog.hpp"
#include "tests/kube/webhook/webhook_test_support.hpp"

namespace kueuepp::kube::webhook {
namespace {

using testing::patched;
using testing::request;
using testing::TableFacts;

bool run_policy_suspended(const json::value& object) {
  const json::value* s = json::find_path(object, {"spec", "runPolicy", "suspend"});
  return s != nullptr && s->is_bool() && s->get_bool();
}

JobWebhookPolicy with_kubeflow() {
  JobWebhookPolicy policy;
  policy.frameworks = {"batch/job", "kubeflow.org/pytorchjob", "kubeflow.org/mpijob"};
  return policy;
}

constexpr const char* kPyTorchJob =
    "{apiVersion: kubeflow.org/v1, kind: PyTorchJob, metadata: {name: pt, labels: {kueue.x-k8s.io/queue-name: q}}, "
    "spec: {pytorchReplicaSpecs: {Worker: {replicas: 2, template: {spec: {containers: []}}}}}}";

TEST(KubeflowDefaulting, ALabelledJobIsStoredWithRunPolicySuspendAddedWhereverItIsMissing) {
  TableFacts facts;
  // No runPolicy: the object is added.
  auto r = request(Operation::Create, kPyTorchJob);
  json::value job = patched(r, default_kubeflow_job(r, with_kubeflow(), facts));
  EXPECT_TRUE(run_policy_suspended(job));
  EXPECT_EQ(json::find_path(job, {"spec", "suspend"}), nullptr) << "a Kubeflow job has no spec.suspend";
  // A runPolicy without suspend (Kueue's sample-mpijob.yaml): the field is added beside the others.
  auto mpi = request(Operation::Create,
                     "{apiVersion: kubeflow.org/v2beta1, kind: MPIJob, metadata: {name: pi, labels: "
                     "{kueue.x-k8s.io/queue-name: q}}, spec: {runPolicy: {cleanPodPolicy: Running}, mpiReplicaSpecs: {}}}");
  json::value m = patched(mpi, default_kubeflow_job(mpi, with_kubeflow(), facts));
  EXPECT_TRUE(run_policy_suspended(m));
  EXPECT_EQ(json::find_path(m, {"spec", "runPolicy", "cleanPodPolicy"})->as_string(), "Running");
  // suspend: false is replaced.
  auto running = request(Operation::Create,
                         "{apiVersion: kubeflow.org/v1, kind: PyTorchJob, metadata: {name: pt, labels: "
                         "{kueue.x-k8s.io/queue-name: q}}, spec: {runPolicy: {suspend: false}}}");
  EXPECT_TRUE(run_policy_suspended(patched(running, default_kubeflow_job(running, with_kubeflow(), facts))));
  // Already suspended: nothing to do.
  auto suspended = request(Operation::Create,
                           "{apiVersion: kubeflow.org/v1, kind: PyTorchJob, metadata: {name: pt, labels: "
                           "{kueue.x-k8s.io/queue-name: q}}, spec: {runPolicy: {suspend: true}}}");
  EXPECT_TRUE(default_kubeflow_job(suspended, with_kubeflow(), facts).patch.empty());
}

TEST(KubeflowDefaulting, NothingForAKindNotIntegratedOrUnlabelled) {
  TableFacts facts;
  auto tf = request(Operation::Create,
                    "{apiVersion: kubeflow.org/v1, kind: TFJob, metadata: {name: tf, labels: "
                    "{kueue.x-k8s.io/queue-name: q}}, spec: {}}");
  EXPECT_TRUE(default_kubeflow_job(tf, with_kubeflow(), facts).patch.empty());
  auto unlabelled = request(Operation::Create, "{apiVersion: kubeflow.org/v1, kind: PyTorchJob, metadata: {name: pt}}");
  EXPECT_TRUE(default_kubeflow_job(unlabelled, with_kubeflow(), facts).patch.empty());
}

TEST(KubeflowValidation, BadLabelsAreRefusedAndTheQueueIsFrozenWhileItRuns) {
  TableFacts facts;
  auto bad = request(Operation::Create,
                     "{apiVersion: kubeflow.org/v1, kind: PyTorchJob, metadata: {name: pt, labels: "
                     "{kueue.x-k8s.io/queue-name: Bad_Name}}, spec: {}}");
  auto refused = review_kubeflow_job(bad, with_kubeflow(), facts);
  EXPECT_FALSE(refused.allowed);
  EXPECT_NE(refused.status->message.find("metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"Bad_Name\""),
            std::string::npos)
      << refused.status->message;
  auto moved = request(Operation::Update,
                       "{apiVersion: kubeflow.org/v1, kind: PyTorchJob, metadata: {labels: {kueue.x-k8s.io/queue-name: "
                       "other}}, spec: {runPolicy: {suspend: false}}}",
                       "{apiVersion: kubeflow.org/v1, kind: PyTorchJob, metadata: {labels: {kueue.x-k8s.io/queue-name: "
                       "q}}, spec: {runPolicy: {suspend: false}}}");
  auto frozen = review_kubeflow_job(moved, with_kubeflow(), facts);
  EXPECT_FALSE(frozen.allowed);
  EXPECT_NE(frozen.status->message.find("field is immutable"), std::string::npos) << frozen.status->message;
  auto while_suspended =
      request(Operation::Update,
              "{apiVersion: kubeflow.org/v1, kind: PyTorchJob, metadata: {labels: {kueue.x-k8s.io/queue-name: other}}, "
              "spec: {runPolicy: {suspend: true}}}",
              "{apiVersion: kubeflow.org/v1, kind: PyTorchJob, metadata: {labels: {kueue.x-k8s.io/queue-name: q}}, "
              "spec: {runPolicy: {suspend: true}}}");
  EXPECT_TRUE(review_kubeflow_job(while_suspended, with_kubeflow(), facts).allowed);
  // Not integrated: Kueue's no-op webhook.
  JobWebhookPolicy jobs_only;
  EXPECT_TRUE(review_kubeflow_job(bad, jobs_only, facts).allowed);
}

TEST(KubeflowWebhooks, InTheCatalogWithKueuesNamesAndPaths) {
  struct Expected {
    const char* path;
    const char* name;
    const char* resource;
    const char* version;
  };
  for (const Expected& e : {Expected{"/mutate-kubeflow-org-v1-pytorchjob", "mpytorchjob.kb.io", "pytorchjobs", "v1"},
                            Expected{"/validate-kubeflow-org-v1-pytorchjob", "vpytorchjob.kb.io", "pytorchjobs", "v1"},
                            Expected{"/mutate-kubeflow-org-v1-tfjob", "mtfjob.kb.io", "tfjobs", "v1"},
                            Expected{"/validate-kubeflow-org-v1-xgboostjob", "vxgboostjob.kb.io", "xgboostjobs", "v1"},
                            Expected{"/mutate-kubeflow-org-v1-paddlejob", "mpaddlejob.kb.io", "paddlejobs", "v1"},
                            Expected{"/validate-kubeflow-org-v1-jaxjob", "vjaxjob.kb.io", "jaxjobs", "v1"},
                            Expected{"/mutate-kubeflow-org-v2beta1-mpijob", "mmpijob.kb.io", "mpijobs", "v2beta1"},
                            Expected{"/validate-kubeflow-org-v2beta1-mpijob", "vmpijob.kb.io", "mpijobs", "v2beta1"}}) {
    SCOPED_TRACE(e.path);
    const WebhookSpec* w = find_webhook(e.path);
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->name, e.name);
    EXPECT_EQ(w->group, "kubeflow.org");
    EXPECT_EQ(w->version, e.version);
    EXPECT_EQ(w->resources[0], e.resource);
  }
}

}  // namespace
}  // namespace kueuepp::kube::webhook
