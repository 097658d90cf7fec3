#!/usr/bin/env bash
# A Kubeflow job's priority and preemption end to end through kubectl, on standalone
# serving the PyTorchJob CRD with its integration enabled:
#   - a PyTorchJob labelled with WorkloadPriorityClass low gets its Workload at that
#     priority, is admitted and resumed with the flavor's node selector in both replicas'
#     templates, and runs (the runner plays the operator: Running);
#   - a Job of WorkloadPriorityClass high preempts it: its Workload is evicted (Preempted),
#     the PyTorchJob suspended through spec.runPolicy.suspend with both templates
#     restored, its pods stop, its quota is released and the Job runs in its place.
#
# usage: kubeflow_preemption_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
CRD=$E2E_SHARED/third-party-crds/kubeflow.org_pytorchjobs.yaml
if [ ! -f "$CRD" ]; then
  echo "skipped: needs $CRD"
  exit 77
fi
cat >"$E2E_TMP/config.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
integrations:
  frameworks: [batch/job, kubeflow.org/pytorchjob]
YAML
e2e_start --job-time-scale 2 --config "$E2E_TMP/config.yaml" --crds "$CRD"

k apply -f - >/dev/null <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: on-demand}
spec: {nodeLabels: {instance-type: on-demand}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cluster-queue}
spec:
  namespaceSelector: {}
  preemption: {withinClusterQueue: LowerPriority}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: on-demand
      resources: [{name: cpu, nominalQuota: 2}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: user-queue, namespace: default}
spec: {clusterQueue: cluster-queue}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: low}
value: 100
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: pytorch-low
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: user-queue, kueue.x-k8s.io/priority-class: low}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers:
          - {name: pytorch, image: busybox, command: [sleep, "600"], resources: {requests: {cpu: 1}}}
    Worker:
      replicas: 1
      template:
        spec:
          containers:
          - {name: pytorch, image: busybox, command: [sleep, "600"], resources: {requests: {cpu: 1}}}
YAML

wl_of() {
  k get workloads -o json | jq -r '[.items[] | select(.metadata.ownerReferences[]? | .kind == "PyTorchJob" and .name == "pytorch-low")][].metadata.name'
}
templates() { k get pytorchjob pytorch-low -o json | jq -c '[.spec.pytorchReplicaSpecs[] | .template.spec.nodeSelector]'; }
condition() { k get pytorchjob pytorch-low -o jsonpath="{.status.conditions[?(@.type==\"$1\")].status}"; }
wait_until 15 "the PyTorchJob's Workload" '[ -n "$(wl_of)" ]'
low=$(wl_of)
expect_eq "its priority is its WorkloadPriorityClass's" "$(jp workload "$low" '{.spec.priority}')" "100"
expect_eventually 15 "it is admitted and resumed" "jp pytorchjob pytorch-low '{.spec.runPolicy.suspend}'" "false"
expect_eq "with the flavor's node selector in both replicas' templates" "$(templates)" \
  '[{"instance-type":"on-demand"},{"instance-type":"on-demand"}]'
expect_eventually 10 "it runs (the runner's Running condition)" "condition Running" "True"

k create -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: Job
metadata:
  name: high
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: user-queue, kueue.x-k8s.io/priority-class: high}
spec:
  parallelism: 2
  completions: 2
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox, command: [sleep, "600"], resources: {requests: {cpu: 1}}}]
YAML
expect_eventually 20 "preempted, the PyTorchJob is suspended" "jp pytorchjob pytorch-low '{.spec.runPolicy.suspend}'" "true"
expect_eq "with both replicas' templates restored" "$(templates)" "[null,null]"
expect_eq "its Workload evicted as preempted" "$(wl_cond "$low" Evicted reason)" "Preempted"
expect_eventually 15 "its pods stop (the runner)" "condition Running" "False"
expect_eventually 15 "its quota is released" "wl_cond $low QuotaReserved" "False"
expect_eventually 15 "the high-priority Job runs in its place" "jp job high '{.spec.suspend}'" "false"

e2e_failed_checks
e2e_pass "a PyTorchJob queued at its WorkloadPriorityClass's priority, preempted, suspended with its templates restored"
