// Kueue's Job webhooks (mjob, vjob) as tables: the Job under review and the cluster's
// facts in; the Job after the patch, or the refusal with Kueue's message, out.

#include "kube/webhook/job_webhook.hpp"

#include <gtest/gtest.h>

#include "tests/kube/webhook/webhook_test_support.hpp"

namespace kueuepp::kube::webhook {
namespace {

using testing::patched;
using testing::request;
using testing::TableFacts;

std::string label(const json::value& job, std::string_view key) {
  const json::value* labels = json::find_path(job, {"metadata", "labels"});
  if (labels == nullptr) return "<none>";
  const json::value* v = json::find(*labels, key);
  return v == nullptr ? "<none>" : std::string(v->as_string());
}

bool suspended(const json::value& job) {
  const json::value* s = json::find_path(job, {"spec", "suspend"});
  return s != nullptr && s->is_bool() && s->get_bool();
}

struct DefaultCase {
  const char* name;
  const char* job;
  bool manage_without_queue_name = false;
  bool default_queue_in_team = false;
  bool default_priority_class = false;
  bool team_labels_known = true;
  // expected
  const char* queue;
  const char* priority;
  bool suspend;
};

TEST(JobDefaulting, LabelsAndSuspendAsKueue) {
  const DefaultCase cases[] = {
      {"a labelled Job is suspended at creation",
       "{metadata: {name: j, labels: {kueue.x-k8s.io/queue-name: lq}}, spec: {suspend: false}}", false, false, false,
       true, "lq", "<none>", true},
      {"a labelled Job without spec.suspend gets it",
       "{metadata: {name: j, labels: {kueue.x-k8s.io/queue-name: lq}}, spec: {parallelism: 1}}", false, false, false,
       true, "lq", "<none>", true},
      {"an unlabelled Job is left alone", "{metadata: {name: j}, spec: {suspend: false}}", false, false, false, true,
       "<none>", "<none>", false},
      {"an unlabelled Job in a namespace with a default LocalQueue gets it and is suspended",
       "{metadata: {name: j}, spec: {suspend: false}}", false, true, false, true, "default", "<none>", true},
      {"an unlabelled Job without labels at all gets the map",
       "{metadata: {name: j, labels: {app: x}}, spec: {}}", false, true, false, true, "default", "<none>", true},
      {"the default WorkloadPriorityClass is added when it exists",
       "{metadata: {name: j, labels: {kueue.x-k8s.io/queue-name: lq}}, spec: {}}", false, false, true, true, "lq",
       "default", true},
      {"a priority class already named is kept",
       "{metadata: {name: j, labels: {kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/priority-class: high}}, spec: {}}",
       false, false, true, true, "lq", "high", true},
      {"manageJobsWithoutQueueName holds an unlabelled Job in a managed namespace",
       "{metadata: {name: j}, spec: {suspend: false}}", true, false, false, true, "<none>", "<none>", true},
      {"a Job being stopped is suspended again (Kueue's IsSuspended ignores it)",
       "{metadata: {name: j, labels: {kueue.x-k8s.io/queue-name: lq}, annotations: {kueue.x-k8s.io/stopping: 'true'}}, "
       "spec: {suspend: true}}",
       false, false, false, true, "lq", "<none>", true},
      {"a namespace not delivered yet is judged by its name alone", "{metadata: {name: j}, spec: {}}", true, false,
       false, false, "<none>", "<none>", true},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    TableFacts facts;
    if (c.default_queue_in_team) facts.namespaces_with_default_queue.insert("team");
    facts.default_priority_class = c.default_priority_class;
    if (c.team_labels_known) facts.namespace_labels_by_name["team"] = {{"kubernetes.io/metadata.name", "team"}};
    JobWebhookPolicy policy;
    policy.manage_jobs_without_queue_name = c.manage_without_queue_name;
    policy.managed_jobs_namespace_selector = default_managed_jobs_namespace_selector("kueuepp-system");
    auto r = request(Operation::Create, c.job);
    auto response = default_job(r, policy, facts);
    EXPECT_TRUE(response.allowed);
    EXPECT_EQ(response.uid, "uid-1");
    json::value job = patched(r, response);
    EXPECT_EQ(label(job, "kueue.x-k8s.io/queue-name"), c.queue);
    EXPECT_EQ(label(job, "kueue.x-k8s.io/priority-class"), c.priority);
    EXPECT_EQ(suspended(job), c.suspend);
  }
}

TEST(JobDefaulting, UnmanagedNamespacesGetNoDefaultQueueNorHold) {
  TableFacts facts;
  facts.namespaces_with_default_queue.insert("kueuepp-system");
  facts.namespace_labels_by_name["kueuepp-system"] = {{"kubernetes.io/metadata.name", "kueuepp-system"}};
  JobWebhookPolicy policy;
  policy.manage_jobs_without_queue_name = true;
  policy.managed_jobs_namespace_selector = default_managed_jobs_namespace_selector("kueuepp-system");
  auto r = request(Operation::Create, "{metadata: {name: j}, spec: {suspend: false}}", {}, "kueuepp-system");
  auto response = default_job(r, policy, facts);
  EXPECT_TRUE(response.patch.empty()) << json::dump(json::value(response.patch));
  // A selector on a label the namespace lacks: not managed either.
  facts.namespace_labels_by_name["team"] = {{"kubernetes.io/metadata.name", "team"}};
  policy.managed_jobs_namespace_selector = core::LabelSelector{{{"kueue-managed", "true"}}, {}};
  auto other = request(Operation::Create, "{metadata: {name: j}, spec: {}}");
  EXPECT_TRUE(default_job(other, policy, facts).patch.empty());
  facts.namespace_labels_by_name["team"]["kueue-managed"] = "true";
  EXPECT_TRUE(suspended(patched(other, default_job(other, policy, facts))));
}

// Found by fuzz/admission_review_fuzzer (ASan, heap-use-after-free): with the request's
// namespace empty, the namespace was a view into the Job's copy, which adding the default
// priority class label then moved; the namespace selector read freed memory.
TEST(JobDefaulting, TheNamespaceFromTheObjectOutlivesTheLabelsAdded) {
  TableFacts facts;
  facts.default_priority_class = true;
  JobWebhookPolicy policy;
  policy.manage_jobs_without_queue_name = true;
  policy.managed_jobs_namespace_selector = default_managed_jobs_namespace_selector("kueuepp-system");
  for (const char* ns : {"team", "a-namespace-name-longer-than-any-inline-string"}) {
    SCOPED_TRACE(ns);
    auto r = request(Operation::Create, std::string("{metadata: {namespace: ") + ns + ", name: j}, spec: {}}", {}, "");
    json::value job = patched(r, default_job(r, policy, facts));
    EXPECT_EQ(label(job, "kueue.x-k8s.io/priority-class"), "default");
    EXPECT_TRUE(suspended(job));
  }
  // The system namespace is still told apart when it comes from the object.
  auto system = request(Operation::Create, "{metadata: {namespace: kueuepp-system, name: j}, spec: {}}", {}, "");
  EXPECT_FALSE(suspended(patched(system, default_job(system, policy, facts))));
}

TEST(JobDefaulting, OnlyCreatesAreDefaulted) {
  TableFacts facts;
  JobWebhookPolicy policy;
  auto r = request(Operation::Update, "{metadata: {labels: {kueue.x-k8s.io/queue-name: lq}}, spec: {}}",
                   "{metadata: {}, spec: {}}");
  EXPECT_TRUE(default_job(r, policy, facts).patch.empty());
}

struct ValidateCase {
  const char* name;
  Operation op;
  const char* job;
  const char* old_job;
  const char* message;  ///< "" when allowed
};

TEST(JobValidation, KueuesChecksWithKueuesMessages) {
  const ValidateCase cases[] = {
      {"a valid labelled Job", Operation::Create,
       "{metadata: {labels: {kueue.x-k8s.io/queue-name: lq}}, spec: {parallelism: 3}}", "", ""},
      {"a queue name that is not a DNS subdomain", Operation::Create,
       "{metadata: {labels: {kueue.x-k8s.io/queue-name: Bad_Name}}, spec: {}}", "",
       "metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must "
       "consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
       "character (e.g. 'example.com', regex used for validation is "
       "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"},
      {"max-exec-time not a number", Operation::Create,
       "{metadata: {labels: {kueue.x-k8s.io/max-exec-time-seconds: ten}}, spec: {}}", "",
       "metadata.labels[kueue.x-k8s.io/max-exec-time-seconds]: Invalid value: \"ten\": strconv.Atoi: parsing \"ten\": "
       "invalid syntax"},
      {"max-exec-time not positive", Operation::Create,
       "{metadata: {labels: {kueue.x-k8s.io/max-exec-time-seconds: '0'}}, spec: {}}", "",
       "metadata.labels[kueue.x-k8s.io/max-exec-time-seconds]: Invalid value: 0: should be greater than 0"},
      {"min-parallelism at the pod count", Operation::Create,
       "{metadata: {annotations: {kueue.x-k8s.io/job-min-parallelism: '3'}}, spec: {parallelism: 3}}", "",
       "metadata.annotations[kueue.x-k8s.io/job-min-parallelism]: Invalid value: 3: should be between 0 and 2"},
      {"min-parallelism bounded by completions", Operation::Create,
       "{metadata: {annotations: {kueue.x-k8s.io/job-min-parallelism: '2'}}, spec: {parallelism: 3, completions: 2}}",
       "", "metadata.annotations[kueue.x-k8s.io/job-min-parallelism]: Invalid value: 2: should be between 0 and 1"},
      {"min-parallelism not a number", Operation::Create,
       "{metadata: {annotations: {kueue.x-k8s.io/job-min-parallelism: x}}, spec: {parallelism: 3}}", "",
       "metadata.annotations[kueue.x-k8s.io/job-min-parallelism]: Invalid value: \"x\": strconv.Atoi: parsing \"x\": "
       "invalid syntax"},
      {"a valid min-parallelism", Operation::Create,
       "{metadata: {annotations: {kueue.x-k8s.io/job-min-parallelism: '2'}}, spec: {parallelism: 3}}", "", ""},
      {"completions-equal-parallelism on a NonIndexed Job", Operation::Create,
       "{metadata: {annotations: {kueue.x-k8s.io/job-completions-equal-parallelism: 'true'}}, spec: {parallelism: 2, "
       "completions: 3}}",
       "",
       "[metadata.annotations[kueue.x-k8s.io/job-completions-equal-parallelism]: Invalid value: \"true\": should not "
       "be enabled for NonIndexed jobs, spec.completions: Invalid value: 3: should be equal to parallelism when "
       "kueue.x-k8s.io/job-completions-equal-parallelism annotation is true]"},
      {"the queue name cannot change while the Job runs", Operation::Update,
       "{metadata: {labels: {kueue.x-k8s.io/queue-name: b}}, spec: {suspend: false}}",
       "{metadata: {labels: {kueue.x-k8s.io/queue-name: a}}, spec: {suspend: false}}",
       "metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"b\": field is immutable"},
      {"the queue name may change while the Job is suspended", Operation::Update,
       "{metadata: {labels: {kueue.x-k8s.io/queue-name: b}}, spec: {suspend: true}}",
       "{metadata: {labels: {kueue.x-k8s.io/queue-name: a}}, spec: {suspend: true}}", ""},
      {"a queue name cannot be added to a running Job", Operation::Update,
       "{metadata: {labels: {kueue.x-k8s.io/queue-name: b}}, spec: {suspend: false}}",
       "{metadata: {}, spec: {suspend: false}}",
       "metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"b\": field is immutable"},
      {"max-exec-time is frozen unless the Job stays suspended", Operation::Update,
       "{metadata: {labels: {kueue.x-k8s.io/max-exec-time-seconds: '20'}}, spec: {suspend: true}}",
       "{metadata: {labels: {kueue.x-k8s.io/max-exec-time-seconds: '10'}}, spec: {suspend: false}}",
       "metadata.labels[kueue.x-k8s.io/max-exec-time-seconds]: Invalid value: \"20\": field is immutable"},
      {"a priority class cannot be added to a running Job", Operation::Update,
       "{metadata: {labels: {kueue.x-k8s.io/priority-class: high}}, spec: {suspend: false}}",
       "{metadata: {}, spec: {suspend: false}}",
       "metadata.labels[kueue.x-k8s.io/priority-class]: Invalid value: \"high\": WorkloadPriorityClass cannot be "
       "added to a non-suspended workload"},
      {"a priority class cannot be removed", Operation::Update, "{metadata: {}, spec: {suspend: true}}",
       "{metadata: {labels: {kueue.x-k8s.io/priority-class: high}}, spec: {suspend: true}}",
       "metadata.labels[kueue.x-k8s.io/priority-class]: Invalid value: \"\": WorkloadPriorityClass cannot be removed "
       "from a workload"},
      {"parallelism is frozen while a partially admitted Job runs", Operation::Update,
       "{metadata: {annotations: {kueue.x-k8s.io/job-min-parallelism: '1'}}, spec: {suspend: false, parallelism: 2}}",
       "{metadata: {annotations: {kueue.x-k8s.io/job-min-parallelism: '1'}}, spec: {suspend: false, parallelism: 3}}",
       "spec.parallelism: Forbidden: cannot change when partial admission is enabled and the job is not suspended"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    TableFacts facts;
    auto r = request(c.op, c.job, c.old_job);
    auto response = review_job(r, facts);
    EXPECT_EQ(response.uid, "uid-1");
    if (std::string_view(c.message).empty()) {
      EXPECT_TRUE(response.allowed) << (response.status ? response.status->message : "");
    } else {
      ASSERT_FALSE(response.allowed);
      ASSERT_TRUE(response.status);
      EXPECT_EQ(response.status->code, 403);
      EXPECT_EQ(response.status->message, c.message);
    }
  }
}

TEST(JobValidation, TheQueueNameStaysInANamespaceWithADefaultQueue) {
  TableFacts facts;
  facts.namespaces_with_default_queue.insert("team");
  auto r = request(Operation::Update, "{metadata: {}, spec: {suspend: true}}",
                   "{metadata: {labels: {kueue.x-k8s.io/queue-name: default}}, spec: {suspend: true}}");
  auto response = review_job(r, facts);
  ASSERT_FALSE(response.allowed);
  EXPECT_EQ(response.status->message,
            "metadata.labels[kueue.x-k8s.io/queue-name]: Invalid value: \"\": queue-name must not be empty in namespace "
            "with default queue");
  facts.namespaces_with_default_queue.clear();
  EXPECT_TRUE(review_job(r, facts).allowed);
}

}  // namespace
}  // namespace kueuepp::kube::webhook
