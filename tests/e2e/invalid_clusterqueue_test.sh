#!/usr/bin/env bash
# Malformed ClusterQueues, end to end: `kubectl apply` of each of these is refused with an
# error that names the field, and nothing is stored:
#   - a negative nominalQuota (Kueue's validating webhook: "must be greater than or equal to 0"),
#   - a malformed quantity (the CRD's quantity pattern),
#   - an unknown field, with --validate=strict,
#   - a missing required field (nominalQuota),
#   - an enum value that does not exist (stopPolicy),
#   - CEL rules: borrowingLimit without a cohort; a flavor listing fewer resources than
#     coveredResources,
#   - the same negative quantity as an update of an existing ClusterQueue.
# Then the controller still runs normally: healthy, the valid queue still accounts for the Job
# running in it and admits the next one when that finishes.
#
# usage: invalid_clusterqueue_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
e2e_start --job-time-scale 10

k apply -f - >/dev/null <<'EOF'
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: good}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources: [{name: cpu, nominalQuota: 2}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: default}
spec: {clusterQueue: good}
EOF

# cq NAME RESOURCES [SPEC_EXTRA] [COVERED]: a ClusterQueue whose one flavor lists RESOURCES.
cq() {
  cat <<EOF
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: $1}
spec:
  namespaceSelector: {}
  ${3:-}
  resourceGroups:
  - coveredResources: ${4:-[cpu]}
    flavors:
    - name: default
      resources: $2
EOF
}
# rejected WHAT NAME ERE [KUBECTL_ARGS...] < manifest: apply must fail with an error
# matching ERE, and no ClusterQueue NAME may be stored. (Fed by redirection, not a pipe:
# the checks must run in this shell to be counted.)
rejected() {
  local what=$1 name=$2 want=$3 out rc=0
  shift 3
  out=$(k apply "$@" -f - 2>&1) || rc=$?
  out=$(tr '\n' ' ' <<<"$out")
  if [ "$rc" -eq 0 ]; then
    expect_eq "$what: kubectl apply refused" "accepted: $out" "refused"
  else
    expect_match "$what: the error names the field" "$out" "$want"
  fi
  if k get clusterqueue "$name" >/dev/null 2>&1; then
    expect_eq "$what: not stored" "stored" "absent"
    k delete clusterqueue "$name" --wait=false >/dev/null 2>&1 || true
  fi
}

field='spec\.resourceGroups\[0\]\.flavors\[0\]\.resources\[0\]'
rejected "negative nominalQuota" bad-negative "$field\.nominalQuota: Invalid value: \"-1\": must be greater than or equal to 0" \
  < <(cq bad-negative '[{name: cpu, nominalQuota: -1}]')
rejected "malformed quantity" bad-quantity "$field\.nominalQuota: Invalid value: \"1x\": .*should match" \
  < <(cq bad-quantity '[{name: cpu, nominalQuota: "1x"}]')
rejected "unknown field (--validate=strict)" bad-unknown 'unknown field "spec\.bogusField"' --validate=strict \
  < <(cq bad-unknown '[{name: cpu, nominalQuota: 1}]' 'bogusField: 3')
rejected "missing nominalQuota" bad-missing "$field\.nominalQuota: Required value" \
  < <(cq bad-missing '[{name: cpu}]')
rejected "unknown stopPolicy" bad-enum 'spec\.stopPolicy: Unsupported value: "Paused": supported values: "None", "Hold", "HoldAndDrain"' \
  < <(cq bad-enum '[{name: cpu, nominalQuota: 1}]' 'stopPolicy: Paused')
rejected "CEL: borrowingLimit without a cohort" bad-cel-borrowing 'spec: Invalid value: "object": borrowingLimit must be nil when cohort is empty' \
  < <(cq bad-cel-borrowing '[{name: cpu, nominalQuota: 1, borrowingLimit: 1}]')
rejected "CEL: fewer resources than coveredResources" bad-cel-resources \
    'spec\.resourceGroups\[0\]: Invalid value: "object": flavors must have the same number of resources as the coveredResources' \
  < <(cq bad-cel-resources '[{name: cpu, nominalQuota: 1}]' '' '[cpu, memory]')

# The same negative quantity as an update of the existing queue, while a Job runs in it.
job_yaml name=before queue=lq cpu=1 parallelism=2 sleep=100 | k create -f - >/dev/null
before=$(wait_wl_of_job before)
wait_until 20 "Job before admitted" '[ "$(wl_cond "$before" Admitted)" = True ]'
out=$(k patch clusterqueue good --type json \
  -p '[{"op": "replace", "path": "/spec/resourceGroups/0/flavors/0/resources/0/nominalQuota", "value": "-2"}]' 2>&1) && rc=0 || rc=$?
out=$(tr '\n' ' ' <<<"$out")
if [ "$rc" -eq 0 ]; then
  expect_eq "negative nominalQuota on update: refused" "accepted: $out" refused
  k patch clusterqueue good --type json \
    -p '[{"op": "replace", "path": "/spec/resourceGroups/0/flavors/0/resources/0/nominalQuota", "value": 2}]' >/dev/null
else
  expect_match "negative nominalQuota on update: the error names the field" "$out" \
    "$field\.nominalQuota: Invalid value: \"-2\": must be greater than or equal to 0"
fi
expect_eq "the valid queue keeps its quota" "$(jp clusterqueue good '{.spec.resourceGroups[0].flavors[0].resources[0].nominalQuota}')" 2

# The controller runs normally: healthy, still accounts for the running Job, admits the next.
kill -0 "$E2E_PID" 2>/dev/null || fail "kueuepp exited"
expect_eq "/healthz" "$(probe /healthz)" ok
expect_eq "/readyz" "$(probe /readyz)" ok
expect_eq "only the valid ClusterQueue exists" "$(k get clusterqueues -o jsonpath='{.items[*].metadata.name}')" good
job_yaml name=after queue=lq cpu=1 parallelism=2 sleep=10 | k create -f - >/dev/null
# shellcheck disable=SC2034 # w is used in the conditions below
w=$(wait_wl_of_job after)
expect_eventually 10 "Job after waits while Job before holds the quota" \
  'echo "$(wl_cond "$w" QuotaReserved)/$(wl_cond "$w" QuotaReserved reason)"' False/WaitingForQuota
expect_eventually 10 "the queue's status still counts Job before" \
  'jp clusterqueue good "{.status.reservingWorkloads}/{.status.flavorsReservation[0].resources[0].total}"' 1/2
[ "$(wl_cond "$before" Finished)" != True ] || fail "Job before finished before the checks; the test is too slow"
wait_until 30 "Job before to finish" '[ "$(wl_cond "$before" Finished)" = True ]'
wait_until 20 "Job after admitted" '[ "$(wl_cond "$w" Admitted)" = True ]'
wait_until 20 "Job after to finish" '[ "$(wl_cond "$w" Finished)" = True ]'
expect_eq "Jobs completed" "$(jp job before '{.status.conditions[?(@.type=="Complete")].status}') $(jp job after '{.status.conditions[?(@.type=="Complete")].status}')" "True True"
expect_eq "the valid queue is active" "$(jp clusterqueue good '{.status.conditions[?(@.type=="Active")].status}')" True
e2e_pass "every malformed ClusterQueue was refused with its field named, and the controller kept working"
