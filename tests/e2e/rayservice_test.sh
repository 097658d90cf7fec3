#!/usr/bin/env bash
# RayService end to end through kubectl: Kueue's own examples/jobs/ray-service-sample.yaml
# applied unchanged to standalone serving the RayService and RayCluster CRDs (--crds) with
# a Configuration that enables ray.io/rayservice:
#   - the sample with in-tree autoscaling turned on is refused by vrayservice with Kueue's
#     message (the field named spec.rayClusterSpec, as Kueue names it);
#   - the sample is stored with its cluster suspended (spec.rayClusterConfig.suspend, by
#     mrayservice) and gets one Workload, owned by it, named with Kueue's prefix and hash,
#     with Kueue's pod sets head:1 and small-group:1 and their requests;
#   - while the quota is short it waits with Kueue's pending message;
#   - once quota frees its cluster is resumed with the flavor's node selector in the head's
#     and the worker group's templates, and it serves (the runner plays KubeRay: Ready);
#   - it never finishes: its Workload holds the quota while it serves, and its deletion
#     releases it.
#
# usage: rayservice_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/job_kind_lib.sh"
e2e_init "$@"
CRD=$E2E_SHARED/third-party-crds/ray.io_rayservices.yaml
CLUSTER_CRD=$E2E_SHARED/third-party-crds/ray.io_rayclusters.yaml
SAMPLE=$E2E_SHARED/kueue-examples/jobs/ray-service-sample.yaml
for f in "$CRD" "$CLUSTER_CRD" "$SAMPLE"; do
  if [ ! -f "$f" ]; then
    echo "skipped: needs $f"
    exit 77
  fi
done
cat >"$E2E_TMP/config.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
integrations:
  frameworks: [batch/job, ray.io/raycluster, ray.io/rayservice]
YAML
e2e_start --config "$E2E_TMP/config.yaml" --crds "$CRD" --crds "$CLUSTER_CRD"

# One flavor with a node label, QUOTA cpu.
on_demand_queue cpu=0 memory=16Gi

refused=$(k create -f "$SAMPLE" --dry-run=client -o json |
  jq '.metadata.name = "autoscaling-rayservice" | .spec.rayClusterConfig.enableInTreeAutoscaling = true' |
  k create -f - 2>&1 || true)
expect_match "with in-tree autoscaling it is refused with Kueue's message" "$refused" \
  'spec.rayClusterSpec.enableInTreeAutoscaling: Invalid value: true: a kueue managed job should only use autoscaling when workload slicing is enabled'

k create -f "$SAMPLE" >/dev/null
svc() { k get rayservice test-rayservice -o json | jq -r "$1"; }
workload() { k get workloads -o json | jq -r ".items[] | select(.metadata.ownerReferences[0].kind == \"RayService\") | $1"; }

expect_eq "the sample is stored with its cluster suspended (by mrayservice)" \
  "$(svc '"\(.spec.rayClusterConfig.suspend) \(.spec.suspend // "unset")"')" "true unset"
expect_eventually 15 "one Workload" "k get workloads -o name | wc -l | tr -d ' '" "1"
expect_eq "with Kueue's pod sets: the head and the worker group, with their requests" \
  "$(workload '[.spec.podSets[] | "\(.name):\(.count):\(.template.spec.containers[0].resources.requests.cpu)"] | join(",")')" \
  "head:1:2,small-group:1:1"
expect_match "named with Kueue's prefix and hash" "$(workload .metadata.name)" '^rayservice-test-rayservice-[0-9a-f]{5}$'
expect_eventually 15 "it waits with Kueue's pending message" \
  "workload '.status.conditions[]? | select(.type == \"QuotaReserved\") | .message' | grep -c \"^couldn't assign flavors to pod set head: insufficient quota for cpu in flavor on-demand\"" \
  "1"

# 2 (head) + 1 (worker) cpu.
on_demand_queue cpu=3 memory=16Gi
expect_eventually 20 "quota freed: its cluster is resumed" "svc .spec.rayClusterConfig.suspend" "false"
expect_eq "with the flavor's node selector in the head's and the worker group's templates" \
  "$(svc '[.spec.rayClusterConfig.headGroupSpec, .spec.rayClusterConfig.workerGroupSpecs[0] | .template.spec.nodeSelector["instance-type"] // "none"] | join(",")')" \
  "on-demand,on-demand"
expect_eventually 15 "it serves (the runner plays KubeRay) and holds its quota" \
  "echo \$(svc '.status.conditions[]? | select(.type == \"Ready\") | .status') \$(k get clusterqueue cluster-queue -o jsonpath='{.status.admittedWorkloads}')" \
  "True 1"
expect_eq "a service never finishes: its Workload is not Finished" \
  "$(workload '[.status.conditions[]? | select(.type == "Finished")] | length')" "0"
k delete rayservice test-rayservice >/dev/null
expect_eventually 15 "deleted, it releases the quota" \
  "k get clusterqueue cluster-queue -o jsonpath='{.status.admittedWorkloads}'" "0"

e2e_failed_checks
e2e_pass "Kueue's RayService sample queued with Kueue's pod sets, held, resumed on the flavor, served until deleted"
