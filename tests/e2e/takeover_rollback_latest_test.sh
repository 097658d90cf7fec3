#!/usr/bin/env bash
# `kueuepp takeover --rollback` after a takeover of a cluster a later Kueue left (CRDs
# that serve v1beta1 and v1beta2 and store v1beta2; fixtures/kueue-crds; tests/e2e/
# takeover.sh sets it up): the objects stay stored as v1beta2, which Kueue's CRDs store
# too, Kueue's CRDs are put back by update (their own conversion, not kueuepp's),
# Kueue's webhook configurations come back, kueuepp's go, Kueue's Deployment is scaled
# back up, and every Workload keeps its admission.
#
# usage: takeover_rollback_latest_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
. "$(dirname "$0")/replicas.sh"
. "$(dirname "$0")/takeover.sh"

tk_setup_kueue "$TK_FIXTURES/kueue-crds" v1beta2
tk_start_kueuepp
out=$(tk_takeover) || fail "the takeover failed: $out"
got=$(tk_curl GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions/workloads.kueue.x-k8s.io |
  jq -c '[.spec.conversion.strategy, .status.storedVersions]')
expect_eq "taken over first" "$got" '["Webhook",["v1beta2"]]'

out=$(tk_takeover --rollback --kueue-crds "$TK_FIXTURES/kueue-crds") || fail "the rollback failed: $out"
expect_match "the Workloads' CRD is Kueue's again" "$out" 'rollback: workloads.kueue.x-k8s.io is Kueue.s again'
expect_eq "no object is moved: Kueue's CRDs store v1beta2 too" "$(grep -c 'objects rewritten as' <<<"$out" || true)" 0
got=$(tk_curl GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions | jq -r '[.items[]
  | select(.metadata.name | IN("resourceflavors.kueue.x-k8s.io", "clusterqueues.kueue.x-k8s.io", "workloads.kueue.x-k8s.io"))
  | "\(.metadata.name | split(".")[0])=\([.spec.versions[] | "\(.name):\(.storage)"] | join(","))/\(.spec.conversion.strategy)\(.status.storedVersions)"]
  | sort | join(" ")')
expect_eq "Kueue's CRDs are back: both versions, v1beta2 stored, Kueue's conversion" "$got" \
  'clusterqueues=v1beta1:false,v1beta2:true/None["v1beta2"] resourceflavors=v1beta1:false,v1beta2:true/None["v1beta2"] workloads=v1beta1:false,v1beta2:true/None["v1beta2"]'
got=$(tk_curl GET /apis/kueue.x-k8s.io/v1beta2/clusterqueues/cq | jq -r .spec.cohortName)
expect_eq "the ClusterQueue reads as Kueue wrote it" "$got" team
got=$(tk_curl GET /apis/kueue.x-k8s.io/v1beta2/namespaces/default/workloads | jq -r '[.items[]
  | select(.status.admission.clusterQueue == "cq") | .metadata.name] | sort | join(" ")')
expect_eq "every admitted Workload keeps its admission" "$got" "job-run-1-kueue job-run-2-kueue job-run-3-kueue"
got=$( (tk_curl GET /apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations
        tk_curl GET /apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations) |
  jq -r '.items[].metadata.name' | sort | xargs)
expect_eq "Kueue's webhook configurations are back, kueuepp's gone" "$got" \
  "kueue-mutating-webhook-configuration kueue-validating-webhook-configuration"
got=$(tk_curl GET /apis/apps/v1/namespaces/kueue-system/deployments/kueue-controller-manager |
  jq -r '"\(.spec.replicas) \(.metadata.annotations["kueuepp.io/takeover-replicas"] // "-")"')
expect_eq "Kueue's controller is scaled back up" "$got" "1 -"

e2e_failed_checks
e2e_pass "a takeover of a later Kueue rolled back: its CRDs, webhooks and controller back, admissions kept"
