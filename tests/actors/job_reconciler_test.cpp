// The Job reconcile loop, driven the way the job actor drives it: each step's writes are
// applied to in-memory objects (merge patches as the API server applies them) and the
// reconciler is called again until it asks for nothing. Checks the write sequences of
// Kueue's contract, and that every sequence converges.

#include "actors/job_reconciler.hpp"

#include <gtest/gtest.h>

#include <map>
#include <optional>

#include "kube/json/yaml.hpp"
#include "kube/apiserver/patch/patch.hpp"

namespace kueuepp::actors {
namespace {

using kube::client::Object;
using messages::ObjectKind;

Object yaml_object(std::string_view text) {
  auto v = json::parse_yaml(text);
  EXPECT_TRUE(v.has_value()) << (v ? "" : v.error().message);
  return Object(v ? *v : json::value(nullptr));
}

core::Time at(std::int64_t seconds) { return core::time_from_seconds(1767225600 + seconds); }

constexpr std::string_view kJob = R"(
apiVersion: batch/v1
kind: Job
metadata:
  name: sample-job
  namespace: ns
  uid: uid-1
  resourceVersion: "1"
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  parallelism: 2
  completions: 2
  suspend: false
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        resources:
          requests: {cpu: "1"}
)";

constexpr std::string_view kFlavor = R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: on-demand}
spec:
  nodeLabels: {instance-type: on-demand}
  tolerations:
  - {key: spot, operator: Exists, effect: NoSchedule}
)";

/// A tiny API: the Job and its Workload, with writes applied as a server would.
struct FakeCluster {
  Object job = yaml_object(kJob);
  std::optional<Object> workload;
  Object flavor = yaml_object(kFlavor);
  std::map<std::string, std::int32_t> wpcs;
  JobContext ctx;
  std::vector<std::string> log;  ///< what each write did
  std::vector<JobEvent> events;
  bool job_deleted = false;
  int rv = 10;

  FakeCluster() {
    ctx.now = at(0);
    ctx.flavor = [this](std::string_view name) -> const Object* {
      return name == flavor.name() ? &flavor : nullptr;
    };
    ctx.workload_priority_class = [this](std::string_view name) -> std::optional<std::int32_t> {
      auto it = wpcs.find(std::string(name));
      if (it == wpcs.end()) return std::nullopt;
      return it->second;
    };
    ctx.priority_class = [](std::string_view) -> std::optional<std::int32_t> { return std::nullopt; };
    ctx.local_queue_exists = [](const std::string&, const std::string&) { return false; };
  }

  void bump(Object& o) { o.json().as_object()["metadata"].as_object()["resourceVersion"] = std::to_string(++rv); }

  void patch(Object& o, const json::value& body, bool status) {
    if (status) {
      // The status subresource takes only status.
      json::value only = json::object{{"status", body.as_object().at("status")}};
      ASSERT_TRUE(kube::patch::merge_patch_into(o.json(), only).has_value());
    } else {
      json::value copy = body;
      if (auto* meta = copy.as_object().if_contains("metadata"); meta && meta->is_object()) {
        if (auto* want = meta->as_object().if_contains("resourceVersion")) {
          ASSERT_EQ(want->as_string(), o.resource_version()) << "a conditional write on a stale version";
          meta->as_object().erase("resourceVersion");
        }
      }
      ASSERT_TRUE(kube::patch::merge_patch_into(o.json(), copy).has_value());
    }
    bump(o);
  }

  void apply(const JobWrite& w) {
    log.push_back(w.what);
    Object* target = w.kind == ObjectKind::Job ? &job : (workload ? &*workload : nullptr);
    switch (w.verb) {
      case JobWrite::Verb::Create:
        ASSERT_EQ(w.kind, ObjectKind::Workload);
        ASSERT_FALSE(workload.has_value()) << "a second Workload for one Job";
        workload = Object(w.body);
        workload->json().as_object()["metadata"].as_object()["uid"] = "wl-uid";
        bump(*workload);
        break;
      case JobWrite::Verb::Delete:
        if (w.kind == ObjectKind::Job) {
          job_deleted = true;
          break;
        }
        ASSERT_TRUE(workload.has_value());
        workload.reset();
        break;
      case JobWrite::Verb::MergePatch:
      case JobWrite::Verb::MergePatchStatus:
        ASSERT_NE(target, nullptr);
        if (!w.precondition_rv.empty()) {
          ASSERT_EQ(w.precondition_rv, target->resource_version()) << w.what << ": conditional on a stale version";
        }
        patch(*target, w.body, w.verb == JobWrite::Verb::MergePatchStatus);
        // A finalizer-free Workload that is being deleted is gone.
        if (workload && workload->being_deleted() && workload->finalizers().empty()) workload.reset();
        break;
    }
  }

