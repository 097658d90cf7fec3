#include <gtest/gtest.h>

#include "kube/client/kinds/core_objects.hpp"
#include "kube/client/kinds/job.hpp"
#include "kube/client/kinds/kueue_queues.hpp"
#include "kube/client/kinds/lease.hpp"
#include "kube/client/kinds/workload.hpp"
#include "kube/client/micro_time.hpp"
#include "kube/client/object.hpp"

namespace kueuepp::kube::client {
namespace {

json::value parse(std::string_view text) {
  auto v = json::parse(text);
  EXPECT_TRUE(v) << text;
  return v ? *v : json::value{};
}

const char* kJob = R"({
  "apiVersion": "batch/v1", "kind": "Job",
  "metadata": {"name": "j1", "namespace": "ns", "uid": "u-1", "resourceVersion": "42",
               "generation": 3, "creationTimestamp": "2024-01-01T00:00:00Z",
               "labels": {"kueue.x-k8s.io/queue-name": "lq", "app": "ct"},
               "annotations": {"a": "b"},
               "finalizers": ["example.com/hold"],
               "ownerReferences": [{"apiVersion": "v1", "kind": "X", "name": "o", "uid": "o-1",
                                    "controller": true, "futureField": "keep"}],
               "futureMetadata": {"x": 1}},
  "spec": {"suspend": true, "parallelism": 2, "completions": 4, "futureSpec": [1, 2],
           "template": {"spec": {"nodeSelector": {"pool": "a"},
                                 "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}],
                                 "containers": [{"name": "c", "image": "busybox"}]}}},
  "status": {"active": 1, "conditions": [
    {"type": "Suspended", "status": "True", "reason": "JobSuspended", "message": "m",
     "lastTransitionTime": "2024-01-01T00:00:00Z", "lastProbeTime": "keep-me"}]}
})";

TEST(Object, ReadsMetadata) {
  Job job(parse(kJob));
  EXPECT_EQ(job.api_version(), "batch/v1");
  EXPECT_EQ(job.kind(), "Job");
  EXPECT_EQ(job.name(), "j1");
  EXPECT_EQ(job.namespace_name(), "ns");
  EXPECT_EQ(job.key(), "ns/j1");
  EXPECT_EQ(job.uid(), "u-1");
  EXPECT_EQ(job.resource_version(), "42");
  EXPECT_EQ(job.generation(), 3);
  EXPECT_EQ(job.creation_timestamp(), "2024-01-01T00:00:00Z");
  EXPECT_FALSE(job.being_deleted());
  EXPECT_EQ(job.labels().size(), 2u);
  EXPECT_EQ(job.label("app"), "ct");
  EXPECT_FALSE(job.label("missing"));
  EXPECT_EQ(job.annotation("a"), "b");
  EXPECT_EQ(job.finalizers(), std::vector<std::string>{"example.com/hold"});
  ASSERT_EQ(job.owner_references().size(), 1u);
  EXPECT_EQ(job.controller_reference()->uid, "o-1");
}

