#!/usr/bin/env bash
# ClusterQueue stopPolicy, end to end, on a 2-CPU queue where r1 (2 CPU) runs and p1
# (1 CPU) waits.
#   1. Hold: the ClusterQueue turns Active=False (Stopped, "Can't admit new workloads: is
#      stopped."); pending p1, and p2 submitted now, stay pending with QuotaReserved=False
#      Suspended "ClusterQueue cq is inactive"; the admitted r1 keeps running.
#   2. HoldAndDrain: r1 is evicted (Evicted=True ClusterQueueStopped "The ClusterQueue is
#      stopped", Requeued=False), its Job suspended and its quota released; nothing holds
#      quota in the stopped queue.
#   3. None: Active=True again, r1 gets Requeued=True ClusterQueueRestarted and is admitted
#      again (first in queue order) while p1 and p2 wait for quota; once the quota is raised
#      they are admitted too and complete.
#
# usage: stop_policy_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
e2e_start --job-time-scale 10

apply_one_queue 2

admitted() { [ "$(wl_cond "$1" Admitted)" = True ]; }
finished() { [ "$(wl_cond "$1" Finished)" = True ]; }
stop_policy() { k patch clusterqueue cq --type merge -p "{\"spec\":{\"stopPolicy\":\"$1\"}}" >/dev/null; }
cq_active() { # status/reason/message of the ClusterQueue's Active condition
  jp clusterqueue cq '{.status.conditions[?(@.type=="Active")].status}/{.status.conditions[?(@.type=="Active")].reason}/{.status.conditions[?(@.type=="Active")].message}'
}
quota_reserved() { # WL: status/reason/message of QuotaReserved
  local s
  s=$(wl_json "$1")
  echo "$(cond "$s" QuotaReserved)/$(cond "$s" QuotaReserved reason)/$(cond "$s" QuotaReserved message)"
}

job_yaml name=r1 queue=lq cpu=1 parallelism=2 sleep=300 | k create -f - >/dev/null
r1=$(wait_wl_of_job r1)
wait_until 20 "r1 admitted" 'admitted "$r1"'
after_creation_second "$r1" # r1 comes first in queue order when the queue resumes
job_yaml name=p1 queue=lq cpu=1 sleep=10 | k create -f - >/dev/null
p1=$(wait_wl_of_job p1)
wait_until 20 "p1 waiting for quota" '[ "$(wl_cond "$p1" QuotaReserved reason)" = WaitingForQuota ]'

# 1. Hold.
stop_policy Hold
wait_until 20 "cq inactive" '[ "$(jp clusterqueue cq "{.status.conditions[?(@.type==\"Active\")].status}")" = False ]'
expect_eq "cq Active condition under Hold" "$(cq_active)" "False/Stopped/Can't admit new workloads: is stopped."
expect_eventually 5 "p1 QuotaReserved under Hold" 'quota_reserved "$p1"' "False/Suspended/ClusterQueue cq is inactive"
job_yaml name=p2 queue=lq cpu=1 sleep=10 | k create -f - >/dev/null
p2=$(wait_wl_of_job p2)
expect_eventually 5 "p2 (submitted under Hold) QuotaReserved" 'quota_reserved "$p2"' "False/Suspended/ClusterQueue cq is inactive"
s=$(wl_json "$r1")
expect_eq "r1 keeps running under Hold (Admitted, Evicted)" "$(cond "$s" Admitted) $(cond "$s" Evicted)" "True "
expect_eq "Job r1 keeps running under Hold" "$(jp job r1 '{.spec.suspend}')" false
expect_eq "Jobs p1, p2 stay suspended" "$(jp job p1 '{.spec.suspend}') $(jp job p2 '{.spec.suspend}')" "true true"
admitted "$r1" && ! finished "$r1" || fail "r1 finished before HoldAndDrain; the test is too slow"

