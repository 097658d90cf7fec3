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
. "$(dirname "$0")/job_kind_lib.sh"
e2e_init "$@"
SAMPLES=$E2E_SHARED/kueue-examples/jobs
require_crds "$E2E_SHARED"/third-party-crds/ray.io_{rayjobs,rayclusters}.yaml
require_files "$SAMPLES"/{ray-job-sample,ray-job-autoscaling-sample,ray-cluster-sample}.yaml
config=$(frameworks_config "[batch/job, ray.io/rayjob, ray.io/raycluster]")
# The RayJob runs a Ray program (no `sleep`): the default 10 s, 4 s here.
e2e_start --job-time-scale 2.5 --config "$config" "${E2E_CRD_FLAGS[@]}"

on_demand_queue cpu=0 memory=16Gi

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
expect_waits_for_quota "$(workload .metadata.name)" head

# 1 (head) + 1 (worker) + 0.5 (submitter) cpu.
on_demand_queue cpu=3 memory=16Gi
expect_resumed rayjob rayjob-sample
expect_eq "with the flavor's node selector in the head's, the worker group's and the submitter's templates" \
  "$(instance_types rayjob rayjob-sample '.spec.rayClusterSpec.headGroupSpec.template, .spec.rayClusterSpec.workerGroupSpecs[0].template, .spec.submitterPodTemplate')" \
  "on-demand,on-demand,on-demand"
expect_eventually 25 "it completes (the runner plays KubeRay) and its Workload finishes" \
  "workload '[.status.conditions[]? | select(.type == \"Finished\") | .reason] | join(\"\")'" "Succeeded"
expect_eq "as its status says" "$(rayjob '"\(.status.jobDeploymentStatus) \(.status.jobStatus)"')" "Complete SUCCEEDED"
expect_quota_released

# A RayCluster of its own (1 (head) + 1 (worker) cpu), created while the quota is 0.
on_demand_queue cpu=0 memory=16Gi
k create -f "$SAMPLES/ray-cluster-sample.yaml" >/dev/null
raycluster() { k get raycluster raycluster-complete -o json | jq -r "$1"; }
cluster_workload() { k get workloads -o json | jq -r ".items[] | select(.metadata.ownerReferences[0].kind == \"RayCluster\") | $1"; }
expect_eq "the RayCluster sample is stored suspended (by mraycluster)" "$(raycluster .spec.suspend)" "true"
expect_eventually 15 "it gets a Workload with Kueue's pod sets" \
  "cluster_workload '[.spec.podSets[] | \"\(.name):\(.count)\"] | join(\",\")'" "head:1,small-group:1"
expect_match "named with Kueue's prefix and hash" "$(cluster_workload .metadata.name)" '^raycluster-raycluster-complete-[0-9a-f]{5}$'
on_demand_queue cpu=3 memory=16Gi
expect_resumed raycluster raycluster-complete
expect_eq "with the flavor's node selector in both templates" \
  "$(instance_types raycluster raycluster-complete '.spec.headGroupSpec.template, .spec.workerGroupSpecs[0].template')" \
  "on-demand,on-demand"
expect_eventually 15 "it is ready (the runner) and holds its quota" \
  "echo \$(raycluster .status.state) \$(k get clusterqueue cluster-queue -o jsonpath='{.status.admittedWorkloads}')" "ready 1"
k delete raycluster raycluster-complete >/dev/null
expect_quota_released "deleted, it releases the quota"

e2e_failed_checks
e2e_pass "Kueue's RayJob and RayCluster samples queued with Kueue's pod sets, held, resumed on the flavor, run, finished or deleted"