  /// Steps until the reconciler asks for nothing; fails if it does not converge.
  int settle(int limit = 10) {
    for (int i = 0; i < limit; ++i) {
      auto step = reconcile_job(job, workload ? &*workload : nullptr, ctx);
      events.insert(events.end(), step.events.begin(), step.events.end());
      if (step.writes.empty()) return i;
      for (const auto& w : step.writes) apply(w);
    }
    ADD_FAILURE() << "no convergence after " << limit << " steps";
    return limit;
  }

  void admit() {
    ASSERT_TRUE(workload.has_value());
    auto status = json::parse_yaml(R"(
admission:
  clusterQueue: cq
  podSetAssignments:
  - name: main
    flavors: {cpu: on-demand}
    resourceUsage: {cpu: "2"}
    count: 2
conditions:
- {type: QuotaReserved, status: "True", reason: QuotaReserved, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}
- {type: Admitted, status: "True", reason: Admitted, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}
)");
    ASSERT_TRUE(status.has_value());
    workload->json().as_object()["status"] = *status;
    bump(*workload);
  }

  void evict() {
    auto& conds = workload->json().as_object()["status"].as_object()["conditions"].as_array();
    conds.push_back(json::object{{"type", "Evicted"},
                                 {"status", "True"},
                                 {"reason", "Preempted"},
                                 {"message", "Preempted to accommodate a workload (UID: x) due to prioritization"},
                                 {"lastTransitionTime", "2026-01-01T00:01:00Z"}});
    bump(*workload);
  }

  bool suspended() const { return job.bool_at({"spec", "suspend"}).value_or(false); }
  bool has_event(std::string_view reason) const {
    for (const auto& e : events) {
      if (e.reason == reason) return true;
    }
    return false;
  }
};

TEST(JobReconciler, UnsuspendedJobIsSuspendedThenQueued) {
  FakeCluster c;
  c.settle();
  EXPECT_TRUE(c.suspended());
  ASSERT_TRUE(c.workload.has_value());
  EXPECT_EQ(c.workload->string_at({"spec", "queueName"}), "user-queue");
  EXPECT_EQ(c.workload->controller_reference()->uid, "uid-1");
  EXPECT_EQ(c.log.front().rfind("suspended", 0), 0u) << "suspend comes before the Workload";
  EXPECT_TRUE(c.has_event("CreatedWorkload"));
}

TEST(JobReconciler, AdmissionStartsTheJobWithTheFlavorInjected) {
  FakeCluster c;
  c.settle();
  c.admit();
  c.settle();
  EXPECT_FALSE(c.suspended());
  EXPECT_EQ(c.job.string_at({"spec", "template", "spec", "nodeSelector", "instance-type"}), "on-demand");
  EXPECT_TRUE(c.has_event("Started"));
}

TEST(JobReconciler, EvictionStopsRestoresThenReleasesQuota) {
  FakeCluster c;
  c.settle();
  c.admit();
  c.settle();
  c.job.json().as_object()["status"] = json::object{{"active", 2}, {"startTime", "2026-01-01T00:00:05Z"}};
  c.evict();
  c.log.clear();
  c.settle();
  // Suspended, startTime cleared, template restored; quota still held while pods run.
  EXPECT_TRUE(c.suspended());
  EXPECT_TRUE(c.job.find({"spec", "template", "spec", "nodeSelector", "instance-type"}) == nullptr ||
              c.job.find({"spec", "template", "spec", "nodeSelector", "instance-type"})->is_null());
  EXPECT_FALSE(c.job.annotation("kueue.x-k8s.io/stopping").has_value());
  ASSERT_GE(c.log.size(), 3u);
  EXPECT_EQ(c.log[0].rfind("suspended", 0), 0u);
  EXPECT_EQ(c.log[1], "cleared startTime");
  EXPECT_EQ(c.log[2], "restored the pod template");
  EXPECT_NE(c.workload->find({"status", "admission"}), nullptr);
  EXPECT_FALSE(c.workload->find({"status", "admission"})->is_null());
  // The pods are gone: the quota is released and the Workload requeued.
  c.job.json().as_object()["status"] = json::object{{"active", 0}};
  c.settle();
  const auto* admission = c.workload->find({"status", "admission"});
  EXPECT_TRUE(admission == nullptr || admission->is_null());
  EXPECT_FALSE(c.workload->condition_true("QuotaReserved"));
  EXPECT_TRUE(c.workload->condition_true("Requeued"));
}

