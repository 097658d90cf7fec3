#!/usr/bin/env bash
# Borrowing within a cohort, end to end. cq-a (2 CPU) and cq-b (4 CPU) share the cohort
# "team"; neither preempts.
#   1. a1 needs 4 CPU in cq-a: admitted at once by borrowing 2 CPU of cq-b's unused quota
#      (status.admission, the Job started with the flavor's node labels, cq-a's
#      flavorsReservation/flavorsUsage say total 4, borrowed 2).
#   2. While a1 runs, b1 (3 CPU) waits in cq-b: only 2 of its 4 CPU are unused.
#      a2 (4 CPU) waits in cq-a too.
#   3. a1 finishes: b1, which needs no borrowing, goes first; a2 keeps waiting, now because
#      cq-b uses its own quota ("1 more needed").
#   4. b1 finishes: a2 is admitted by borrowing again.
# The test ends a1 and b1 itself, once it has checked what holds while they run (as the
# Job controller would when their pods succeed), instead of waiting out a run time long
# enough for the checks on a busy machine; a2 runs its course on the job runner.
#
# usage: borrowing_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
e2e_start --job-time-scale 10

k apply -f - >/dev/null <<'EOF'
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
spec:
  nodeLabels: {e2e.kueuepp.dev/flavor: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq-a}
spec:
  cohortName: team
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources: [{name: cpu, nominalQuota: 2}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq-b}
spec:
  cohortName: team
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources: [{name: cpu, nominalQuota: 4}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq-a, namespace: default}
spec: {clusterQueue: cq-a}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq-b, namespace: default}
spec: {clusterQueue: cq-b}
EOF

# cq_usage CQ FIELD: "total/borrowed" of cpu in flavor default, FIELD flavorsUsage or flavorsReservation.
cq_usage() {
  k get clusterqueue "$1" -o json |
    jq -r --arg f "$2" '[.status[$f][]? | select(.name == "default") | .resources[] | select(.name == "cpu")
      | "\(.total)/\(.borrowed)"] | first // "none"'
}
admission() {
  k get workload "$1" -o json | jq -r '.status.admission // {} |
    "\(.clusterQueue) \([.podSetAssignments[]? | "\(.name):\(.count):cpu=\(.flavors.cpu):\(.resourceUsage.cpu)"] | join(","))"'
}
pending_because() { # WL REASON: the workload waits (QuotaReserved=False) for REASON
  [ "$(wl_cond "$1" QuotaReserved)" = False ] && [ "$(wl_cond "$1" QuotaReserved reason)" = "$2" ]
}
admitted() { [ "$(wl_cond "$1" Admitted)" = True ]; }
finished() { [ "$(wl_cond "$1" Finished)" = True ]; }
# finish_job JOB PODS: the Job's PODS pods succeeded; its status says so as the job
# runner's would (the runner then lets it be).
finish_job() {
  local now
  now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  k patch job "$1" --subresource=status --type=merge -p "$(jq -cn --argjson pods "$2" --arg now "$now" '{status: {
    active: 0, ready: 0, succeeded: $pods, completionTime: $now, conditions: [
      {type: "SuccessCriteriaMet", status: "True", reason: "CompletionsReached", lastTransitionTime: $now},
      {type: "Complete", status: "True", reason: "CompletionsReached", lastTransitionTime: $now}]}}')" >/dev/null
}

# 1. a1 borrows.
job_yaml name=a1 queue=lq-a cpu=1 parallelism=4 sleep=600 | k create -f - >/dev/null
a1=$(wait_wl_of_job a1)
wait_until 20 "a1 admitted" 'admitted "$a1"'
expect_eq "a1 admission (cq, podset:count:flavor:usage)" "$(admission "$a1")" "cq-a main:4:cpu=default:4"
expect_eq "a1 QuotaReserved" "$(wl_cond "$a1" QuotaReserved reason)/$(wl_cond "$a1" QuotaReserved message)" \
  "QuotaReserved/Quota reserved in ClusterQueue cq-a"
wait_until 10 "Job a1 unsuspended" '[ "$(jp job a1 "{.spec.suspend}")" = false ]'
expect_eq "Job a1 nodeSelector has the flavor's node labels" \
  "$(jp job a1 '{.spec.template.spec.nodeSelector.e2e\.kueuepp\.dev/flavor}')" default