TEST(Object, EditsKeepUnknownFields) {
  Job job(parse(kJob));
  job.set_label("tier", "gold");
  job.remove_label("app");
  job.set_annotation("x", "y");
  job.add_finalizer("kueue.x-k8s.io/resource-in-use");
  job.remove_finalizer("example.com/hold");
  job.set_suspend(false);
  job.set_parallelism(5);
  job.set_node_selector({{"pool", "b"}, {"zone", "z1"}});
  job.set_tolerations({Toleration{"gpu", "Equal", "a100", "NoSchedule", 30}});
  job.set_owner_reference(OwnerReference{"v1", "X", "o2", "o-1", true, true});
  job.set_condition(Condition{"Suspended", "False", "Resumed", "", "", std::nullopt},
                    "2024-02-02T00:00:00Z");

  const json::value& doc = job.json();
  EXPECT_EQ(json::dump(*json::find_path(doc, {"metadata", "futureMetadata"})), R"({"x":1})");
  EXPECT_EQ(json::dump(*json::find_path(doc, {"spec", "futureSpec"})), "[1,2]");
  EXPECT_TRUE(json::find_path(doc, {"spec", "template", "spec", "containers"}) != nullptr);
  const json::value& owner = json::find_path(doc, {"metadata", "ownerReferences"})->as_array().at(0);
  EXPECT_EQ(json::get_string(owner, "futureField"), "keep");
  EXPECT_EQ(json::get_string(owner, "name"), "o2");
  EXPECT_TRUE(json::find(owner, "blockOwnerDeletion")->as_bool());
  const json::value& cond = json::find_path(doc, {"status", "conditions"})->as_array().at(0);
  EXPECT_EQ(json::get_string(cond, "lastProbeTime"), "keep-me");

  EXPECT_EQ(job.label("tier"), "gold");
  EXPECT_FALSE(job.label("app"));
  EXPECT_EQ(job.finalizers(), std::vector<std::string>{"kueue.x-k8s.io/resource-in-use"});
  EXPECT_FALSE(job.suspended());
  EXPECT_EQ(job.parallelism(), 5);
  EXPECT_EQ(job.completions(), 4);
  EXPECT_EQ(job.node_selector().at("zone"), "z1");
  ASSERT_EQ(job.tolerations().size(), 1u);
  EXPECT_EQ(job.tolerations()[0], (Toleration{"gpu", "Equal", "a100", "NoSchedule", 30}));
  EXPECT_EQ(job.queue_name(), "lq");
  EXPECT_EQ(job.active(), 1);
}

TEST(Object, FinalizerEditsReportChanges) {
  Object o;
  EXPECT_FALSE(o.remove_finalizer("a"));
  EXPECT_TRUE(o.add_finalizer("a"));
  EXPECT_FALSE(o.add_finalizer("a"));
  EXPECT_TRUE(o.has_finalizer("a"));
  EXPECT_TRUE(o.remove_finalizer("a"));
  EXPECT_EQ(o.find({"metadata", "finalizers"}), nullptr);  // an empty list is removed
}

TEST(Object, EmptySettersRemoveFields) {
  Job job(parse(kJob));
  job.set_node_selector({});
  job.set_tolerations({});
  EXPECT_EQ(job.find({"spec", "template", "spec", "nodeSelector"}), nullptr);
  EXPECT_EQ(job.find({"spec", "template", "spec", "tolerations"}), nullptr);
  job.set_resource_version("");
  EXPECT_EQ(job.find({"metadata", "resourceVersion"}), nullptr);
}

TEST(Object, FromJsonRejectsNonObjectsAndAccessorsTolerateOddShapes) {
  EXPECT_FALSE(Object::from_json(json::array{1}));
  EXPECT_FALSE(Object::from_json(json::value("x")));
  Object odd(parse(R"({"metadata": "not an object", "spec": {"suspend": "yes", "parallelism": 1.0},
                      "status": {"conditions": {"not": "a list"}}})"));
  EXPECT_EQ(odd.name(), "");
  EXPECT_TRUE(odd.labels().empty());
  EXPECT_TRUE(odd.conditions().empty());
  EXPECT_EQ(odd.generation(), 0);
  Job job(odd.json());
  EXPECT_FALSE(job.suspended());
  EXPECT_EQ(job.parallelism(), 1);  // 1.0 is an integer value
  odd.set_name("fixed");  // a non-object in the way is replaced
  EXPECT_EQ(odd.name(), "fixed");
  Object not_object(json::value(5));
  EXPECT_TRUE(not_object.json().is_object());
}