TEST(JobReconciler, AJobRunningAfterItsEvictionCompletedIsStopped) {
  // Started from a version that still showed the admission, after the eviction had
  // completed (the quota is released): it must not go on running.
  FakeCluster c;
  c.settle();
  c.admit();
  c.settle();
  ASSERT_FALSE(c.suspended());
  // Its template as written (a flavor with nothing to inject), so that it still matches
  // its Workload once the admission is gone.
  auto& pod = c.job.json().as_object()["spec"].as_object()["template"].as_object()["spec"].as_object();
  pod.erase("nodeSelector");
  pod.erase("tolerations");
  c.evict();
  auto& status = c.workload->json().as_object()["status"].as_object();
  status["admission"] = nullptr;
  for (auto& cond : status["conditions"].as_array()) {
    auto& o = cond.as_object();
    if (o["type"] == "QuotaReserved" || o["type"] == "Admitted") o["status"] = "False";
  }
  c.bump(*c.workload);
  c.log.clear();
  c.settle();
  EXPECT_TRUE(c.suspended());
  ASSERT_FALSE(c.log.empty());
  EXPECT_EQ(c.log[0].rfind("suspended", 0), 0u) << c.log[0];
}

TEST(JobReconciler, WorkloadStatusWritesAreConditionalOnTheVersionTheyWereComputedFrom) {
  // Each replaces the conditions list: computed from a version since overtaken, it must
  // be refused rather than bring back conditions that no longer hold.
  FakeCluster c;
  c.ctx.options.wait_for_pods_ready.enabled = true;
  c.settle();
  c.admit();
  c.settle();
  c.job.json().as_object()["status"] = json::object{{"ready", 2}, {"active", 2}};
  auto step = reconcile_job(c.job, &*c.workload, c.ctx);
  ASSERT_EQ(step.writes.size(), 1u);
  EXPECT_EQ(step.writes[0].what, "PodsReady updated");
  EXPECT_EQ(step.writes[0].precondition_rv, c.workload->resource_version());
  c.job.json().as_object()["status"] = json::object{{"succeeded", 2},
                                                    {"conditions", json::array{json::object{{"type", "Complete"},
                                                                                            {"status", "True"}}}}};
  step = reconcile_job(c.job, &*c.workload, c.ctx);
  ASSERT_EQ(step.writes.size(), 1u);
  EXPECT_EQ(step.writes[0].what, "finished workload");
  EXPECT_EQ(step.writes[0].precondition_rv, c.workload->resource_version());
}

TEST(JobReconciler, FinishedJobFinishesWorkloadAndDropsFinalizer) {
  FakeCluster c;
  c.settle();
  c.admit();
  c.settle();
  ASSERT_FALSE(c.workload->finalizers().empty());
  c.job.json().as_object()["status"] = json::parse_yaml(R"(
succeeded: 2
conditions:
- {type: Complete, status: "True", message: done}
)").value();
  c.settle();
  EXPECT_TRUE(c.workload->condition_true("Finished"));
  EXPECT_EQ(c.workload->condition("Finished")->reason, "Succeeded");
  EXPECT_TRUE(c.workload->finalizers().empty());
  EXPECT_TRUE(c.has_event("FinishedWorkload"));
}

TEST(JobReconciler, AFinishedWorkloadIsDeletedWhenItsRetentionEnds) {
  FakeCluster c;
  c.ctx.options.finished_workload_retention = std::chrono::seconds(60);
  c.settle();
  c.admit();
  c.settle();
  c.job.json().as_object()["status"] = json::parse_yaml(R"(
succeeded: 2
conditions:
- {type: Complete, status: "True", message: done}
)").value();
  c.settle();
  ASSERT_TRUE(c.workload.has_value());
  EXPECT_EQ(reconcile_job(c.job, &*c.workload, c.ctx).recheck_at, at(60));
  c.ctx.now = at(60);
  c.settle();
  EXPECT_FALSE(c.workload.has_value());
  EXPECT_FALSE(c.job_deleted);
  // Without a policy the Workload stays.
  FakeCluster kept;
  kept.settle();
  kept.admit();
  kept.job.json().as_object()["status"] = c.job.json().as_object()["status"];
  kept.settle();
  kept.ctx.now = at(1000000);
  kept.settle();
  EXPECT_TRUE(kept.workload.has_value());
}