# 2. HoldAndDrain.
stop_policy HoldAndDrain
wait_until 20 "r1 evicted" '[ "$(wl_cond "$r1" Evicted)" = True ]'
s=$(wl_json "$r1")
expect_eq "r1 Evicted reason/message" "$(cond "$s" Evicted reason)/$(cond "$s" Evicted message)" \
  "ClusterQueueStopped/The ClusterQueue is stopped"
expect_eq "r1 not Preempted" "$(cond "$s" Preempted)" ""
wait_until 20 "Job r1 suspended" '[ "$(jp job r1 "{.spec.suspend}")" = true ]'
wait_until 20 "r1's quota released" '[ "$(wl_cond "$r1" QuotaReserved)" = False ]'
s=$(wl_json "$r1")
expect_eq "r1 admission cleared" "$(jq -c .status.admission <<<"$s")" null
expect_eq "r1 Requeued" "$(cond "$s" Requeued)/$(cond "$s" Requeued reason)" False/ClusterQueueStopped
expect_eventually 5 "r1 QuotaReserved after the drain" 'quota_reserved "$r1"' "False/Suspended/ClusterQueue cq is inactive"
wait_until 10 "cq status drained" \
  '[ "$(jp clusterqueue cq "{.status.reservingWorkloads}/{.status.admittedWorkloads}/{.status.pendingWorkloads}")" = 0/0/3 ]'
expect_eq "cq flavorsUsage after the drain" \
  "$(jp clusterqueue cq '{.status.flavorsUsage[0].resources[0].total}')" 0
expect_eq "cq Active condition under HoldAndDrain" "$(cq_active)" "False/Stopped/Can't admit new workloads: is stopped."
expect_eq "nothing admitted while stopped" \
  "$(admitted "$p1" && echo p1) $(admitted "$p2" && echo p2) $(admitted "$r1" && echo r1)" "  "

# 3. None: resume.
stop_policy None
wait_until 20 "cq active again" '[ "$(jp clusterqueue cq "{.status.conditions[?(@.type==\"Active\")].status}")" = True ]'
expect_eq "cq Active condition after resuming" "$(cq_active)" "True/Ready/Can admit new workloads"
wait_until 20 "r1 admitted again" 'admitted "$r1"'
s=$(wl_json "$r1")
expect_eq "r1 Requeued after resuming" \
  "$(cond "$s" Requeued)/$(cond "$s" Requeued reason)/$(cond "$s" Requeued message)" \
  "True/ClusterQueueRestarted/The ClusterQueue was restarted after being stopped"
expect_eq "r1 Evicted after re-admission" "$(cond "$s" Evicted)/$(cond "$s" Evicted reason)/$(cond "$s" Evicted message)" \
  "False/QuotaReserved/Previously: The ClusterQueue is stopped"
wait_until 10 "Job r1 running again" '[ "$(jp job r1 "{.spec.suspend}")" = false ]'
wait_until 10 "p1 and p2 to wait for quota behind r1" \
  '[ "$(wl_cond "$p1" QuotaReserved reason) $(wl_cond "$p2" QuotaReserved reason)" = "WaitingForQuota WaitingForQuota" ]'
# r1 runs for 30 s: rather than wait, give the queue room for p1 and p2.
k patch clusterqueue cq --type json \
  -p '[{"op": "replace", "path": "/spec/resourceGroups/0/flavors/0/resources/0/nominalQuota", "value": 4}]' >/dev/null
wait_until 20 "p1 and p2 admitted" 'admitted "$p1" && admitted "$p2"'
wait_until 20 "p1 and p2 to finish" 'finished "$p1" && finished "$p2"'
for j in p1 p2; do
  expect_eq "Job $j completed" "$(jp job $j '{.status.conditions[?(@.type=="Complete")].status}')" True
done
s=$(wl_json "$r1")
expect_eq "r1 still admitted and running" "$(cond "$s" Admitted) $(cond "$s" Finished) $(jp job r1 '{.spec.suspend}')" "True  false"
e2e_pass "Hold kept pending workloads out, HoldAndDrain evicted the running one, None admitted them all again"
