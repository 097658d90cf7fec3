#!/usr/bin/env bash
# JobSet (jobset.x-k8s.io/v1alpha2) end to end through kubectl, with Kueue's own
# examples/jobs/sample-jobset.yaml applied unchanged to standalone serving the JobSet CRD
# (--crds twice) with a Configuration that enables the integration:
#   - it is stored suspended (mjobset) and gets one Workload, owned by it, with one pod
#     set per replicated job as Kueue names and counts them (workers 1, driver 1);
#   - while the driver's quota is short it waits with Kueue's pending message;
#   - once quota frees it is resumed with each pod set's flavor in its replicated job's
#     template: workers on spot, the driver on on-demand (two flavors, one Workload);
#   - the runner's child Jobs (<jobset>-<rjob>-<index>, owned by it) are not queued even
#     beside a default LocalQueue: one Workload still, no child suspended nor labelled;
#   - it completes when its child Jobs complete, and the quota is released.
#
# usage: jobset_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/job_kind_lib.sh"
e2e_init "$@"
SAMPLE=$E2E_SHARED/kueue-examples/jobs/sample-jobset.yaml
require_crds "$E2E_SHARED/third-party-crds/jobset.x-k8s.io_jobsets.yaml"
require_files "$SAMPLE"
config=$(frameworks_config "[batch/job, jobset.x-k8s.io/jobset]")
# The sample sleeps 100 s: 5 s here.
e2e_start --job-time-scale 20 --config "$config" "${E2E_CRD_FLAGS[@]}"

# Workers (1 cpu) fit spot; the driver (2 cpu) needs on-demand, which has 1 cpu at first.
cluster_queue() {
  k apply -f - >/dev/null <<YAML
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: spot}
spec: {nodeLabels: {instance-type: spot}}
---
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
    - name: spot
      resources: [{name: cpu, nominalQuota: 1}, {name: memory, nominalQuota: 1Gi}]
    - name: on-demand
      resources: [{name: cpu, nominalQuota: $1}, {name: memory, nominalQuota: 1Gi}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: user-queue, namespace: default}
spec: {clusterQueue: cluster-queue}
---
# A default LocalQueue: an unlabelled Job here would be queued to it (LocalQueue
# defaulting), so the child Jobs are left alone only by the parent rule.
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: default, namespace: default}
spec: {clusterQueue: cluster-queue}
YAML
}
cluster_queue 1

js=$(k create -f "$SAMPLE" -o jsonpath='{.metadata.name}')
expect_eq "the sample JobSet is stored suspended" "$(jp jobset "$js" '{.spec.suspend}')" "true"

wl=$(wait_wl_of_owner JobSet "$js")
expect_match "named as Kueue names it" "$wl" "^jobset-$js-[0-9a-f]{5}\$"
expect_eq "one pod set per replicated job, Kueue's names and counts" \
  "$(jp workload "$wl" '{range .spec.podSets[*]}{.name}={.count} {end}')" "workers=1 driver=1 "

expect_waits_for_quota "$wl" driver
expect_eq "and is still suspended" "$(jp jobset "$js" '{.spec.suspend}')" "true"

cluster_queue 2
expect_resumed jobset "$js"
expect_eq "the workers' template has spot's node selector" \
  "$(jp jobset "$js" '{.spec.replicatedJobs[0].template.spec.template.spec.nodeSelector.instance-type}')" "spot"
expect_eq "the driver's template has on-demand's" \
  "$(jp jobset "$js" '{.spec.replicatedJobs[1].template.spec.template.spec.nodeSelector.instance-type}')" "on-demand"
expect_eq "one Workload admitted on two flavors" \
  "$(jp workload "$wl" '{range .status.admission.podSetAssignments[*]}{.name}={.flavors.cpu} {end}')" \
  "workers=spot driver=on-demand "

expect_eventually 15 "the runner creates the child Jobs" \
  "k get jobs -o jsonpath='{range .items[*]}{.metadata.name} {end}'" "$js-driver-0 $js-workers-0 "
expect_eq "owned by the JobSet" "$(jp job "$js-workers-0" '{.metadata.ownerReferences[0].kind}')" "JobSet"
expect_eq "the child Jobs are not queued themselves" "$(k get workloads -o name | wc -l | tr -d ' ')" "1"
expect_eq "nor suspended" "$(k get jobs -o jsonpath='{range .items[*]}{.spec.suspend} {end}')" "false false "
expect_eq "nor given the default LocalQueue" "$(jp job "$js-workers-0" '{.metadata.labels.kueue\.x-k8s\.io/queue-name}')" ""
expect_eq "a child's pods are placed by its replicated job's flavor" \
  "$(jp job "$js-driver-0" '{.spec.template.spec.nodeSelector.instance-type}')" "on-demand"

expect_eventually 25 "the JobSet completes with its child Jobs" \
  "k get jobset $js -o jsonpath='{.status.conditions[?(@.type==\"Completed\")].status}'" "True"
expect_eventually 15 "its Workload finishes" "wl_cond $wl Finished" "True"
expect_quota_released

e2e_failed_checks
e2e_pass "the sample JobSet queued as one Workload of two pod sets, held, resumed on two flavors, run and finished"