TEST(JobReconciler, PastItsMaximumExecutionTimeAJobIsStoppedItsQuotaReleasedThenItIsDeleted) {
  FakeCluster c;
  c.ctx.options.deactivated_job_retention = std::chrono::seconds(10);
  c.job.json().as_object()["metadata"].as_object()["labels"].as_object()["kueue.x-k8s.io/max-exec-time-seconds"] = "30";
  c.settle();
  ASSERT_EQ(c.workload->int_at({"spec", "maximumExecutionTimeSeconds"}), 30);
  c.admit();
  c.settle();
  ASSERT_FALSE(c.suspended());
  EXPECT_EQ(reconcile_job(c.job, &*c.workload, c.ctx).recheck_at, at(30));

  c.ctx.now = at(30);
  c.settle();
  EXPECT_TRUE(c.suspended());
  EXPECT_EQ(c.workload->bool_at({"spec", "active"}), false);
  EXPECT_EQ(c.workload->condition("Evicted").value_or(kube::client::Condition{}).reason,
            "DeactivatedDueToMaximumExecutionTimeExceeded");
  EXPECT_FALSE(c.workload->condition_true("QuotaReserved"));
  EXPECT_TRUE(c.has_event("MaximumExecutionTimeExceeded"));
  EXPECT_FALSE(c.job_deleted);

  auto waiting = reconcile_job(c.job, &*c.workload, c.ctx);
  EXPECT_TRUE(waiting.writes.empty());
  EXPECT_EQ(waiting.recheck_at, at(40));
  c.ctx.now = at(40);
  auto step = reconcile_job(c.job, &*c.workload, c.ctx);
  ASSERT_EQ(step.writes.size(), 1u);
  EXPECT_EQ(step.writes[0].kind, ObjectKind::Job);
  EXPECT_EQ(step.writes[0].verb, JobWrite::Verb::Delete);
  ASSERT_EQ(step.events.size(), 1u);
  EXPECT_EQ(step.events[0].reason, "Deleted");
  EXPECT_EQ(step.events[0].message, "Deleted job: deactivation retention period expired");
}

TEST(JobReconciler, MissingWorkloadPriorityClassCreatesNothingAndSaysWhy) {
  FakeCluster c;
  c.job.set_label("kueue.x-k8s.io/priority-class", "high");
  c.settle();
  EXPECT_FALSE(c.workload.has_value());
  EXPECT_TRUE(c.has_event("WorkloadPriorityClassNotFound"));
  c.wpcs["high"] = 1000;
  c.settle();
  ASSERT_TRUE(c.workload.has_value());
  EXPECT_EQ(c.workload->int_at({"spec", "priority"}), 1000);
}

TEST(JobReconciler, PriorityFollowsTheClassValue) {
  FakeCluster c;
  c.wpcs["high"] = 1000;
  c.job.set_label("kueue.x-k8s.io/priority-class", "high");
  c.settle();
  c.wpcs["high"] = 2000;
  c.settle();
  EXPECT_EQ(c.workload->int_at({"spec", "priority"}), 2000);
  auto write = sync_workload_priority(*c.workload, 3000);
  ASSERT_TRUE(write.has_value());
  EXPECT_EQ(write->precondition_rv, c.workload->resource_version());
  EXPECT_FALSE(sync_workload_priority(*c.workload, 2000).has_value());
}

TEST(JobReconciler, ChangedSuspendedJobUpdatesItsWorkloadInPlace) {
  FakeCluster c;
  c.settle();
  std::string uid(c.workload->uid());
  c.job.json().as_object()["spec"].as_object()["parallelism"] = 1;
  c.job.json().as_object()["spec"].as_object()["completions"] = 1;
  c.settle();
  ASSERT_TRUE(c.workload.has_value());
  EXPECT_EQ(c.workload->uid(), uid) << "updated, not recreated";
  const auto& sets = c.workload->find({"spec", "podSets"})->as_array();
  EXPECT_EQ(json::find(sets[0], "count")->as_int64(), 1);
  EXPECT_TRUE(c.has_event("UpdatedWorkload"));
}

TEST(JobReconciler, ChangedRunningJobGetsANewWorkload) {
  FakeCluster c;
  c.settle();
  c.admit();
  c.settle();
  std::string old_name(c.workload->name());
  c.job.json().as_object()["spec"].as_object()["parallelism"] = 1;
  c.settle();
  EXPECT_TRUE(c.has_event("DeletedWorkload"));
  ASSERT_TRUE(c.workload.has_value()) << "a new Workload was created for the changed Job";
  EXPECT_FALSE(c.workload->condition_true("QuotaReserved"));
  EXPECT_TRUE(c.suspended()) << "the Job waits for the new Workload's admission";
}

TEST(JobReconciler, DeletedWorkloadStopsTheJobBeforeItsFinalizerGoes) {
  FakeCluster c;
  c.settle();
  c.admit();
  c.settle();
  ASSERT_FALSE(c.suspended());
  c.workload->json().as_object()["metadata"].as_object()["deletionTimestamp"] = "2026-01-01T00:02:00Z";
  c.log.clear();
  c.settle();
  EXPECT_TRUE(c.suspended());
  ASSERT_FALSE(c.log.empty());
  EXPECT_EQ(c.log[0].rfind("suspended", 0), 0u);
  EXPECT_EQ(c.log.back(), "created workload") << "after the finalizer went, the Job is queued again";
}

