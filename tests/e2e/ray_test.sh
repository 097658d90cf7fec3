#!/usr/bin/env bash
# RayJob end to end through kubectl: Kueue's own examples/jobs/ray-job-sample.yaml applied
# unchanged to standalone serving the RayJob CRD (--crds) with a Configuration that enables
# ray.io/rayjob:
#   - ray-job-autoscaling-sample.yaml is refused by vrayjob with Kueue's message (Kueue
#     allows in-tree autoscaling only with the alpha ElasticJobsViaWorkloadSlices gate);
#   - ray-job-sample.yaml is stored suspended (spec.suspend, by mrayjob) and gets one
#     Workload, owned by it, named with Kueue's prefix and hash, with Kueue's pod sets:
#     head:1, small-group:1, and submitter:1 (the CRD defaults submissionMode to K8sJobMode);
#   - while the quota is short it waits with Kueue's pending message;
#   - once quota frees it is resumed with the flavor's node selector in the head's, the
#     worker group's and the submitter's templates, runs (the runner plays KubeRay) and
#     completes; its Workload finishes and the quota is released;
#   - ray-cluster-sample.yaml (with ray.io/raycluster enabled and its CRD served) is
#     stored suspended, gets one Workload with pod sets head:1, small-group:1, is resumed
#     with the flavor's node selector, becomes ready (the runner) and holds its quota
#     until it is deleted (Kueue never finishes a RayCluster's Workload).
#
# usage: ray_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
CRD=$E2E_SHARED/third-party-crds/ray.io_rayjobs.yaml
CLUSTER_CRD=$E2E_SHARED/third-party-crds/ray.io_rayclusters.yaml
SAMPLES=$E2E_SHARED/kueue-examples/jobs
for f in "$CRD" "$CLUSTER_CRD" "$SAMPLES/ray-job-sample.yaml" "$SAMPLES/ray-job-autoscaling-sample.yaml" \
  "$SAMPLES/ray-cluster-sample.yaml"; do
  if [ ! -f "$f" ]; then
    echo "skipped: needs $f"
    exit 77
  fi
done
cat >"$E2E_TMP/config.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
integrations:
  frameworks: [batch/job, ray.io/rayjob, ray.io/raycluster]
YAML
# The RayJob runs a Ray program (no `sleep`): the default 10 s, 4 s here.
e2e_start --job-time-scale 2.5 --config "$E2E_TMP/config.yaml" --crds "$CRD" --crds "$CLUSTER_CRD"

# One flavor with a node label, QUOTA cpu.
cluster_queue() {
  k apply -f - >/dev/null <<YAML
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
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: on-demand
      resources: [{name: cpu, nominalQuota: $1}, {name: memory, nominalQuota: 16Gi}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: user-queue, namespace: default}
spec: {clusterQueue: cluster-queue}
YAML
}
cluster_queue 0

refused=$(k create -f "$SAMPLES/ray-job-autoscaling-sample.yaml" 2>&1 || true)
expect_match "ray-job-autoscaling-sample.yaml is refused with Kueue's message" "$refused" \
  'spec.rayClusterSpec.enableInTreeAutoscaling: Invalid value: true: a kueue managed job should only use autoscaling when workload slicing is enabled'

k create -f "$SAMPLES/ray-job-sample.yaml" >/dev/null
rayjob() { k get rayjob rayjob-sample -o json | jq -r "$1"; }
workload() { k get workloads -o json | jq -r ".items[] | select(.metadata.ownerReferences[0].kind == \"RayJob\") | $1"; }

expect_eq "the sample is stored suspended (spec.suspend, by mrayjob)" "$(rayjob .spec.suspend)" "true"
expect_eventually 15 "one Workload" "k get workloads -o name | wc -l | tr -d ' '" "1"
expect_eq "with Kueue's pod sets: head, the worker group, the submitter" \
  "$(workload '[.spec.podSets[] | "\(.name):\(.count)"] | join(",")')" "head:1,small-group:1,submitter:1"
