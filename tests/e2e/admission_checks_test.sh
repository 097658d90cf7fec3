#!/usr/bin/env bash
# Admission checks, end to end: a ClusterQueue requires the AdmissionCheck "prov", whose
# controller (played here by kubectl, as an external controller would write it) sets the
# check's Active condition and then each Workload's check state.
#   1. Ready: the Workload of Job a1 gets QuotaReserved=True, Admitted=False
#      (UnsatisfiedAdmissionChecks) and status.admissionChecks [prov Pending]; its Job stays
#      suspended. The check set Ready (kubectl patch --subresource=status) admits it
#      (Admitted=True, reason Admitted) and the Job is unsuspended.
#   2. A check added to the ClusterQueue is listed (Pending) on the admitted a1, which keeps
#      running (Kueue does not take an admission back for it).
#   3. Retry (requeueAfterSeconds 4): r1 is evicted (AdmissionCheck), its quota released
#      and held (Requeued=False AdmissionCheck) until the delay has passed, then reserved
#      again with its checks reset to Pending (retryCount 1).
#   4. Rejected: x1 is deactivated (spec.active=false), evicted with
#      DeactivatedDueToAdmissionCheck, its quota released and not requeued; the Warning
#      event AdmissionCheckRejected is recorded.
#
# usage: admission_checks_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
e2e_start --job-time-scale 10

now() { date -u +%Y-%m-%dT%H:%M:%SZ; }

k apply -f - >/dev/null <<'EOF'
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: prov}
spec: {controllerName: example.com/provisioner}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: late}
spec: {controllerName: example.com/provisioner}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  admissionChecksStrategy:
    admissionChecks: [{name: prov}]
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources: [{name: cpu, nominalQuota: 4}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: default}
spec: {clusterQueue: cq}
EOF

cq_active() { jp clusterqueue cq '{.status.conditions[?(@.type=="Active")].status}/{.status.conditions[?(@.type=="Active")].reason}'; }
# The check's controller says it is active, as a real one would.
activate() {
  k patch admissioncheck "$1" --subresource=status --type=merge -p "{\"status\":{\"conditions\":[{\"type\":\"Active\",\"status\":\"True\",\"reason\":\"Active\",\"message\":\"The admission check is active\",\"lastTransitionTime\":\"$(now)\"}]}}" >/dev/null
}
# set_check WL STATE MESSAGE [EXTRA_JSON_FIELDS]: the check's controller sets prov's state.
set_check() {
  k patch workload "$1" --subresource=status --type=merge \
    -p "{\"status\":{\"admissionChecks\":[{\"name\":\"prov\",\"state\":\"$2\",\"lastTransitionTime\":\"$(now)\",\"message\":\"$3\"${4:+,$4}}]}}" >/dev/null
}
checks() { # WL: name/state/message of each listed check
  wl_json "$1" | jq -r '[.status.admissionChecks[]? | "\(.name)/\(.state)/\(.message)"] | join(" ")'
}
reserved() { [ "$(wl_cond "$1" QuotaReserved)" = True ]; }
admitted() { [ "$(wl_cond "$1" Admitted)" = True ]; }

wait_until 20 "cq inactive while prov is not active" '[ "$(cq_active)" = False/AdmissionCheckInactive ]'
activate prov
wait_until 20 "cq active once prov is" '[ "$(cq_active)" = True/Ready ]'

# 1. Pending, then Ready.
job_yaml name=a1 queue=lq cpu=1 sleep=600 | k create -f - >/dev/null
a1=$(wait_wl_of_job a1)
wait_until 20 "a1 reserved" 'reserved "$a1"'
wait_until 10 "a1's check listed" '[ -n "$(checks "$a1")" ]'
s=$(wl_json "$a1")
expect_eq "a1 Admitted while its check is pending" \
  "$(cond "$s" Admitted)/$(cond "$s" Admitted reason)/$(cond "$s" Admitted message)" \
  "False/UnsatisfiedAdmissionChecks/The workload has not all checks ready"