TEST(JobReconciler, UnmanagedJobsAreLeftAlone) {
  FakeCluster c;
  c.job.json().as_object()["metadata"].as_object().erase("labels");
  EXPECT_EQ(c.settle(), 0);
  EXPECT_FALSE(c.suspended());
  c.ctx.options.manage_jobs_without_queue_name = true;
  c.ctx.local_queue_exists = [](const std::string& ns, const std::string& name) {
    return ns == "ns" && name == "default";
  };
  c.settle();
  ASSERT_TRUE(c.workload.has_value());
  EXPECT_EQ(c.workload->string_at({"spec", "queueName"}), "default");
}

TEST(JobReconciler, WithoutAQueueAManagedJobIsHeldSuspendedUntilLabelled) {
  FakeCluster c;
  c.job.json().as_object()["metadata"].as_object().erase("labels");
  c.ctx.options.manage_jobs_without_queue_name = true;  // and no LocalQueue named default
  c.settle();
  EXPECT_TRUE(c.suspended()) << "Kueue holds an unlabelled Job of a managed namespace";
  ASSERT_TRUE(c.workload.has_value());
  EXPECT_EQ(c.workload->find({"spec", "queueName"}), nullptr) << "the CRD refuses an empty queue name";
  c.job.set_label("kueue.x-k8s.io/queue-name", "user-queue");
  c.bump(c.job);
  c.settle();
  EXPECT_EQ(c.workload->string_at({"spec", "queueName"}), "user-queue");
  EXPECT_TRUE(c.suspended()) << "not admitted yet";
}

TEST(JobReconciler, OnlyJobsInTheSelectedNamespacesAreManagedLabelledOrNot) {
  FakeCluster c;
  core::LabelSelector selector;
  selector.match_expressions.push_back(
      {"kubernetes.io/metadata.name", core::LabelSelectorRequirement::Op::NotIn, {"kube-system", "kueue-system"}});
  c.ctx.options.managed_namespaces = selector;
  std::map<std::string, core::Labels> namespaces;
  c.ctx.namespace_labels = [&](const std::string& ns) -> const core::Labels* {
    auto it = namespaces.find(ns);
    return it == namespaces.end() ? nullptr : &it->second;
  };
  // The namespace not seen yet: nothing is done.
  EXPECT_EQ(c.settle(), 0);
  EXPECT_FALSE(c.suspended());
  // Seen, and not selected (the job's namespace is "ns"; pretend it is kube-system's twin).
  namespaces["ns"] = core::Labels{{"kubernetes.io/metadata.name", "kube-system"}};
  EXPECT_EQ(c.settle(), 0) << "a labelled Job in an unselected namespace is left alone";
  EXPECT_FALSE(c.suspended());
  namespaces["ns"] = core::Labels{{"kubernetes.io/metadata.name", "ns"}};
  c.settle();
  EXPECT_TRUE(c.suspended());
  EXPECT_TRUE(c.workload.has_value());
}

TEST(JobReconciler, PodsReadyFollowsTheJobWhenEnabled) {
  FakeCluster c;
  c.ctx.options.wait_for_pods_ready.enabled = true;
  c.settle();
  c.admit();
  c.settle();
  ASSERT_NE(c.workload->condition("PodsReady"), std::nullopt);
  EXPECT_EQ(c.workload->condition("PodsReady")->reason, "WaitForStart");
  c.job.json().as_object()["status"] = json::object{{"active", 2}, {"ready", 2}};
  c.settle();
  EXPECT_TRUE(c.workload->condition_true("PodsReady"));
  EXPECT_EQ(c.workload->condition("PodsReady")->reason, "Started");
}

