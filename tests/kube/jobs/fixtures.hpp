#pragma once

// Test fixtures for kube/jobs: objects written as YAML.

#include <gtest/gtest.h>

#include <string_view>

#include "core/model/time.hpp"
#include "kube/client/object.hpp"
#include "kube/json/yaml.hpp"

namespace kueuepp::kube::jobs::testing {

inline json::value yaml(std::string_view text) {
  auto v = json::parse_yaml(text);
  EXPECT_TRUE(v.has_value()) << (v ? "" : v.error().message);
  return v ? *v : json::value(nullptr);
}

inline client::Object object(std::string_view text) { return client::Object(yaml(text)); }

inline core::Time at(std::int64_t seconds) { return core::time_from_seconds(1767225600 + seconds); }  // 2026-01-01

inline constexpr std::string_view kT0 = "2026-01-01T00:00:00Z";

/// A plain Job in namespace ns with a queue label, parallelism 3, one container.
inline constexpr std::string_view kJob = R"(
apiVersion: batch/v1
kind: Job
metadata:
  name: sample-job
  namespace: ns
  uid: uid-1
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  parallelism: 3
  completions: 3
  suspend: true
  template:
    metadata:
      labels: {app: demo, batch.kubernetes.io/job-name: sample-job, batch.kubernetes.io/controller-uid: uid-1, controller-uid: uid-1, job-name: sample-job}
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        resources:
          requests: {cpu: "1", memory: 200Mi}
)";

}  // namespace kueuepp::kube::jobs::testing

namespace kueuepp::kube::jobs::testing {

/// The Workload Kueue made for kJob, admitted to cluster-queue on flavor default-flavor.
inline constexpr std::string_view kAdmittedWorkload = R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: job-sample-job-2e47a
  namespace: ns
  generation: 1
  ownerReferences:
  - {apiVersion: batch/v1, kind: Job, name: sample-job, uid: uid-1, controller: true, blockOwnerDeletion: true}
spec:
  queueName: user-queue
  podSets:
  - name: main
    count: 3
    template:
      metadata:
        labels: {app: demo, batch.kubernetes.io/job-name: sample-job}
      spec:
        restartPolicy: Never
        containers:
        - name: c
          image: busybox
          resources:
            requests: {cpu: "1", memory: 200Mi}
status:
  admission:
    clusterQueue: cluster-queue
    podSetAssignments:
    - name: main
      flavors: {cpu: default-flavor, memory: default-flavor}
      resourceUsage: {cpu: "3", memory: 600Mi}
      count: 3
  conditions:
  - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: Quota reserved in ClusterQueue cluster-queue, lastTransitionTime: "2026-01-01T00:00:00Z", observedGeneration: 1}
  - {type: Admitted, status: "True", reason: Admitted, message: The workload is admitted, lastTransitionTime: "2026-01-01T00:00:00Z", observedGeneration: 1}
)";

inline constexpr std::string_view kFlavor = R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default-flavor}
spec:
  nodeLabels: {instance-type: on-demand, zone: a}
  tolerations:
  - {key: spot, operator: Exists, effect: NoSchedule}
)";

}  // namespace kueuepp::kube::jobs::testing
