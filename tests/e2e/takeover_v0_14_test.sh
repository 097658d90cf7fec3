#!/usr/bin/env bash
# `kueuepp takeover` of a cluster Kueue v0.14 left (CRDs that serve and store v1beta1 only;
# fixtures/kueue-crds-v0.14), end to end (tests/e2e/takeover.sh sets it up):
#   - --dry-run says what it would do and changes nothing;
#   - the takeover, interrupted after each step in turn (KUEUEPP_TAKEOVER_STOP_AFTER) and
#     run again, finishes: kueuepp's CRDs, v1beta2 stored only, Kueue scaled to zero and its
#     webhooks gone; every admitted Workload keeps its admission, no Job is suspended, the
#     pending one is admitted once quota frees; a run after the end changes nothing.
#
# usage: takeover_v0_14_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
. "$(dirname "$0")/replicas.sh"
. "$(dirname "$0")/takeover.sh"

tk_setup_kueue "$TK_FIXTURES/kueue-crds-v0.14" v1beta1
tk_start_kueuepp

out=$(tk_takeover --dry-run) || fail "the dry run failed: $out"
expect_match "the dry run names the steps" "$out" 'crds: 7 to update in place'
got=$(k get crd workloads.kueue.x-k8s.io -o jsonpath='{.spec.versions[*].name} {.status.storedVersions}')
expect_eq "and changes nothing" "$got" 'v1beta1 ["v1beta1"]'

for step in check scale-down webhooks crds migrate-storage; do
  rc=0
  out=$(KUEUEPP_TAKEOVER_STOP_AFTER=$step tk_takeover) || rc=$?
  expect_eq "the takeover stops after $step as told" "$rc" 3
  [ "$rc" = 3 ] || fail "takeover (stop after $step): $out"
done
out=$(tk_takeover) || fail "the takeover run after the interruptions failed: $out"
expect_match "it finishes" "$out" 'takeover: done'
tk_expect_kept
out=$(tk_takeover) || fail "a takeover run again failed: $out"
expect_match "run again, it finds every step done" "$out" 'trim-stored-versions: workloads.kueue.x-k8s.io stores v1beta2 only'

e2e_failed_checks
e2e_pass "a Kueue v0.14 cluster taken over in place through interruptions; admissions kept, nothing suspended"