TEST(JobReconciler, PodsReadyTimeoutEvictsStopsAndRequeuesAfterTheBackoff) {
  FakeCluster c;
  auto& w = c.ctx.options.wait_for_pods_ready;
  w.enabled = true;
  w.timeout = std::chrono::seconds(300);
  w.backoff_base_seconds = 10;
  c.settle();
  c.admit();
  c.settle();
  ASSERT_FALSE(c.suspended());
  // Not ready yet: nothing to write, but a deadline to come back at.
  auto waiting = reconcile_job(c.job, &*c.workload, c.ctx);
  EXPECT_TRUE(waiting.writes.empty());
  EXPECT_EQ(waiting.recheck_at, at(300));

  c.ctx.now = at(300);
  // The eviction is counted (once its write lands) as Kueue counts it.
  auto evict = reconcile_job(c.job, &*c.workload, c.ctx);
  ASSERT_EQ(evict.writes.size(), 1u);
  ASSERT_TRUE(evict.writes[0].on_success.has_value());
  EXPECT_EQ(evict.writes[0].on_success->what, messages::WorkloadMetricEvent::What::Evicted);
  EXPECT_EQ(evict.writes[0].on_success->reason, "PodsReadyTimeout");
  EXPECT_EQ(evict.writes[0].on_success->underlying_cause, "WaitForStart");
  EXPECT_FALSE(evict.writes[0].on_success->cluster_queue.empty());
  c.settle();
  EXPECT_TRUE(c.suspended());
  EXPECT_TRUE(c.has_event("EvictedDueToPodsReadyTimeout"));
  EXPECT_EQ(c.workload->find({"status", "admission"}), nullptr);
  auto requeued = c.workload->condition("Requeued");
  ASSERT_TRUE(requeued.has_value());
  EXPECT_EQ(requeued->status, "False");
  EXPECT_EQ(requeued->reason, "PodsReadyTimeout");
  EXPECT_EQ(c.workload->string_at({"status", "requeueState", "requeueAt"}), "2026-01-01T00:05:10Z");
  auto held = reconcile_job(c.job, &*c.workload, c.ctx);
  EXPECT_TRUE(held.writes.empty());
  EXPECT_EQ(held.recheck_at, at(310));

  c.ctx.now = at(310);
  c.settle();
  EXPECT_TRUE(c.workload->condition_true("Requeued"));
  EXPECT_EQ(c.workload->condition("Requeued")->reason, "BackoffFinished");
  EXPECT_EQ(c.workload->int_at({"status", "requeueState", "count"}), 1);
}

TEST(JobReconciler, PodsReadyTimeoutIsOffWhenDisabled) {
  FakeCluster c;
  c.settle();
  c.admit();
  c.settle();
  c.ctx.now = at(100000);
  auto step = reconcile_job(c.job, &*c.workload, c.ctx);
  EXPECT_TRUE(step.writes.empty());
  EXPECT_FALSE(step.recheck_at.has_value());
}

TEST(JobReconciler, DeactivatedWorkloadIsEvictedAndReactivated) {
  FakeCluster c;
  c.settle();
  c.admit();
  c.settle();
  ASSERT_FALSE(c.suspended());
  c.workload->json().as_object()["spec"].as_object()["active"] = false;
  auto evict = reconcile_job(c.job, &*c.workload, c.ctx);
  ASSERT_EQ(evict.writes.size(), 1u);
  ASSERT_TRUE(evict.writes[0].on_success.has_value());
  EXPECT_EQ(evict.writes[0].on_success->reason, "Deactivated");
  EXPECT_EQ(evict.writes[0].on_success->underlying_cause, "");
  c.settle();
  EXPECT_TRUE(c.suspended());
  EXPECT_EQ(c.workload->find({"status", "admission"}), nullptr);
  EXPECT_EQ(c.workload->condition("Requeued")->reason, "Deactivated");
  EXPECT_EQ(c.workload->condition("Requeued")->status, "False");
  c.workload->json().as_object()["spec"].as_object()["active"] = true;
  c.settle();
  EXPECT_TRUE(c.workload->condition_true("Requeued"));
  EXPECT_EQ(c.workload->condition("Requeued")->reason, "Reactivated");
}

/// Another Workload owned by the same Job: a copy of `original` under another name, uid
/// and creation time, holding no quota.
Object duplicate_of(const Object& original, std::string name, std::string created) {
  Object dup = original;
  auto& meta = dup.json().as_object()["metadata"].as_object();
  meta["name"] = std::move(name);
  meta["uid"] = "dup-uid";
  meta["resourceVersion"] = "99";
  meta["creationTimestamp"] = std::move(created);
  dup.json().as_object().erase("status");
  return dup;
}

void set_created(Object& o, std::string created) {
  o.json().as_object()["metadata"].as_object()["creationTimestamp"] = std::move(created);
}

JobStep reconcile_all(const FakeCluster& c, std::vector<const Object*> workloads) {
  return reconcile_job(c.job, std::span<const Object* const>(workloads), c.ctx);
}

