#include "kube/jobs/jobset.hpp"

#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "kube/apiserver/patch/patch.hpp"
#include "kube/jobs/batch_job.hpp"

namespace kueuepp::kube::jobs {
namespace {

using testing::object;
using testing::yaml;

/// Kueue's examples/jobs/sample-jobset.yaml as the API server stores it (a name and uid
/// given, replicas defaulted to 1 on the driver by the CRD).
constexpr std::string_view kSampleJobSet = R"(
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: sleep-job-abcde
  namespace: ns
  uid: js-uid-1
  labels:
    kueue.x-k8s.io/queue-name: user-queue
spec:
  suspend: true
  network:
    enableDNSHostnames: false
    subdomain: some-subdomain
  replicatedJobs:
    - name: workers
      replicas: 1
      template:
        spec:
          parallelism: 1
          completions: 1
          backoffLimit: 0
          template:
            spec:
              containers:
                - name: sleep
                  image: busybox
                  resources:
                    requests:
                      cpu: 1
                      memory: "200Mi"
                  command: [sleep]
                  args: [100s]
    - name: driver
      replicas: 1
      template:
        spec:
          parallelism: 1
          completions: 1
          backoffLimit: 0
          template:
            spec:
              containers:
                - name: sleep
                  image: busybox
                  resources:
                    requests:
                      cpu: 2
                      memory: "200Mi"
                  command: [sleep]
                  args: [100s]
)";

constexpr std::string_view kOnDemand = R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: on-demand}
spec:
  nodeLabels: {instance-type: on-demand}
)";

constexpr std::string_view kSpot = R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: spot}
spec:
  nodeLabels: {instance-type: spot}
  tolerations:
  - {key: spot, operator: Exists, effect: NoSchedule}
)";

/// The admission: workers on spot, the driver on on-demand.
constexpr std::string_view kAdmission = R"(
admission:
  clusterQueue: cluster-queue
  podSetAssignments:
  - {name: workers, flavors: {cpu: spot, memory: spot}, resourceUsage: {cpu: "1", memory: 200Mi}, count: 1}
  - {name: driver, flavors: {cpu: on-demand, memory: on-demand}, resourceUsage: {cpu: "2", memory: 200Mi}, count: 1}
conditions:
- {type: QuotaReserved, status: "True", reason: QuotaReserved, message: reserved, lastTransitionTime: "2026-01-01T00:00:00Z"}
- {type: Admitted, status: "True", reason: Admitted, message: admitted, lastTransitionTime: "2026-01-01T00:00:00Z"}
)";

class JobSetTest : public ::testing::Test {
 protected:
  const JobIntegration& js = jobset_integration();
  client::Object jobset = object(kSampleJobSet);
  client::Object on_demand = object(kOnDemand);
  client::Object spot = object(kSpot);
  FlavorLookup lookup = [this](std::string_view name) -> const client::Object* {
    if (name == "on-demand") return &on_demand;
    if (name == "spot") return &spot;
    return nullptr;
  };

  client::Object admitted_workload() {
    auto wl = js.build_workload(jobset, BuildOptions{});
    EXPECT_TRUE(wl.has_value()) << wl.error().message;
    client::Object out = *wl;
    out.ensure({"status"}) = yaml(kAdmission);
    return out;
  }

  const json::value& pod_template(const client::Object& o, std::size_t i) {
    return *json::find_path(o.find({"spec", "replicatedJobs"})->get_array()[i], {"template", "spec", "template"});
  }
};

TEST_F(JobSetTest, IsFoundByKueuesFrameworkName) {
  EXPECT_EQ(find_integration("jobset.x-k8s.io/jobset"), &js);
  EXPECT_EQ(js.resource().api_version(), "jobset.x-k8s.io/v1alpha2");
  EXPECT_EQ(js.resource().kind, "JobSet");
}

TEST_F(JobSetTest, OnePodSetPerReplicatedJobNamedAfterIt) {
  auto sets = jobset_pod_sets(jobset);
  ASSERT_TRUE(sets.has_value()) << sets.error().message;
  ASSERT_EQ(sets->size(), 2u);
  EXPECT_EQ(json::get_string((*sets)[0], "name"), "workers");
  EXPECT_EQ(json::get_string((*sets)[1], "name"), "driver");
  EXPECT_EQ((*sets)[0].at("count"), 1);
  EXPECT_EQ((*sets)[1].at("count"), 1);
  EXPECT_EQ(*json::find_path((*sets)[1], {"template", "spec", "containers"}),
            *json::find_path(pod_template(jobset, 1), {"spec", "containers"}));
  // TAS: the completion index within a child Job, the child Job's index among replicas.
  EXPECT_EQ(*json::find((*sets)[0], "topologyRequest"),
            yaml("{podIndexLabel: batch.kubernetes.io/job-completion-index, "
                 "subGroupIndexLabel: jobset.sigs.k8s.io/job-index, subGroupCount: 1}"));
  EXPECT_EQ(json::find((*sets)[0], "minCount"), nullptr);  // no partial admission for JobSets
}

