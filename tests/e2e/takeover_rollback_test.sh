#!/usr/bin/env bash
# `kueuepp takeover --rollback` after a takeover of a cluster Kueue v0.14 left
# (tests/e2e/takeover.sh sets it up): the objects are moved back to v1beta1 storage
# through kueuepp's conversion, Kueue's CRDs (v1beta1 only) are put back by update,
# Kueue's webhook configurations come back from the takeover's saved copies, kueuepp's
# go, and Kueue's Deployment is scaled back up; every Workload keeps its admission.
#
# usage: takeover_rollback_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
. "$(dirname "$0")/replicas.sh"
. "$(dirname "$0")/takeover.sh"

tk_setup_kueue "$TK_FIXTURES/kueue-crds-v0.14" v1beta1
tk_start_kueuepp
out=$(tk_takeover) || fail "the takeover failed: $out"
got=$(tk_curl GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions/workloads.kueue.x-k8s.io |
  jq -c '[.spec.conversion.strategy, .status.storedVersions]')
expect_eq "taken over first" "$got" '["Webhook",["v1beta2"]]'

out=$(tk_takeover --rollback --kueue-crds "$TK_FIXTURES/kueue-crds-v0.14") || fail "the rollback failed: $out"
expect_match "the Workloads are moved back to v1beta1" "$out" 'workloads.kueue.x-k8s.io: 4 objects rewritten as v1beta1'
got=$(tk_curl GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions | jq -r '[.items[]
  | select(.metadata.name | IN("resourceflavors.kueue.x-k8s.io", "clusterqueues.kueue.x-k8s.io", "workloads.kueue.x-k8s.io"))
  | "\(.metadata.name | split(".")[0])=\([.spec.versions[].name] | join(","))\(.status.storedVersions)"] | sort | join(" ")')
expect_eq "Kueue v0.14's CRDs are back, v1beta1 only" "$got" \
  'clusterqueues=v1beta1["v1beta1"] resourceflavors=v1beta1["v1beta1"] workloads=v1beta1["v1beta1"]'
got=$(tk_curl GET /apis/kueue.x-k8s.io/v1beta1/clusterqueues/cq | jq -r .spec.cohort)
expect_eq "the ClusterQueue reads as Kueue wrote it" "$got" team
got=$(tk_curl GET /apis/kueue.x-k8s.io/v1beta1/namespaces/default/workloads | jq -r '[.items[]
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
e2e_pass "a takeover rolled back: Kueue v0.14's CRDs, webhooks and controller back, admissions kept"