TEST(Conditions, LastTransitionTimeChangesOnlyWhenTheStatusChanges) {
  Object o;
  const char* t1 = "2024-01-01T00:00:00Z";
  const char* t2 = "2024-01-02T00:00:00Z";
  const char* t3 = "2024-01-03T00:00:00Z";
  EXPECT_TRUE(o.set_condition({"Admitted", "False", "Pending", "waiting", "", 1}, t1));
  EXPECT_EQ(o.condition("Admitted")->last_transition_time, t1);

  // Same status, new reason/message/generation: updated in place, time kept.
  EXPECT_TRUE(o.set_condition({"Admitted", "False", "Pending", "still waiting", "", 2}, t2));
  auto c = o.condition("Admitted");
  EXPECT_EQ(c->last_transition_time, t1);
  EXPECT_EQ(c->message, "still waiting");
  EXPECT_EQ(c->observed_generation, 2);

  // Identical: nothing changes.
  EXPECT_FALSE(o.set_condition({"Admitted", "False", "Pending", "still waiting", "", 2}, t3));

  // Status flips: the time moves.
  EXPECT_TRUE(o.set_condition({"Admitted", "True", "Admitted", "ok", "", 2}, t3));
  EXPECT_EQ(o.condition("Admitted")->last_transition_time, t3);
  EXPECT_TRUE(o.condition_true("Admitted"));

  // An explicit time wins when the status changes.
  EXPECT_TRUE(o.set_condition({"Admitted", "False", "Evicted", "", "2020-01-01T00:00:00Z", 3}, t3));
  EXPECT_EQ(o.condition("Admitted")->last_transition_time, "2020-01-01T00:00:00Z");

  EXPECT_TRUE(o.set_condition({"Finished", "True", "Done", "", "", std::nullopt}, t1));
  EXPECT_EQ(o.conditions().size(), 2u);
  EXPECT_TRUE(o.remove_condition("Admitted"));
  EXPECT_FALSE(o.remove_condition("Admitted"));
  EXPECT_EQ(o.conditions().size(), 1u);
}

TEST(Object, ReadsOneConditionWithoutTheOthers) {
  Object o(parse(R"({"status":{"conditions":[
    "not an object",
    {"status":"True"},
    {"type":"QuotaReserved","status":"True","reason":"QuotaReserved","message":"m1",
     "lastTransitionTime":"2024-01-01T00:00:00Z","observedGeneration":4},
    {"type":"Admitted","status":"False","reason":"Pending"},
    {"type":"QuotaReserved","status":"False","reason":"second of its type"}]}})"));
  auto reserved = o.condition("QuotaReserved");
  ASSERT_TRUE(reserved);
  EXPECT_EQ(reserved->reason, "QuotaReserved");  // the first of its type, as read_conditions order gives
  EXPECT_EQ(reserved->message, "m1");
  EXPECT_EQ(reserved->last_transition_time, "2024-01-01T00:00:00Z");
  EXPECT_EQ(reserved->observed_generation, 4);
  EXPECT_TRUE(o.condition_true("QuotaReserved"));
  EXPECT_FALSE(o.condition_true("Admitted"));
  EXPECT_FALSE(o.condition_true("Finished"));
  EXPECT_FALSE(o.condition("Finished"));
  EXPECT_FALSE(Object(parse(R"({"status":{"conditions":{"type":"Admitted"}}})")).condition_true("Admitted"));
  EXPECT_FALSE(Object(parse(R"({"metadata":{}})")).condition("Admitted"));
}

TEST(Workload, AdmissionRoundTripsAndClears) {
  Workload wl(parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta2","kind":"Workload",
    "metadata":{"name":"wl","namespace":"ns"},
    "spec":{"queueName":"lq","priority":100,
            "priorityClassRef":{"group":"kueue.x-k8s.io","kind":"WorkloadPriorityClass","name":"high"},
            "podSets":[{"name":"main","count":3,"minCount":1,"template":{"spec":{}}},{"name":"aux"}]},
    "status":{"resourceRequests":[{"name":"main"}]}})"));
  EXPECT_EQ(wl.queue_name(), "lq");
  EXPECT_EQ(wl.priority(), 100);
  EXPECT_EQ(wl.priority_class_ref()->name, "high");
  EXPECT_TRUE(wl.active());
  auto pod_sets = wl.pod_sets();
  ASSERT_EQ(pod_sets.size(), 2u);
  EXPECT_EQ(pod_sets[0].count, 3);
  EXPECT_EQ(pod_sets[0].min_count, 1);
  EXPECT_NE(pod_sets[0].pod_template, nullptr);
  EXPECT_EQ(pod_sets[1].count, 1);
  EXPECT_FALSE(wl.admission());

  Admission admission{"cq", {PodSetAssignment{"main", {{"cpu", "default"}}, {{"cpu", "3"}}, 3}}};
  wl.set_admission(admission);
  EXPECT_EQ(wl.admission(), admission);
  EXPECT_NE(wl.find({"status", "resourceRequests"}), nullptr);  // other status fields kept
  EXPECT_EQ(json::dump(*wl.find({"status", "admission"})),
            R"({"clusterQueue":"cq","podSetAssignments":[{"name":"main","flavors":{"cpu":"default"},"resourceUsage":{"cpu":"3"},"count":3}]})");
  wl.set_admission(std::nullopt);
  EXPECT_EQ(wl.find({"status", "admission"}), nullptr);
  wl.set_active(false);
  EXPECT_FALSE(wl.active());
}