TEST_F(JobSetTest, CountIsReplicasTimesPodsPerReplica) {
  json::value& rjob = jobset.ensure({"spec", "replicatedJobs"}).as_array()[0];
  rjob.as_object()["replicas"] = 3;
  json::value& spec = rjob.as_object()["template"].as_object()["spec"];
  spec.as_object()["parallelism"] = 4;
  spec.as_object()["completions"] = 2;  // fewer completions than parallelism cap the pods
  auto sets = jobset_pod_sets(jobset);
  ASSERT_TRUE(sets.has_value());
  EXPECT_EQ((*sets)[0].at("count"), 6);
  spec.as_object().erase("completions");
  EXPECT_EQ((*jobset_pod_sets(jobset))[0].at("count"), 12);
  rjob.as_object().erase("replicas");  // the CRD's default
  spec.as_object().erase("parallelism");
  EXPECT_EQ((*jobset_pod_sets(jobset))[0].at("count"), 1);
}

TEST_F(JobSetTest, WorkloadHasKueuesNameOwnerQueueAndPodSets) {
  auto wl = js.build_workload(jobset, BuildOptions{});
  ASSERT_TRUE(wl.has_value()) << wl.error().message;
  // GetWorkloadNameForOwnerWithGVK: sha1("JobSet\njobset.x-k8s.io\nsleep-job-abcde\njs-uid-1")[:5]
  EXPECT_EQ(wl->name(), "jobset-sleep-job-abcde-68bbe");
  EXPECT_EQ(wl->namespace_name(), "ns");
  auto owner = wl->controller_reference();
  ASSERT_TRUE(owner.has_value());
  EXPECT_EQ(owner->api_version, "jobset.x-k8s.io/v1alpha2");
  EXPECT_EQ(owner->kind, "JobSet");
  EXPECT_EQ(owner->uid, "js-uid-1");
  EXPECT_EQ(wl->string_at({"spec", "queueName"}), "user-queue");
  EXPECT_EQ(wl->find({"spec", "podSets"})->get_array().size(), 2u);
  EXPECT_EQ(wl->label("kueue.x-k8s.io/job-uid"), "js-uid-1");
  EXPECT_TRUE(js.equivalent(jobset, *wl, lookup));
}

TEST_F(JobSetTest, PriorityFromTheWorkloadPriorityClassLabel) {
  jobset.set_label("kueue.x-k8s.io/priority-class", "high");
  BuildOptions o;
  o.workload_priority_class = [](std::string_view name) -> std::optional<std::int32_t> {
    return name == "high" ? std::optional<std::int32_t>(1000) : std::nullopt;
  };
  auto wl = js.build_workload(jobset, o);
  ASSERT_TRUE(wl.has_value()) << wl.error().message;
  EXPECT_EQ(wl->int_at({"spec", "priority"}), 1000);
  EXPECT_EQ(wl->string_at({"spec", "priorityClassRef", "name"}), "high");
  jobset.set_label("kueue.x-k8s.io/priority-class", "missing");
  auto refused = js.build_workload(jobset, o);
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.error().message.find("JobSet ns/sleep-job-abcde: WorkloadPriorityClass \"missing\""),
            std::string::npos)
      << refused.error().message;
}

TEST_F(JobSetTest, WithoutAQueueItIsNotQueued) {
  jobset.remove_label("kueue.x-k8s.io/queue-name");
  auto wl = js.build_workload(jobset, BuildOptions{});
  ASSERT_FALSE(wl.has_value());
  EXPECT_NE(wl.error().message.find("has no kueue.x-k8s.io/queue-name label"), std::string::npos);
}

TEST_F(JobSetTest, StartInjectsEachPodSetsFlavorIntoItsReplicatedJob) {
  client::Object wl = admitted_workload();
  auto r = js.start(jobset, wl, lookup);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_TRUE(r->changed);
  EXPECT_EQ(r->job.bool_at({"spec", "suspend"}), false);
  const json::value& workers = pod_template(r->job, 0);
  const json::value& driver = pod_template(r->job, 1);
  EXPECT_EQ(*json::find_path(workers, {"spec", "nodeSelector"}), yaml("{instance-type: spot}"));
  EXPECT_EQ(*json::find_path(workers, {"spec", "tolerations"}), yaml("[{key: spot, operator: Exists, effect: NoSchedule}]"));
  EXPECT_EQ(*json::find_path(driver, {"spec", "nodeSelector"}), yaml("{instance-type: on-demand}"));
  EXPECT_EQ(json::find_path(driver, {"spec", "tolerations"}), nullptr);
  EXPECT_EQ(json::get_string(*json::find_path(driver, {"metadata", "labels"}), "kueue.x-k8s.io/podset"), "driver");
  auto applied = patch::merge_patch(jobset.json(), r->patch);
  ASSERT_TRUE(applied.has_value());
  EXPECT_EQ(*applied, r->job.json());
  // Running as admitted, it still matches its Workload and starting again changes nothing.
  EXPECT_TRUE(js.equivalent(r->job, wl, lookup));
  EXPECT_FALSE(js.start(r->job, wl, lookup)->changed);
}

