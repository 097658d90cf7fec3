#!/usr/bin/env bash
# A kind of job enabled in the Configuration whose CRD is not installed: the controller
# starts (ready), says once that it waits for the kind, and manages it once the CRD is
# applied: a JobSet created then is queued (a Workload of its pod sets) and held
# suspended.
#
# usage: jobset_crd_later_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
JOBSET_CRD=$E2E_SHARED/third-party-crds/jobset.x-k8s.io_jobsets.yaml
SAMPLE=$E2E_SHARED/kueue-examples/jobs/sample-jobset.yaml
if [ ! -f "$JOBSET_CRD" ] || [ ! -f "$SAMPLE" ]; then
  echo "skipped: needs $JOBSET_CRD and $SAMPLE"
  exit 77
fi
cat >"$E2E_TMP/config.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
integrations:
  frameworks: [batch/job, jobset.x-k8s.io/jobset]
YAML
e2e_start --config "$E2E_TMP/config.yaml"   # ready (e2e_start waits for /readyz) without the CRD

expect_eventually 10 "the controller says it waits for JobSets" \
  "grep -c 'watch of JobSet: the API server does not serve it' $E2E_LOG" "1"
apply_one_queue 10
k apply -f - >/dev/null <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: user-queue, namespace: default}
spec: {clusterQueue: cq}
YAML

# The CRD is too large for client-side apply's last-applied annotation: create it.
k create -f "$JOBSET_CRD" >/dev/null
wait_until 10 "the JobSet API is served" 'k get jobsets >/dev/null 2>&1'
js=$(k create -f "$SAMPLE" -o jsonpath='{.metadata.name}')
expect_eq "a JobSet created then is stored suspended" "$(jp jobset "$js" '{.spec.suspend}')" "true"
wl_of_jobset() {
  k get workloads -o json |
    jq -r --arg js "$js" '[.items[] | select(.metadata.ownerReferences[]? | .kind == "JobSet" and .name == $js)][].metadata.name'
}
# The watch retries with backoff (at most 5 s between tries for a kind served by a CRD).
expect_eventually 20 "and queued: its Workload has its pod sets" \
  "wl=\$(wl_of_jobset); [ -n \"\$wl\" ] && jp workload \$wl '{range .spec.podSets[*]}{.name} {end}'" "workers driver "
expect_eq "the wait was said once" "$(grep -c 'watch of JobSet: the API server does not serve it' "$E2E_LOG")" "1"

e2e_failed_checks
e2e_pass "an enabled kind without its CRD is waited for and managed once the CRD is applied"
