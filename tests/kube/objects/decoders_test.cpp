#include "kube/objects/decoders.hpp"

#include <gtest/gtest.h>

#include "kube/json/yaml.hpp"
#include "kube/objects/field_reader.hpp"

namespace kueuepp::kube {
namespace {

json::value doc(std::string_view yaml) {
  auto v = json::parse_yaml(yaml);
  EXPECT_TRUE(v.has_value()) << (v ? "" : v.error().message);
  return v ? *v : json::value(nullptr);
}

TEST(Decoders, ClusterQueueWithEveryAdmissionField) {
  auto cq = decode_cluster_queue(doc(R"(
metadata: {name: cq}
spec:
  cohortName: co
  namespaceSelector: {matchLabels: {team: a}}
  queueingStrategy: StrictFIFO
  stopPolicy: Hold
  fairSharing: {weight: "1.5"}
  preemption:
    withinClusterQueue: LowerOrNewerEqualPriority
    reclaimWithinCohort: Any
    borrowWithinCohort: {policy: LowerPriority, maxPriorityThreshold: 100}
  flavorFungibility: {whenCanBorrow: TryNextFlavor, whenCanPreempt: TryNextFlavor, preference: PreemptionOverBorrowing}
  admissionChecksStrategy: {admissionChecks: [{name: prov, onFlavors: [gpu]}]}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: default
      resources:
      - {name: cpu, nominalQuota: 9, borrowingLimit: "1", lendingLimit: 500m}
      - {name: memory, nominalQuota: 36Gi}
)"));
  ASSERT_TRUE(cq.has_value()) << cq.error().message;
  EXPECT_EQ(cq->cohort, "co");
  EXPECT_EQ(cq->queueing_strategy, core::QueueingStrategy::StrictFIFO);
  EXPECT_EQ(cq->stop_policy, core::StopPolicy::Hold);
  EXPECT_DOUBLE_EQ(cq->fair_weight, 1.5);
  EXPECT_EQ(cq->preemption.within_cluster_queue, core::PreemptionPolicy::LowerOrNewerEqualPriority);
  EXPECT_EQ(cq->preemption.reclaim_within_cohort, core::PreemptionPolicy::Any);
  ASSERT_TRUE(cq->preemption.borrow_within_cohort.has_value());
  EXPECT_EQ(cq->preemption.borrow_within_cohort->max_priority_threshold, 100);
  EXPECT_EQ(cq->flavor_fungibility.when_can_borrow, core::FungibilityPolicy::TryNextFlavor);
  EXPECT_EQ(cq->flavor_fungibility.preference, core::FungibilityPreference::PreemptionOverBorrowing);
  ASSERT_EQ(cq->admission_checks.size(), 1u);
  EXPECT_EQ(cq->admission_checks[0].on_flavors, std::vector<std::string>{"gpu"});
  const auto& cpu = cq->resource_groups[0].flavors[0].resources[0];
  EXPECT_EQ(cpu.nominal.milli(), 9000);
  EXPECT_EQ(cpu.borrowing_limit->milli(), 1000);
  EXPECT_EQ(cpu.lending_limit->milli(), 500);
  EXPECT_TRUE(cq->namespace_selector->matches({{"team", "a"}}));
}

TEST(Decoders, ClusterQueueWithoutSelectorAdmitsNoNamespace) {
  auto cq = decode_cluster_queue(doc("metadata: {name: cq}\nspec: {}\n"));
  ASSERT_TRUE(cq.has_value());
  EXPECT_FALSE(cq->namespace_selector.has_value());
  auto all = decode_cluster_queue(doc("metadata: {name: cq}\nspec: {namespaceSelector: {}}\n"));
  ASSERT_TRUE(all.has_value());
  EXPECT_TRUE(all->namespace_selector->matches({}));
}

TEST(Decoders, WhatKueueppDoesNotImplementIsKeptToBeRefused) {
  auto cq = decode_cluster_queue(doc("metadata: {name: cq}\nspec: {admissionScope: {admissionMode: UsageBasedAdmissionFairSharing}}\n"));
  ASSERT_TRUE(cq.has_value());
  EXPECT_EQ(cq->unsupported,
            std::vector<std::string>{"sets spec.admissionScope, and kueuepp does not implement admission fair sharing"});
  auto concurrent = decode_cluster_queue(doc("metadata: {name: cq}\nspec: {concurrentAdmissionPolicy: {}}\n"));
  ASSERT_TRUE(concurrent.has_value());
  EXPECT_EQ(concurrent->unsupported,
            std::vector<std::string>{"sets spec.concurrentAdmissionPolicy, and kueuepp does not implement concurrent admission"});
  EXPECT_TRUE(decode_cluster_queue(doc("metadata: {name: cq}\nspec: {}\n"))->unsupported.empty());

  auto rf = decode_resource_flavor(doc("metadata: {name: tas}\nspec: {topologyName: default}\n"));
  ASSERT_TRUE(rf.has_value());
  EXPECT_EQ(rf->topology_name, "default");

  const char* pod = "{spec: {containers: [{name: c, resources: {requests: {cpu: 1}}}]}}";
  auto requested = decode_workload(doc(std::string(R"(
metadata: {name: w, namespace: ns}
spec:
  queueName: lq
  podSets:
  - name: main
    count: 1
    topologyRequest: {required: cloud.provider.com/topology-block}
    template: )") + pod + "\n"));
  ASSERT_TRUE(requested.has_value()) << requested.error().message;
  ASSERT_TRUE(requested->pod_sets[0].unsupported.has_value());
  EXPECT_NE(requested->pod_sets[0].unsupported->find("topologyRequest.required"), std::string::npos);

  auto annotated = decode_workload(doc(std::string(R"(
metadata: {name: w, namespace: ns}
spec:
  queueName: lq
  podSets:
  - name: main
    count: 1
    template:
      metadata: {annotations: {kueue.x-k8s.io/podset-preferred-topology: cloud.provider.com/topology-rack}}
      spec: {containers: [{name: c, resources: {requests: {cpu: 1}}}]}
)")));
  ASSERT_TRUE(annotated.has_value()) << annotated.error().message;
  ASSERT_TRUE(annotated->pod_sets[0].unsupported.has_value());
  EXPECT_NE(annotated->pod_sets[0].unsupported->find("kueue.x-k8s.io/podset-preferred-topology"), std::string::npos);

  auto plain = decode_workload(doc(std::string(R"(
metadata: {name: w, namespace: ns}
spec:
  queueName: lq
  podSets:
  - name: main
    count: 1
    topologyRequest: {podIndexLabel: batch.kubernetes.io/job-completion-index}
    template: )") + pod + "\n"));
  ASSERT_TRUE(plain.has_value());
  EXPECT_FALSE(plain->pod_sets[0].unsupported.has_value());
}

TEST(Decoders, ErrorsNameTheObjectAndTheField) {
  struct Case {
    const char* yaml;
    const char* want;
  } cases[] = {
      {"metadata: {name: cq}\nspec: {queueingStrategy: Random}\n", "spec.queueingStrategy: Unsupported value: \"Random\""},
      {"metadata: {name: cq}\nspec: {resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: -1}]}]}]}\n",
       "nominalQuota: must be greater than or equal to 0"},
      {"metadata: {name: cq}\nspec: {resourceGroups: [{coveredResources: [cpu, memory], flavors: [{name: f, resources: [{name: cpu, nominalQuota: 1}]}]}]}\n",
       "must list every covered resource"},
      {"metadata: {name: cq}\nspec: {resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: 1, borrowingLimit: 1}]}]}]}\n",
       "must be nil when cohortName is empty"},
      {"metadata: {name: cq}\nspec: {cohortName: c, resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources: [{name: cpu, nominalQuota: 1, lendingLimit: 2}]}]}]}\n",
       "must be less than or equal to nominalQuota"},
      {"metadata: {name: cq}\nspec: {preemption: {borrowWithinCohort: {policy: LowerPriority}}}\n",
       "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never"},
      {"metadata: {name: cq}\nspec: {namespaceSelector: {matchExpressions: [{key: a, operator: In}]}}\n",
       "must be specified when `operator` is 'In' or 'NotIn'"},
      {"metadata: {}\nspec: {}\n", "metadata.name: Required value"},
  };
  for (const auto& c : cases) {
    auto cq = decode_cluster_queue(doc(c.yaml));
    ASSERT_FALSE(cq.has_value()) << c.yaml;
    EXPECT_NE(cq.error().message.find(c.want), std::string::npos) << cq.error().message;
    EXPECT_NE(cq.error().message.find("ClusterQueue"), std::string::npos);
  }
}

TEST(Decoders, WorkloadWithAdmissionConditionsAndPodTemplate) {
  auto wl = decode_workload(doc(R"(
metadata:
  name: w
  namespace: ns
  uid: abc
  creationTimestamp: "2026-01-01T00:00:00Z"
  annotations: {kueue.x-k8s.io/priority-boost: "5", kueue.x-k8s.io/admission-gated-by: "a,b"}
spec:
  queueName: lq
  priority: 10
  priorityClassRef: {group: kueue.x-k8s.io, kind: WorkloadPriorityClass, name: high}
  podSets:
  - name: workers
    count: 4
    minCount: 2
    template:
      spec:
        nodeSelector: {zone: a}
        tolerations: [{key: gpu, operator: Exists, effect: NoSchedule}]
        affinity:
          nodeAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
              nodeSelectorTerms: [{matchExpressions: [{key: arch, operator: NotIn, values: [arm]}]}]
        containers: [{name: c, resources: {requests: {cpu: 500m}, limits: {memory: 1Gi}}}]
status:
  admission:
    clusterQueue: cq
    podSetAssignments: [{name: workers, count: 3, flavors: {cpu: f}, resourceUsage: {cpu: 1500m}}]
  conditions:
  - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: m, lastTransitionTime: "2026-01-01T00:01:00Z"}
)"));
  ASSERT_TRUE(wl.has_value()) << wl.error().message;
  EXPECT_EQ(wl->key(), "ns/w");
  EXPECT_EQ(wl->priority, 10);
  EXPECT_EQ(wl->priority_boost, 5);
  EXPECT_EQ(wl->admission_gates, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(wl->pod_sets.size(), 1u);
  const auto& ps = wl->pod_sets[0];
  EXPECT_EQ(ps.count, 4);
  EXPECT_EQ(ps.min_count, 2);
  EXPECT_EQ(ps.per_pod_requests.at("cpu").milli(), 500);
  EXPECT_EQ(ps.per_pod_requests.at("memory").milli(), 1073741824000LL);  // limit stands in
  EXPECT_EQ(ps.placement.node_selector.at("zone"), "a");
  ASSERT_TRUE(ps.placement.required_affinity.has_value());
  EXPECT_EQ(ps.placement.tolerations.size(), 1u);
  ASSERT_TRUE(wl->admission.has_value());
  EXPECT_EQ(wl->admission->pod_set_assignments[0].count, 3);
  EXPECT_TRUE(wl->condition_true("QuotaReserved"));
}

TEST(Decoders, WorkloadAdmissionCheckStates) {
  auto wl = decode_workload(doc(R"(
metadata: {name: w, namespace: ns}
spec:
  queueName: lq
  podSets: [{name: main, count: 1, template: {spec: {containers: [{name: c}]}}}]
status:
  admissionChecks:
  - {name: prov, state: Retry, lastTransitionTime: "2026-01-01T00:02:00Z", message: "no capacity", requeueAfterSeconds: 30, retryCount: 2}
  - {name: approve, state: Ready, lastTransitionTime: "2026-01-01T00:01:00Z", message: ""}
  - {name: pending, state: Pending, lastTransitionTime: "2026-01-01T00:00:00Z", message: ""}
  - {name: veto, state: Rejected, lastTransitionTime: "2026-01-01T00:03:00Z", message: "not allowed"}
)"));
  ASSERT_TRUE(wl.has_value()) << wl.error().message;
  ASSERT_EQ(wl->admission_checks.size(), 4u);
  const auto& retry = wl->admission_checks[0];
  EXPECT_EQ(retry.name, "prov");
  EXPECT_EQ(retry.state, core::CheckState::Retry);
  EXPECT_EQ(retry.last_transition, *core::parse_rfc3339("2026-01-01T00:02:00Z"));
  EXPECT_EQ(retry.message, "no capacity");
  EXPECT_EQ(retry.requeue_after_seconds, 30);
  EXPECT_EQ(retry.retry_count, 2);
  EXPECT_EQ(wl->admission_checks[1].state, core::CheckState::Ready);
  EXPECT_FALSE(wl->admission_checks[1].requeue_after_seconds.has_value());
  EXPECT_EQ(wl->admission_checks[1].retry_count, 0);
  EXPECT_EQ(wl->admission_checks[2].state, core::CheckState::Pending);
  EXPECT_EQ(wl->admission_checks[3].state, core::CheckState::Rejected);
  EXPECT_EQ(wl->admission_checks[3].message, "not allowed");

  auto bad_state = decode_workload(doc(R"(
metadata: {name: w}
spec: {podSets: [{name: main, template: {spec: {containers: [{name: c}]}}}]}
status: {admissionChecks: [{name: prov, state: Done}]}
)"));
  ASSERT_FALSE(bad_state.has_value());
  EXPECT_NE(bad_state.error().message.find("status.admissionChecks[0].state"), std::string::npos)
      << bad_state.error().message;
  auto no_name = decode_workload(doc(R"(
metadata: {name: w}
spec: {podSets: [{name: main, template: {spec: {containers: [{name: c}]}}}]}
status: {admissionChecks: [{state: Ready}]}
)"));
  ASSERT_FALSE(no_name.has_value());
  EXPECT_NE(no_name.error().message.find("status.admissionChecks[0].name"), std::string::npos);
}

TEST(Decoders, JobDefaultsParallelismAndCompletionsLikeKubeApiserver) {
  auto both_absent = decode_job(doc("metadata: {name: j}\nspec: {template: {spec: {containers: []}}}\n"));
  ASSERT_TRUE(both_absent.has_value());
  EXPECT_EQ(both_absent->parallelism, 1);
  EXPECT_EQ(both_absent->completions, 1);
  auto parallelism_only = decode_job(doc("metadata: {name: j}\nspec: {parallelism: 3, template: {spec: {}}}\n"));
  ASSERT_TRUE(parallelism_only.has_value());
  EXPECT_FALSE(parallelism_only->completions.has_value());
  auto bad = decode_job(doc("metadata: {name: j}\nspec: {parallelism: many}\n"));
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("spec.parallelism"), std::string::npos);
}

TEST(Decoders, NamespaceAlwaysCarriesItsNameLabel) {
  auto ns = decode_namespace(doc("metadata: {name: team, labels: {tier: gold}}\n"));
  ASSERT_TRUE(ns.has_value());
  EXPECT_EQ(ns->labels.at("kubernetes.io/metadata.name"), "team");
  EXPECT_EQ(ns->labels.at("tier"), "gold");
}

TEST(Decoders, WrongTypesNeverCrash) {
  for (const char* y : {"[]", "42", "metadata: 5", "metadata: {name: [x]}", "spec: {podSets: {}}",
                        "metadata: {name: w}\nspec: {podSets: [{count: -3, template: {}}]}",
                        "metadata: {name: w}\nspec: {podSets: [{template: {spec: {containers: [{resources: {requests: {cpu: abc}}}]}}}]}"}) {
    auto v = json::parse_yaml(y);
    ASSERT_TRUE(v.has_value());
    EXPECT_FALSE(decode_workload(*v).has_value()) << y;
    (void)decode_cluster_queue(*v);
    (void)decode_job(*v);
    (void)decode_resource_flavor(*v);
    (void)decode_local_queue(*v);
  }
}

}  // namespace
}  // namespace kueuepp::kube

namespace kueuepp::kube {
namespace {

// The packed path (decode_workload_text, simdjson in place) must read every Workload
// exactly as the document path does: the same model, or the same error.
TEST(Decoders, AWorkloadReadFromItsTextEqualsTheOneReadFromItsDocument) {
  const char* cases[] = {
      R"(
metadata:
  name: w
  namespace: ns
  uid: abc
  creationTimestamp: "2026-01-01T00:00:00Z"
  labels: {team: a, empty: null}
  annotations: {kueue.x-k8s.io/priority-boost: "5", kueue.x-k8s.io/admission-gated-by: "a,,b"}
spec:
  queueName: lq
  priority: 10
  active: false
  priorityClassRef: {group: kueue.x-k8s.io, kind: PriorityClass, name: high}
  podSets:
  - name: workers
    count: 4
    minCount: 2
    template:
      spec:
        priorityClassName: pc
        nodeSelector: {zone: a}
        tolerations: [{key: gpu, operator: Exists, effect: NoSchedule}, {key: k, value: v}]
        affinity:
          nodeAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
              nodeSelectorTerms: [{matchExpressions: [{key: arch, operator: NotIn, values: [arm]}]}, {}]
        initContainers: [{name: i, restartPolicy: Always, resources: {requests: {cpu: 1}}}]
        containers: [{name: c, resources: {requests: {cpu: 500m, memory: 2.5}, limits: {memory: 1Gi}}}]
        overhead: {cpu: 10m}
        resources: {requests: {cpu: 2}}
  - name: driver
    template: {spec: {containers: [{name: d, resources: {requests: {cpu: "3", memory: 1e3}}}]}}
status:
  admission:
    clusterQueue: cq
    podSetAssignments: [{name: workers, count: 3, flavors: {cpu: f}, resourceUsage: {cpu: 1500m}}, {name: driver}]
  conditions:
  - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: m, lastTransitionTime: "2026-01-01T00:01:00Z"}
  - {type: Evicted, status: "False"}
  requeueState: {count: 2, requeueAt: "2026-01-01T00:05:00Z"}
  admissionChecks:
  - {name: prov, state: Retry, lastTransitionTime: "2026-01-01T00:02:00Z", message: "no", requeueAfterSeconds: 30, retryCount: 2}
)",
      "metadata: {name: w}\nspec: {priorityClassName: p, priorityClassSource: kueue.x-k8s.io/workloadpriorityclass, "
      "podSets: [{template: {spec: {containers: []}}}]}\n",
      // Valid, with a request above its limit (kept on the pod set, not an error).
      "metadata: {name: w}\nspec: {podSets: [{template: {spec: {containers: [{name: c, resources: {requests: {cpu: 2}, "
      "limits: {cpu: 1}}}]}}}]}\n",
      // Errors: each must come out word for word the same.
      "metadata: {name: w}\nspec: {}\n",
      "metadata: {name: w}\nspec: {podSets: []}\n",
      "metadata: {name: w}\nspec: {podSets: {}}\n",
      "metadata: {namespace: n}\nspec: {podSets: [{}]}\n",
      "metadata: {name: w, labels: {a: 1}}\nspec: {podSets: [{}]}\n",
      "metadata: {name: w, annotations: {kueue.x-k8s.io/priority-boost: x}}\nspec: {podSets: [{}]}\n",
      "metadata: {name: w}\nspec: {priority: \"1\", podSets: [{}]}\n",
      "metadata: {name: w}\nspec: {active: 1, podSets: [{}]}\n",
      "metadata: {name: w}\nspec: {podSets: [{count: -1}]}\n",
      "metadata: {name: w}\nspec: {podSets: [{count: 1.5}]}\n",
      "metadata: {name: w}\nspec: {podSets: [{count: 18446744073709551615}]}\n",
      "metadata: {name: w}\nspec: {podSets: [{template: {spec: {containers: [{resources: {requests: {cpu: 1x}}}]}}}]}\n",
      "metadata: {name: w}\nspec: {podSets: [{template: {spec: {containers: [{resources: {requests: {cpu: [1]}}}]}}}]}\n",
      "metadata: {name: w}\nspec: {podSets: [{template: {spec: {tolerations: [{effect: Sometimes}]}}}]}\n",
      "metadata: {name: w, creationTimestamp: yesterday}\nspec: {podSets: [{}]}\n",
      "metadata: {name: w}\nspec: {podSets: [{}]}\nstatus: {conditions: [{type: 3}]}\n",
      "metadata: {name: w}\nspec: {podSets: [{}]}\nstatus: {admission: {podSetAssignments: [{resourceUsage: {cpu: -}}]}}\n",
      "metadata: {name: w}\nspec: {podSets: [{}]}\nstatus: {admissionChecks: [{name: a, state: Ready, retryCount: -1}]}\n",
      "metadata: {name: w}\nspec: {podSets: [{}]}\nstatus: {requeueState: {count: x}}\n",
      "metadata: null\nspec: null\n",
  };
  std::size_t errors = 0;
  for (const char* yaml : cases) {
    json::value document = doc(yaml);
    auto from_document = decode_workload(document);
    auto from_text = decode_workload_text(json::dump(document));
    ASSERT_EQ(from_document.has_value(), from_text.has_value()) << yaml;
    if (from_document) {
      EXPECT_TRUE(*from_document == *from_text) << yaml;
    } else {
      ++errors;
      EXPECT_EQ(from_document.error().message, from_text.error().message) << yaml;
    }
  }
  EXPECT_EQ(errors, std::size(cases) - 3);  // every case after the first three is invalid
}

TEST(Decoders, AWorkloadTextThatIsNotJsonIsAnError) {
  auto wl = decode_workload_text("{\"metadata\":");
  ASSERT_FALSE(wl.has_value());
  EXPECT_NE(wl.error().message.find("Workload: invalid JSON"), std::string::npos) << wl.error().message;
  auto not_object = decode_workload_text("[1]");
  ASSERT_FALSE(not_object.has_value());
  EXPECT_NE(not_object.error().message.find("metadata.name"), std::string::npos) << not_object.error().message;
}

}  // namespace
}  // namespace kueuepp::kube

namespace kueuepp::kube {
namespace {

// A path under a temporary parent would refer to it after it is gone: refused.
template <class Path>
concept SubOfATemporaryCompiles = requires { sub(Path("spec"), "name"); };
static_assert(!SubOfATemporaryCompiles<FieldPath>);
template <class Path>
concept SubOfANamedPathCompiles = requires(const Path& p) { sub(p, "name"); };
static_assert(SubOfANamedPathCompiles<FieldPath>);

TEST(FieldPath, IsSpelledOutOnlyWhenAsked) {
  const FieldPath root = "spec.podSets";
  const FieldPath first = sub(root, std::size_t{0});
  const FieldPath tmpl = sub(first, "template");
  EXPECT_EQ(tmpl.str(), "spec.podSets[0].template");
  EXPECT_EQ(sub(tmpl, "spec.containers").str(), "spec.podSets[0].template.spec.containers");
  const FieldPath empty = "";
  EXPECT_EQ(sub(empty, "name").str(), "name");  // a key alone at the top
  const std::string owned = "status.conditions";
  const FieldPath conditions = owned;
  EXPECT_EQ(sub(conditions, std::size_t{2}).str(), "status.conditions[2]");
  FieldReader r("Workload \"ns/w\"");
  r.fail(sub(tmpl, "name"), "Required value");
  r.fail(root, "ignored: only the first error is kept");
  EXPECT_EQ(r.error().message, "Workload \"ns/w\": spec.podSets[0].template.name: Required value");
}

}  // namespace
}  // namespace kueuepp::kube