TEST(Lease, UsesMicroTime) {
  Lease lease = Lease::make("kueue-system", "c1f6bfd2.kueue.x-k8s.io");
  EXPECT_EQ(lease.api_version(), "coordination.k8s.io/v1");
  EXPECT_EQ(lease.kind(), "Lease");
  const TimePoint t = *parse_time("2023-07-04T21:58:48.065888Z");
  lease.set_holder_identity("pod-a_123");
  lease.set_lease_duration_seconds(15);
  lease.set_acquire_time(t);
  lease.set_renew_time(t + std::chrono::milliseconds(1500));
  lease.set_lease_transitions(2);
  EXPECT_EQ(lease.string_at({"spec", "acquireTime"}), "2023-07-04T21:58:48.065888Z");
  EXPECT_EQ(lease.string_at({"spec", "renewTime"}), "2023-07-04T21:58:49.565888Z");
  EXPECT_EQ(lease.acquire_time(), t);
  EXPECT_EQ(lease.holder_identity(), "pod-a_123");
  EXPECT_EQ(lease.lease_duration_seconds(), 15);
  EXPECT_EQ(lease.lease_transitions(), 2);
  EXPECT_EQ(Lease().lease_transitions(), 0);
  EXPECT_FALSE(Lease().renew_time());
}

TEST(ObjectTime, FormatsAndParsesRfc3339) {
  const TimePoint t = *parse_time("2024-02-29T23:59:59.123456789Z");
  EXPECT_EQ(format_time(t), "2024-02-29T23:59:59Z");
  EXPECT_EQ(format_micro_time(t), "2024-02-29T23:59:59.123456Z");
  EXPECT_EQ(parse_time("2024-01-01T02:00:00+02:00"), parse_time("2024-01-01T00:00:00Z"));
  EXPECT_EQ(parse_time("2024-01-01T00:00:00-01:30"), parse_time("2024-01-01T01:30:00Z"));
  EXPECT_EQ(format_micro_time(*parse_time("1970-01-01T00:00:00Z")), "1970-01-01T00:00:00.000000Z");
  // Times a TimePoint cannot hold are rejected instead of wrapping around.
  EXPECT_FALSE(parse_time("0000-01-01T00:00:00Z"));
  EXPECT_FALSE(parse_time("9999-12-31T23:30:00-01:00"));
  EXPECT_FALSE(parse_time("2262-04-12T00:00:00Z"));
  EXPECT_EQ(format_time(*parse_time("1900-01-01T00:00:00+01:00")), "1899-12-31T23:00:00Z");
  EXPECT_EQ(format_time(*parse_time("2200-06-01T12:00:00Z")), "2200-06-01T12:00:00Z");
  for (const char* bad : {"", "2024-01-01", "2024-01-01T00:00:00", "2024-13-01T00:00:00Z",
                          "2024-02-30T00:00:00Z", "2024-01-01T25:00:00Z", "2024-01-01T00:00:00.Z",
                          "2024-01-01T00:00:00Zjunk", "x024-01-01T00:00:00Z"}) {
    EXPECT_FALSE(parse_time(bad)) << bad;
  }
}