expect_eq "a1 status.admissionChecks" "$(checks "$a1")" "prov/Pending/"
expect_match "a1 check's lastTransitionTime" "$(jq -r '.status.admissionChecks[0].lastTransitionTime' <<<"$s")" \
  '^20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$'
expect_eq "a1 holds quota in cq" "$(jq -r .status.admission.clusterQueue <<<"$s")" cq
sleep 1
expect_eq "Job a1 stays suspended while the check is pending" "$(jp job a1 '{.spec.suspend}')" true
wait_until 10 "cq counts a1 reserving, not admitted" \
  '[ "$(jp clusterqueue cq "{.status.reservingWorkloads}/{.status.admittedWorkloads}")" = 1/0 ]'

set_check "$a1" Ready "provisioned"
wait_until 20 "a1 admitted once its check is Ready" 'admitted "$a1"'
s=$(wl_json "$a1")
expect_eq "a1 Admitted reason/message" "$(cond "$s" Admitted reason)/$(cond "$s" Admitted message)" \
  "Admitted/The workload is admitted"
expect_eq "a1 still reserved" "$(cond "$s" QuotaReserved)" True
wait_until 20 "Job a1 unsuspended" '[ "$(jp job a1 "{.spec.suspend}")" = false ]'
wait_until 10 "cq counts a1 admitted" \
  '[ "$(jp clusterqueue cq "{.status.reservingWorkloads}/{.status.admittedWorkloads}")" = 1/1 ]'
expect_eventually 10 "Admitted event on a1" \
  "k get events -n default -o json | jq -r --arg n \"$a1\" '[.items[] | select(.involvedObject.name == \$n and .reason == \"Admitted\") | .message] | first // \"\"' | sed 's/was [0-9]*s/was Ns/'" \
  "Admitted by ClusterQueue cq, wait time since reservation was Ns"

# 2. A check added to the queue: listed, a1 keeps its admission.
activate late
k patch clusterqueue cq --type merge -p '{"spec":{"admissionChecksStrategy":{"admissionChecks":[{"name":"prov"},{"name":"late"}]}}}' >/dev/null
wait_until 20 "late listed on a1" '[ "$(checks "$a1")" = "late/Pending/ prov/Ready/provisioned" ]'
sleep 1
s=$(wl_json "$a1")
expect_eq "a1 still admitted, not evicted" "$(cond "$s" Admitted)/$(cond "$s" Evicted)" "True/"
expect_eq "Job a1 still running" "$(jp job a1 '{.spec.suspend}')" false
k patch clusterqueue cq --type merge -p '{"spec":{"admissionChecksStrategy":{"admissionChecks":[{"name":"prov"}]}}}' >/dev/null
wait_until 20 "late dropped from a1" '[ "$(checks "$a1")" = "prov/Ready/provisioned" ]'

# 3. Retry.
job_yaml name=r1 queue=lq cpu=1 sleep=600 | k create -f - >/dev/null
r1=$(wait_wl_of_job r1)
wait_until 20 "r1 reserved with its check pending" 'reserved "$r1" && [ "$(checks "$r1")" = prov/Pending/ ]'
set_check "$r1" Retry "try again" '"requeueAfterSeconds":4'
retried_at=$SECONDS
wait_until 20 "r1 evicted" '[ "$(wl_cond "$r1" Evicted)" = True ]'
s=$(wl_json "$r1")
expect_eq "r1 Evicted reason/message" "$(cond "$s" Evicted reason)/$(cond "$s" Evicted message)" \
  'AdmissionCheck/Evicted due to AdmissionCheck in Retry state: "prov" (try again)'
