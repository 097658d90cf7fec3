#!/usr/bin/env bash
# `kueuepp takeover` of a cluster a later Kueue left (CRDs that serve v1beta1 and v1beta2
# and store v1beta2, with objects once stored as v1beta1 in status.storedVersions;
# fixtures/kueue-crds), end to end (tests/e2e/takeover.sh sets it up):
#   - a Topology in use is refused, naming it and what to do, and nothing is changed;
#   - once it is deleted the takeover runs through: kueuepp's CRDs, v1beta2 stored only,
#     Kueue scaled to zero and its webhooks gone; every admitted Workload keeps its
#     admission, no Job is suspended, the pending one is admitted once quota frees;
#   - Kueue's selectableFields stay: Workloads are selected by their ClusterQueue.
#
# usage: takeover_latest_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
. "$(dirname "$0")/replicas.sh"
. "$(dirname "$0")/takeover.sh"

tk_setup_kueue "$TK_FIXTURES/kueue-crds" v1beta2
# Kueue up to v0.15 stored v1beta1: the CRDs still say so after an upgrade.
for crd in resourceflavors clusterqueues localqueues cohorts workloadpriorityclasses admissionchecks workloads; do
  tk_curl GET "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/$crd.kueue.x-k8s.io" |
    jq -c '.status.storedVersions = ["v1beta1", "v1beta2"]' |
    tk_put "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/$crd.kueue.x-k8s.io/status" >/dev/null
done
k apply -f - >/dev/null <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: Topology
metadata: {name: racks}
spec:
  levels: [{nodeLabel: topology.kubernetes.io/zone}]
YAML
tk_start_kueuepp

rc=0
out=$(tk_takeover) || rc=$?
expect_eq "a Topology in use is refused" "$rc" 1
expect_match "naming it and what to do" "$out" '1 Topology \(racks\): kueuepp does not implement topology-aware scheduling; to go on: delete them'
got=$(k get deployment -n kueue-system kueue-controller-manager -o jsonpath='{.spec.replicas}')
expect_eq "and nothing is changed" "$got" 1

k delete topology racks >/dev/null
out=$(tk_takeover) || fail "the takeover failed: $out"
expect_match "the takeover rewrites every Workload" "$out" 'workloads.kueue.x-k8s.io: 4 objects rewritten as v1beta2'
tk_expect_kept
# (A field the CRD does not declare selectable is refused with 400, and curl -f fails.)
selected() { tk_curl GET "/apis/kueue.x-k8s.io/v1beta2/namespaces/default/workloads?fieldSelector=status.admission.clusterQueue%3D$1" |
  jq '.items | length'; }
expect_eq "Kueue's selectable field is kept: Workloads selected by their ClusterQueue" "$(selected cq) $(selected other)" "4 0"

e2e_failed_checks
e2e_pass "a later Kueue's cluster taken over in place after a refusal; admissions kept, nothing suspended"