TEST(KueueKinds, ReadSpecFieldsWithDefaults) {
  ClusterQueue cq(parse(R"({"spec":{"cohortName":"all","namespaceSelector":{},"resourceGroups":[]}})"));
  EXPECT_EQ(cq.cohort_name(), "all");
  EXPECT_EQ(cq.stop_policy(), "None");
  EXPECT_EQ(cq.queueing_strategy(), "BestEffortFIFO");
  EXPECT_TRUE(cq.namespace_selector()->is_object());
  cq.set_workload_counts(1, 2, 3);
  EXPECT_EQ(cq.int_at({"status", "admittedWorkloads"}), 3);

  LocalQueue lq(parse(R"({"spec":{"clusterQueue":"cq","stopPolicy":"Hold"}})"));
  EXPECT_EQ(lq.cluster_queue(), "cq");
  EXPECT_EQ(lq.stop_policy(), "Hold");

  ResourceFlavor rf(parse(R"({"spec":{"nodeLabels":{"pool":"a"},
    "nodeTaints":[{"key":"k","value":"v","effect":"NoSchedule"}],
    "tolerations":[{"key":"t","operator":"Exists"}]}})"));
  EXPECT_EQ(rf.node_labels().at("pool"), "a");
  EXPECT_EQ(rf.node_taints().at(0), (Taint{"k", "v", "NoSchedule"}));
  EXPECT_EQ(rf.tolerations().at(0).operator_, "Exists");

  Cohort cohort(parse(R"({"spec":{"parentName":"root"}})"));
  EXPECT_EQ(cohort.parent_name(), "root");
  WorkloadPriorityClass wpc(parse(R"({"value":1000,"description":"high"})"));
  EXPECT_EQ(wpc.value(), 1000);
  EXPECT_EQ(wpc.description(), "high");
  PriorityClass pc(parse(R"({"value":-5,"globalDefault":true})"));
  EXPECT_EQ(pc.value(), -5);
  EXPECT_TRUE(pc.global_default());
  EXPECT_EQ(pc.preemption_policy(), "PreemptLowerPriority");
}

TEST(CoreKinds, PodGatesNamespacePhaseAndEvents) {
  Pod pod(parse(R"({"spec":{"schedulingGates":[{"name":"kueue.x-k8s.io/admission"},{"name":"other"}]}})"));
  EXPECT_EQ(pod.scheduling_gates().size(), 2u);
  EXPECT_TRUE(pod.remove_scheduling_gate("kueue.x-k8s.io/admission"));
  EXPECT_FALSE(pod.remove_scheduling_gate("kueue.x-k8s.io/admission"));
  EXPECT_TRUE(pod.remove_scheduling_gate("other"));
  EXPECT_EQ(pod.find({"spec", "schedulingGates"}), nullptr);

  Namespace ns(parse(R"({"status":{"phase":"Terminating"}})"));
  EXPECT_EQ(ns.phase(), "Terminating");

  EventInit init;
  init.namespace_name = "ns";
  init.involved_api_version = "kueue.x-k8s.io/v1beta2";
  init.involved_kind = "Workload";
  init.involved_name = "wl";
  init.involved_namespace = "ns";
  init.involved_uid = "u";
  init.reason = "QuotaReserved";
  init.message = "Quota reserved in ClusterQueue cq";
  init.now = *parse_time("2024-01-01T00:00:00Z");
  Event e = Event::make(init, "17a");
  EXPECT_EQ(e.name(), "wl.17a");
  EXPECT_EQ(e.namespace_name(), "ns");
  EXPECT_EQ(e.reason(), "QuotaReserved");
  EXPECT_EQ(e.type(), "Normal");
  EXPECT_EQ(e.count(), 1);
  EXPECT_EQ(e.string_at({"involvedObject", "kind"}), "Workload");
  e.record_repeat(*parse_time("2024-01-01T00:01:00Z"));
  EXPECT_EQ(e.count(), 2);
  EXPECT_EQ(e.string_at({"lastTimestamp"}), "2024-01-01T00:01:00Z");
  EXPECT_EQ(e.string_at({"firstTimestamp"}), "2024-01-01T00:00:00Z");
}

}  // namespace
}  // namespace kueuepp::kube::client