TEST(JobReconciler, DuplicateWorkloadsTheAdmittedOneStaysTheOthersAreDeleted) {
  FakeCluster c;
  c.settle();
  c.admit();
  c.settle();
  ASSERT_FALSE(c.suspended());
  set_created(*c.workload, "2026-01-01T00:00:10Z");
  // An older duplicate that matches the Job too, but holds no quota.
  Object dup = duplicate_of(*c.workload, "job-sample-job-older", "2026-01-01T00:00:01Z");
  for (auto order : {std::vector<const Object*>{&*c.workload, &dup}, std::vector<const Object*>{&dup, &*c.workload}}) {
    auto step = reconcile_all(c, order);
    ASSERT_EQ(step.writes.size(), 1u);
    EXPECT_EQ(step.writes[0].verb, JobWrite::Verb::Delete);
    EXPECT_EQ(step.writes[0].kind, ObjectKind::Workload);
    EXPECT_EQ(step.writes[0].name, "job-sample-job-older");
    EXPECT_EQ(step.writes[0].precondition_rv, "99");
    ASSERT_EQ(step.events.size(), 1u);
    EXPECT_EQ(step.events[0].reason, "DeletedWorkload");
    EXPECT_EQ(step.events[0].message, "Deleted not matching Workload: ns/job-sample-job-older");
    EXPECT_EQ(step.events[0].kind, ObjectKind::Job);
  }
  // The delete leaves it terminating behind Kueue's finalizer: the finalizer goes, and
  // the Job keeps running under the admitted Workload.
  ASSERT_FALSE(dup.finalizers().empty());
  dup.json().as_object()["metadata"].as_object()["deletionTimestamp"] = "2026-01-01T00:00:20Z";
  auto release = reconcile_all(c, {&dup, &*c.workload});
  ASSERT_EQ(release.writes.size(), 1u);
  EXPECT_EQ(release.writes[0].name, "job-sample-job-older");
  EXPECT_EQ(release.writes[0].verb, JobWrite::Verb::MergePatch);
  EXPECT_EQ(release.writes[0].what, "removed the workload's finalizer");
  EXPECT_TRUE(release.events.empty());
  EXPECT_TRUE(reconcile_all(c, {&*c.workload}).writes.empty());
  EXPECT_FALSE(c.suspended());
}

TEST(JobReconciler, DuplicatePendingWorkloadsTheOldestStays) {
  FakeCluster c;
  c.settle();
  ASSERT_TRUE(c.suspended());
  set_created(*c.workload, "2026-01-01T00:00:05Z");
  Object newer = duplicate_of(*c.workload, "job-sample-job-newer", "2026-01-01T00:00:09Z");
  auto step = reconcile_all(c, {&newer, &*c.workload});
  ASSERT_EQ(step.writes.size(), 1u);
  EXPECT_EQ(step.writes[0].verb, JobWrite::Verb::Delete);
  EXPECT_EQ(step.writes[0].name, "job-sample-job-newer");
  // Reserved beats older.
  Object reserved = newer;
  reserved.json().as_object()["status"] = json::object{};
  auto& st = reserved.json().as_object()["status"].as_object();
  st["admission"] = json::parse_yaml("{clusterQueue: cq, podSetAssignments: [{name: main, flavors: {cpu: on-demand}, "
                                     "resourceUsage: {cpu: '2'}, count: 2}]}").value();
  st["conditions"] = json::parse_yaml("[{type: QuotaReserved, status: 'True', reason: QuotaReserved, message: m, "
                                      "lastTransitionTime: '2026-01-01T00:00:10Z'}]").value();
  auto keep_reserved = reconcile_all(c, {&*c.workload, &reserved});
  ASSERT_EQ(keep_reserved.writes.size(), 1u);
  EXPECT_EQ(keep_reserved.writes[0].name, c.workload->name());
}

TEST(JobReconciler, DuplicatesNoneMatchingTheSuspendedJobOneIsUpdatedInPlace) {
  FakeCluster c;
  c.settle();
  ASSERT_TRUE(c.suspended());
  set_created(*c.workload, "2026-01-01T00:00:05Z");
  Object newer = duplicate_of(*c.workload, "job-sample-job-newer", "2026-01-01T00:00:09Z");
  c.job.json().as_object()["spec"].as_object()["parallelism"] = 1;
  c.job.json().as_object()["spec"].as_object()["completions"] = 1;
  auto step = reconcile_all(c, {&*c.workload, &newer});
  ASSERT_EQ(step.writes.size(), 1u);
  EXPECT_EQ(step.writes[0].verb, JobWrite::Verb::Delete);
  EXPECT_EQ(step.writes[0].name, "job-sample-job-newer");
  EXPECT_EQ(step.writes[0].what, "deleted the workload that no longer matches its job");
  // With the duplicate gone, the one left is updated to the Job's new spec.
  c.settle();
  ASSERT_TRUE(c.workload.has_value());
  EXPECT_EQ(json::find(c.workload->find({"spec", "podSets"})->as_array()[0], "count")->as_int64(), 1);
  EXPECT_TRUE(c.has_event("UpdatedWorkload"));
}

TEST(JobReconciler, DeletedJobReleasesEveryWorkloadItOwned) {
  FakeCluster c;
  c.settle();
  Object dup = duplicate_of(*c.workload, "job-sample-job-dup", "2026-01-01T00:00:09Z");
  c.job.json().as_object()["metadata"].as_object()["deletionTimestamp"] = "2026-01-01T00:01:00Z";
  auto step = reconcile_all(c, {&*c.workload, &dup});
  ASSERT_EQ(step.writes.size(), 2u);
  for (const auto& w : step.writes) EXPECT_EQ(w.what, "removed the workload's finalizer");
}