expect_eq "Job a1 pod template labels kueue.x-k8s.io/{podset,local-queue-name,cluster-queue-name}" \
  "$(jp job a1 '{.spec.template.metadata.labels.kueue\.x-k8s\.io/podset} {.spec.template.metadata.labels.kueue\.x-k8s\.io/local-queue-name} {.spec.template.metadata.labels.kueue\.x-k8s\.io/cluster-queue-name}')" \
  "main lq-a cq-a"
wait_until 10 "cq-a status to show the borrowed quota" '[ "$(cq_usage cq-a flavorsUsage)" = 4/2 ]'
expect_eq "cq-a flavorsReservation cpu total/borrowed" "$(cq_usage cq-a flavorsReservation)" 4/2
expect_eq "cq-a admittedWorkloads" "$(jp clusterqueue cq-a '{.status.admittedWorkloads}')" 1
expect_eq "cq-b flavorsUsage cpu total/borrowed (lends, uses nothing)" "$(cq_usage cq-b flavorsUsage)" 0/0

# 2. b1 and a2 wait while a1 runs.
job_yaml name=b1 queue=lq-b cpu=1 parallelism=3 sleep=600 | k create -f - >/dev/null
b1=$(wait_wl_of_job b1)
wait_until 20 "b1 waiting for quota" 'pending_because "$b1" WaitingForQuota'
expect_eq "b1 waits: message" "$(wl_cond "$b1" QuotaReserved message)" \
  "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 1 more needed"
expect_eq "Job b1 stays suspended" "$(jp job b1 '{.spec.suspend}')" true
job_yaml name=a2 queue=lq-a cpu=1 parallelism=4 sleep=20 | k create -f - >/dev/null
a2=$(wait_wl_of_job a2)
wait_until 20 "a2 waiting for quota" 'pending_because "$a2" WaitingForQuota'
expect_eq "a2 waits: message (2 CPU left in the cohort)" "$(wl_cond "$a2" QuotaReserved message)" \
  "couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 2 more needed"
admitted "$a1" && ! finished "$a1" || fail "a1 finished before the waiting workloads were checked; the test is too slow"

# 3. a1 finishes: b1 (no borrowing) is admitted, a2 waits for cq-b's own quota.
finish_job a1 4
wait_until 20 "a1 to finish" 'finished "$a1"'
wait_until 20 "b1 admitted after a1 finished" 'admitted "$b1"'
expect_eq "b1 admission" "$(admission "$b1")" "cq-b main:3:cpu=default:3"
wait_until 10 "a2 to report the quota cq-b uses" \
  '[ "$(wl_cond "$a2" QuotaReserved message)" = "couldn'"'"'t assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 1 more needed" ]'
expect_eq "a2 still waits (reason)" "$(wl_cond "$a2" QuotaReserved reason)" WaitingForQuota
expect_eq "Job a2 stays suspended" "$(jp job a2 '{.spec.suspend}')" true
wait_until 10 "cq-b status with b1" '[ "$(cq_usage cq-b flavorsUsage)" = 3/0 ]'
wait_until 10 "cq-a status released" '[ "$(cq_usage cq-a flavorsUsage)" = 0/0 ]'
admitted "$b1" && ! finished "$b1" || fail "b1 finished before a2 was checked; the test is too slow"

# 4. b1 finishes: a2 borrows.
finish_job b1 3
wait_until 20 "a2 admitted after b1 finished" 'admitted "$a2"'
expect_eq "a2 admission" "$(admission "$a2")" "cq-a main:4:cpu=default:4"
expect_eq "b1 finished before a2 was admitted" "$(wl_cond "$b1" Finished)" True
wait_until 20 "a2 and the rest to finish" 'finished "$a2"'
for j in a1 b1 a2; do
  expect_eq "Job $j completed" "$(jp job $j '{.status.conditions[?(@.type=="Complete")].status}')" True
done
wait_until 10 "the queues to be empty" '[ "$(cq_usage cq-a flavorsReservation) $(cq_usage cq-b flavorsReservation)" = "0/0 0/0" ]'
e2e_pass "a 4-CPU job in a 2-CPU queue borrowed its cohort-mate's unused quota, and waited while the mate used it"