expect_eq "the submitter is KubeRay's default (the head's image, 500m cpu)" \
  "$(workload '.spec.podSets[2].template.spec.containers[0] | "\(.name) \(.image) \(.resources.requests.cpu)"')" \
  "ray-job-submitter rayproject/ray:2.9.0 500m"
expect_match "named with Kueue's prefix and hash" "$(workload .metadata.name)" '^rayjob-rayjob-sample-[0-9a-f]{5}$'
expect_eventually 15 "it waits with Kueue's pending message" \
  "workload '.status.conditions[]? | select(.type == \"QuotaReserved\") | .message' | grep -c \"^couldn't assign flavors to pod set head: insufficient quota for cpu in flavor on-demand\"" \
  "1"

# 1 (head) + 1 (worker) + 0.5 (submitter) cpu.
cluster_queue 3
expect_eventually 20 "quota freed: it is resumed" "rayjob .spec.suspend" "false"
expect_eq "with the flavor's node selector in the head's, the worker group's and the submitter's templates" \
  "$(rayjob '[.spec.rayClusterSpec.headGroupSpec, .spec.rayClusterSpec.workerGroupSpecs[0], .spec.submitterPodTemplate | (.template // .) | .spec.nodeSelector["instance-type"] // "none"] | join(",")')" \
  "on-demand,on-demand,on-demand"
expect_eventually 25 "it completes (the runner plays KubeRay) and its Workload finishes" \
  "workload '[.status.conditions[]? | select(.type == \"Finished\") | .reason] | join(\"\")'" "Succeeded"
expect_eq "as its status says" "$(rayjob '"\(.status.jobDeploymentStatus) \(.status.jobStatus)"')" "Complete SUCCEEDED"
expect_eventually 15 "and the quota is released" \
  "k get clusterqueue cluster-queue -o jsonpath='{.status.admittedWorkloads}'" "0"

# A RayCluster of its own (1 (head) + 1 (worker) cpu), created while the quota is 0.
cluster_queue 0
k create -f "$SAMPLES/ray-cluster-sample.yaml" >/dev/null
raycluster() { k get raycluster raycluster-complete -o json | jq -r "$1"; }
cluster_workload() { k get workloads -o json | jq -r ".items[] | select(.metadata.ownerReferences[0].kind == \"RayCluster\") | $1"; }
expect_eq "the RayCluster sample is stored suspended (by mraycluster)" "$(raycluster .spec.suspend)" "true"
expect_eventually 15 "it gets a Workload with Kueue's pod sets" \
  "cluster_workload '[.spec.podSets[] | \"\(.name):\(.count)\"] | join(\",\")'" "head:1,small-group:1"
expect_match "named with Kueue's prefix and hash" "$(cluster_workload .metadata.name)" '^raycluster-raycluster-complete-[0-9a-f]{5}$'
cluster_queue 3
expect_eventually 20 "quota freed: it is resumed" "raycluster .spec.suspend" "false"
expect_eq "with the flavor's node selector in both templates" \
  "$(raycluster '[.spec.headGroupSpec, .spec.workerGroupSpecs[0] | .template.spec.nodeSelector["instance-type"] // "none"] | join(",")')" \
  "on-demand,on-demand"
expect_eventually 15 "it is ready (the runner) and holds its quota" \
  "echo \$(raycluster .status.state) \$(k get clusterqueue cluster-queue -o jsonpath='{.status.admittedWorkloads}')" "ready 1"
k delete raycluster raycluster-complete >/dev/null
expect_eventually 15 "deleted, it releases the quota" \
  "k get clusterqueue cluster-queue -o jsonpath='{.status.admittedWorkloads}'" "0"

e2e_failed_checks
e2e_pass "Kueue's RayJob and RayCluster samples queued with Kueue's pod sets, held, resumed on the flavor, run, finished or deleted"