TEST(JobReconciler, OrphanReleaseDropsOnlyKueuesFinalizer) {
  Object wl = yaml_object(R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: w
  namespace: ns
  resourceVersion: "7"
  finalizers: [kueue.x-k8s.io/resource-in-use, example.com/keep]
)");
  auto step = release_orphan(wl);
  ASSERT_EQ(step.writes.size(), 1u);
  EXPECT_EQ(step.writes[0].precondition_rv, "7");
  const auto& finalizers = step.writes[0].body.as_object().at("metadata").as_object().at("finalizers").as_array();
  ASSERT_EQ(finalizers.size(), 1u);
  EXPECT_EQ(finalizers[0].as_string(), "example.com/keep");
}

}  // namespace
}  // namespace kueuepp::actors

namespace kueuepp::actors {
namespace {

/// A kind of job other than batch/v1 Job, to show that the reconciler asks the kind
/// through the integration and nothing else: its jobs are suspended while
/// `spec.paused` is true, and its stop is one write.
class PausedKind final : public kube::jobs::JobIntegration {
 public:
  mutable std::vector<std::string> calls;

  std::string_view framework() const override { return "example.com/paused"; }
  const kube::client::ResourceDescriptor& resource() const override { return kube::client::resources::kJob; }
  bool suspended(const Object& job) const override { return job.bool_at({"spec", "paused"}).value_or(false); }
  bool stopping(const Object&) const override { return false; }
  bool active(const Object&) const override { return false; }
  std::optional<kube::jobs::JobFinish> finished(const Object&) const override { return std::nullopt; }
  bool pods_ready(const Object&) const override { return false; }
  Expected<kube::jobs::StartResult, kube::jobs::InjectionError> start(const Object& job, const Object&,
                                                                     const kube::jobs::FlavorLookup&) const override {
    calls.push_back("start");
    kube::jobs::StartResult r;
    r.changed = true;
    r.job = job;
    r.patch = json::object{{"spec", json::object{{"paused", false}}}};
    r.message = "resumed";
    return r;
  }
  std::optional<kube::jobs::StopStep> stop(const Object& job, const Object*) const override {
    calls.push_back("stop");
    if (suspended(job)) return std::nullopt;
    return kube::jobs::StopStep{json::object{{"spec", json::object{{"paused", true}}}}, false, "suspended", true};
  }
  Expected<Object> build_workload(const Object&, const kube::jobs::BuildOptions&) const override {
    calls.push_back("build");
    return fail("not needed here");
  }
  Expected<kube::jobs::WorkloadPriority> priority(const Object&, const kube::jobs::BuildOptions&) const override {
    return kube::jobs::WorkloadPriority{};
  }
  bool equivalent(const Object&, const Object&, const kube::jobs::FlavorLookup&) const override { return true; }
};

TEST(JobReconciler, AnotherKindIsReconciledThroughItsIntegration) {
  FakeCluster c;
  c.settle();
  c.admit();
  PausedKind kind;
  c.ctx.integration = &kind;
  Object job = yaml_object(R"(
apiVersion: example.com/v1
kind: Paused
metadata: {name: p, namespace: ns, uid: uid-p, labels: {kueue.x-k8s.io/queue-name: user-queue}}
spec: {paused: true}
)");
  // Paused and admitted: resumed through the integration's start.
  JobStep step = reconcile_job(job, &*c.workload, c.ctx);
  ASSERT_EQ(step.writes.size(), 1u);
  EXPECT_EQ(step.writes[0].what, "started");
  EXPECT_EQ(json::dump(step.writes[0].body), R"({"spec":{"paused":false}})");
  EXPECT_EQ(kind.calls, (std::vector<std::string>{"start"}));
  // Running without an admission: stopped through the integration's stop, in its one write.
  job.json().as_object()["spec"].as_object()["paused"] = false;
  auto& status = c.workload->json().as_object()["status"].as_object();
  status["admission"] = nullptr;
  step = reconcile_job(job, &*c.workload, c.ctx);
  ASSERT_EQ(step.writes.size(), 1u);
  EXPECT_EQ(step.writes[0].what, "suspended: Not admitted by cluster queue");
  EXPECT_EQ(json::dump(step.writes[0].body), R"({"spec":{"paused":true}})");
  ASSERT_EQ(step.events.size(), 1u) << "the integration said its one write is the last";
  EXPECT_EQ(step.events[0].reason, "Stopped");
  EXPECT_EQ(kind.calls.back(), "stop");
}

}  // namespace
}  // namespace kueuepp::actors