TEST_F(JobSetTest, StopSuspendsAndRestoresEveryTemplateInOneWrite) {
  client::Object wl = admitted_workload();
  client::Object running = js.start(jobset, wl, lookup)->job;
  auto step = js.stop(running, &wl);
  ASSERT_TRUE(step.has_value());
  EXPECT_TRUE(step->last);
  EXPECT_FALSE(step->status);
  auto stopped = patch::merge_patch(running.json(), step->patch);
  ASSERT_TRUE(stopped.has_value());
  // Round trip: the JobSet is as it was before the start (a merge patch that removes
  // every label leaves the template an empty metadata object, as on the server).
  for (json::value& rjob : stopped->as_object()["spec"].as_object()["replicatedJobs"].as_array()) {
    json::object& tmpl = rjob.as_object()["template"].as_object()["spec"].as_object()["template"].as_object();
    EXPECT_EQ(tmpl["metadata"], json::value(json::object{}));
    tmpl.erase("metadata");
  }
  EXPECT_EQ(*stopped, jobset.json());
  EXPECT_FALSE(js.stop(client::Object(*stopped), &wl).has_value());
  // Without a Workload: only suspended.
  auto only = js.stop(running, nullptr);
  ASSERT_TRUE(only.has_value());
  auto suspended = patch::merge_patch(running.json(), only->patch);
  EXPECT_EQ(json::find_path(*suspended, {"spec", "suspend"})->as_bool(), true);
  EXPECT_NE(json::find_path(pod_template(client::Object(*suspended), 0), {"spec", "nodeSelector"}), nullptr);
}

TEST_F(JobSetTest, StartRefusesAnAdmissionOfOtherPodSets) {
  client::Object wl = admitted_workload();
  wl.ensure({"status", "admission", "podSetAssignments"}).as_array().pop_back();
  auto r = js.start(jobset, wl, lookup);
  ASSERT_FALSE(r.has_value());
  EXPECT_TRUE(r.error().permanent);
  EXPECT_NE(r.error().message.find("expecting 2 podset, got 1"), std::string::npos) << r.error().message;
}

TEST_F(JobSetTest, FinishedFromCompletedOrFailedCondition) {
  EXPECT_FALSE(js.finished(jobset).has_value());
  jobset.ensure({"status", "conditions"}) =
      yaml("[{type: Completed, status: 'False'}, {type: Failed, status: 'True', message: 'job failed'}]");
  auto f = js.finished(jobset);
  ASSERT_TRUE(f.has_value());
  EXPECT_FALSE(f->succeeded);
  EXPECT_EQ(f->message, "job failed");
  jobset.ensure({"status", "conditions"}) = yaml("[{type: Completed, status: 'True', message: 'jobset completed'}]");
  ASSERT_TRUE(js.finished(jobset).has_value());
  EXPECT_TRUE(js.finished(jobset)->succeeded);
}

TEST_F(JobSetTest, ActiveWhileAChildJobHasActivePods) {
  EXPECT_TRUE(js.suspended(jobset));
  EXPECT_FALSE(js.active(jobset));
  jobset.ensure({"status", "replicatedJobsStatus"}) =
      yaml("[{name: workers, active: 0, ready: 0, succeeded: 1}, {name: driver, active: 1, ready: 1}]");
  EXPECT_TRUE(js.active(jobset));
  EXPECT_TRUE(js.pods_ready(jobset));  // one ready and one succeeded of two replicas
  jobset.ensure({"status", "replicatedJobsStatus"}) = yaml("[{name: driver, active: 1, ready: 0}]");
  EXPECT_FALSE(js.pods_ready(jobset));
}

TEST_F(JobSetTest, ValidationNamesTheJobSetAndTheLabel) {
  jobset.set_label("kueue.x-k8s.io/max-exec-time-seconds", "0");
  auto r = validate_jobset(jobset);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("JobSet ns/sleep-job-abcde: label kueue.x-k8s.io/max-exec-time-seconds"),
            std::string::npos)
      << r.error().message;
}

}  // namespace
}  // namespace kueuepp::kube::jobs
