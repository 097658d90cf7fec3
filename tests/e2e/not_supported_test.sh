#!/usr/bin/env bash
# What kueuepp does not implement is never admitted on quota alone, end to end:
#   - a ClusterQueue using a ResourceFlavor with a topologyName (topology-aware scheduling)
#     is Active=False with reason NotSupported and a message naming the flavor, and its
#     Job stays suspended;
#   - a ClusterQueue with spec.admissionScope (admission fair sharing) likewise;
#   - a Job whose pod template asks for a topology (kueue.x-k8s.io/podset-required-topology)
#     stays suspended, its Workload QuotaReserved=False reason NotSupported, while the Job
#     queued behind it in the same queue is admitted.
#
# usage: not_supported_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
e2e_start --job-time-scale 10

apply_one_queue 4
k apply -f - >/dev/null <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: tas}
spec:
  nodeLabels: {node-group: tas}
  topologyName: default
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: tas-cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: tas
      resources: [{name: cpu, nominalQuota: 4}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: afs-cq}
spec:
  namespaceSelector: {}
  admissionScope: {admissionMode: UsageBasedAdmissionFairSharing}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources: [{name: cpu, nominalQuota: 4}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: tas-lq, namespace: default}
spec: {clusterQueue: tas-cq}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: afs-lq, namespace: default}
spec: {clusterQueue: afs-cq}
YAML

active() { jp clusterqueue "$1" '{.status.conditions[?(@.type=="Active")].status}/{.status.conditions[?(@.type=="Active")].reason}'; }
expect_eventually 20 "the ClusterQueue with a topology flavor is inactive" "active tas-cq" "False/NotSupported"
expect_match "and says why" "$(jp clusterqueue tas-cq '{.status.conditions[?(@.type=="Active")].message}')" \
  'ResourceFlavor\(s\) with a topologyName \[tas\].*topology-aware scheduling'
expect_eventually 20 "the ClusterQueue with admissionScope is inactive" "active afs-cq" "False/NotSupported"
expect_match "and says why" "$(jp clusterqueue afs-cq '{.status.conditions[?(@.type=="Active")].message}')" \
  'spec.admissionScope.*admission fair sharing'

job_yaml name=on-tas queue=tas-lq sleep=10 | k create -f - >/dev/null
job_yaml name=on-afs queue=afs-lq sleep=10 | k create -f - >/dev/null
# The topology annotation goes on the pod template, where Kueue reads it.
job_yaml name=topo queue=lq sleep=10 |
  sed 's|^  template:$|  template:\n    metadata: {annotations: {kueue.x-k8s.io/podset-required-topology: kubernetes.io/hostname}}|' |
  k create -f - >/dev/null
topo_wl=$(wait_wl_of_job topo)
job_yaml name=plain queue=lq sleep=10 | k create -f - >/dev/null

expect_eventually 20 "the Job asking for a topology waits with reason NotSupported" \
  "echo \$(wl_cond $topo_wl QuotaReserved)/\$(wl_cond $topo_wl QuotaReserved reason)" "False/NotSupported"
expect_match "its message names the annotation" "$(wl_cond "$topo_wl" QuotaReserved message)" \
  'pod set main requests a topology \(annotation kueue.x-k8s.io/podset-required-topology\)'
expect_eventually 20 "the Job behind it in the same queue is admitted" "jp job plain '{.spec.suspend}'" "false"
expect_eq "the Jobs in the inactive queues and the topology Job stay suspended" \
  "$(jp job on-tas '{.spec.suspend}') $(jp job on-afs '{.spec.suspend}') $(jp job topo '{.spec.suspend}')" "true true true"

e2e_failed_checks
e2e_pass "topology-aware flavors and requests and admission fair sharing are refused with reasons, never admitted on quota alone"