expect_match "r1 requeueAt set" "$(jq -r '.status.requeueState.requeueAt // ""' <<<"$s")" '^20[0-9]{2}-'
wait_until 20 "r1's quota released" '[ "$(wl_cond "$r1" QuotaReserved)" = False ]'
s=$(wl_json "$r1")
expect_eq "r1 Requeued after the eviction" "$(cond "$s" Requeued)/$(cond "$s" Requeued reason)" False/AdmissionCheck
expect_eq "r1 admission cleared" "$(jq -c .status.admission <<<"$s")" null
expect_eq "r1 check reset" "$(checks "$r1")" "prov/Pending/Reset to Pending after eviction. Previously: Retry"
expect_eq "r1 retryCount" "$(jq -r '.status.admissionChecks[0].retryCount' <<<"$s")" 1
expect_eq "Job r1 suspended" "$(jp job r1 '{.spec.suspend}')" true
wait_until 30 "r1 reserved again after its backoff" 'reserved "$r1"'
[ $((SECONDS - retried_at)) -ge 3 ] || fail "r1 was reserved again $((SECONDS - retried_at)) s after Retry, before requeueAfterSeconds (4 s)"
s=$(wl_json "$r1")
expect_eq "r1 Requeued when the backoff finished" "$(cond "$s" Requeued)/$(cond "$s" Requeued reason)" True/BackoffFinished
expect_eq "r1 not admitted again until its check is Ready" "$(cond "$s" Admitted)/$(cond "$s" Admitted reason)" \
  False/UnsatisfiedAdmissionChecks
expect_eq "r1 check still pending" "$(jq -r '.status.admissionChecks[0].state' <<<"$s")" Pending
set_check "$r1" Ready ""
wait_until 20 "r1 admitted" 'admitted "$r1"'
wait_until 20 "Job r1 unsuspended" '[ "$(jp job r1 "{.spec.suspend}")" = false ]'

# 4. Rejected.
job_yaml name=x1 queue=lq cpu=1 sleep=600 | k create -f - >/dev/null
x1=$(wait_wl_of_job x1)
wait_until 20 "x1 reserved with its check pending" 'reserved "$x1" && [ "$(checks "$x1")" = prov/Pending/ ]'
set_check "$x1" Rejected "denied"
wait_until 20 "x1 deactivated" '[ "$(jp workload "$x1" "{.spec.active}" default)" = false ]'
wait_until 20 "x1's quota released" '[ "$(wl_cond "$x1" QuotaReserved)" = False ]'
s=$(wl_json "$x1")
expect_eq "x1 Evicted reason/message" "$(cond "$s" Evicted reason)/$(cond "$s" Evicted message)" \
  'DeactivatedDueToAdmissionCheck/The workload is deactivated due to AdmissionCheck in Rejected state: "prov" (denied)'
expect_eq "x1 Requeued" "$(cond "$s" Requeued)/$(cond "$s" Requeued reason)" False/DeactivatedDueToAdmissionCheck
expect_eq "x1 DeactivationTarget removed" "$(cond "$s" DeactivationTarget)" ""
expect_eq "Job x1 suspended" "$(jp job x1 '{.spec.suspend}')" true
expect_eventually 10 "AdmissionCheckRejected event on x1" \
  "k get events -n default -o json | jq -r --arg n \"$x1\" '[.items[] | select(.involvedObject.name == \$n and .reason == \"AdmissionCheckRejected\") | \"\\(.type): \\(.message)\"] | first // \"\"'" \
  'Warning: Deactivated due to AdmissionCheck in Rejected state: "prov" (denied)'
sleep 2
expect_eq "x1 not requeued" "$(wl_cond "$x1" QuotaReserved)/$(jp workload "$x1" '{.spec.active}' default)" False/false
s=$(wl_json "$a1")
expect_eq "a1 unaffected throughout" "$(cond "$s" Admitted)/$(cond "$s" Evicted)/$(jp job a1 '{.spec.suspend}')" "True//false"

e2e_pass "admission checks: Pending -> Ready admits and starts the Job; Retry evicts and requeues after its delay; Rejected deactivates"
