#!/usr/bin/env bash
# Changing a pending workload's priority reorders its queue, both ways Kueue supports:
#   A. StrictFIFO queue: s1, s2 (WorkloadPriorityClass "batch", 10) and then s3
#      ("promotable", 10) wait behind a running blocker. The WorkloadPriorityClass
#      "promotable" is raised to 500: Kueue propagates the value to s3's Workload
#      (.spec.priority), and when one CPU frees up s3 is admitted before s1 and s2;
#      the next CPU goes to s1 (equal priorities keep FIFO order).
#   B. BestEffortFIFO queue: f1, f2, f3 ("batch") wait; Job f3's label
#      kueue.x-k8s.io/priority-class is changed to "urgent" (1000): its Workload's priority
#      and priorityClassRef follow, and f3 is admitted next.
# A CPU "frees up" by raising the ClusterQueue's nominal quota by one, so that the order is
# decided by the queue alone, with no timing involved.
#
# usage: priority_change_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
e2e_start --job-time-scale 10

cq_yaml() { # NAME STRATEGY CPU
  cat <<EOF
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: $1}
spec:
  namespaceSelector: {}
  queueingStrategy: $2
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources: [{name: cpu, nominalQuota: $3}]
EOF
}
{
  cat <<'EOF'
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq-strict, namespace: default}
spec: {clusterQueue: cq-strict}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq-fifo, namespace: default}
spec: {clusterQueue: cq-fifo}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: batch}
value: 10
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: promotable}
value: 10
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: urgent}
value: 1000
---
EOF
  cq_yaml cq-strict StrictFIFO 1
  echo ---
  cq_yaml cq-fifo BestEffortFIFO 1
} | k apply -f - >/dev/null

admitted() { [ "$(wl_cond "$1" Admitted)" = True ]; }
# Pending in the controller's queue (its introspection endpoint), holding no quota (API).
# Behind a StrictFIFO head a workload need not have a QuotaReserved condition yet: Kueue
# sets one only on workloads the scheduler tried (UnadmittedWorkloadsExplicitStatus is off).
waiting() {
  [ "$(probe "/debug/workloads/default/$1" | jq -r .state)" = Pending ] &&
    [ "$(wl_cond "$1" QuotaReserved)" != True ]
}
priority_of() {
  k get workload "$1" -o json | jq -r '"\(.spec.priority) \(.spec.priorityClassRef.kind)/\(.spec.priorityClassRef.name)"'
}
# submit NAME QUEUE CLASS: a 1-CPU Job with a WorkloadPriorityClass; sets W[NAME] to its Workload.
declare -A W
submit() {
  job_yaml name="$1" queue="$2" cpu=1 sleep=600 labels="kueue.x-k8s.io/priority-class: $3" | k create -f - >/dev/null
  W[$1]=$(wait_wl_of_job "$1")
}
# admitted_set NAME...: which of these are admitted, as "name=True|False ..."
admitted_set() {
  local n out=
  for n in "$@"; do out+="$n=$(admitted "${W[$n]}" && echo True || echo False) "; done
  echo "${out% }"
}

# A. StrictFIFO, WorkloadPriorityClass value change.
submit s0 lq-strict batch
wait_until 20 "blocker s0 admitted" 'admitted "${W[s0]}"'
submit s1 lq-strict batch
after_creation_second "${W[s1]}" # FIFO order, not the UIDs, puts s1 before s2
submit s2 lq-strict batch
submit s3 lq-strict promotable
for n in s1 s2 s3; do
  wait_until 20 "$n to be queued" 'waiting "${W[$n]}"'
done
expect_eq "the head s1 waits for quota" "$(wl_cond "${W[s1]}" QuotaReserved reason)" WaitingForQuota
expect_eq "s3 priority before the change" "$(priority_of "${W[s3]}")" "10 WorkloadPriorityClass/promotable"
k patch workloadpriorityclass promotable --type merge -p '{"value": 500}' >/dev/null
wait_until 20 "the new value on s3's Workload" '[ "$(jp workload "${W[s3]}" "{.spec.priority}")" = 500 ]'
expect_eq "s1 priority unchanged" "$(priority_of "${W[s1]}")" "10 WorkloadPriorityClass/batch"
cq_yaml cq-strict StrictFIFO 2 | k apply -f - >/dev/null
wait_until 20 "one more admission in cq-strict" 'admitted "${W[s1]}" || admitted "${W[s2]}" || admitted "${W[s3]}"'
expect_eq "the reprioritised s3 is admitted first" "$(admitted_set s1 s2 s3)" "s1=False s2=False s3=True"
cq_yaml cq-strict StrictFIFO 3 | k apply -f - >/dev/null
wait_until 20 "one more admission in cq-strict" 'admitted "${W[s1]}" || admitted "${W[s2]}"'
expect_eq "then s1, the older of the equal priorities" "$(admitted_set s1 s2 s3)" "s1=True s2=False s3=True"

# B. BestEffortFIFO, the Job's priority-class label changes.
submit f0 lq-fifo batch
wait_until 20 "blocker f0 admitted" 'admitted "${W[f0]}"'
for n in f1 f2 f3; do submit $n lq-fifo batch; done
for n in f1 f2 f3; do
  wait_until 20 "$n to wait for quota" '[ "$(wl_cond "${W[$n]}" QuotaReserved reason)" = WaitingForQuota ]'
done
k label job f3 kueue.x-k8s.io/priority-class=urgent --overwrite >/dev/null
wait_until 20 "f3's Workload to take the new class" '[ "$(priority_of "${W[f3]}")" = "1000 WorkloadPriorityClass/urgent" ]'
expect_eq "f3 is still the same Workload" "$(wl_of_job f3)" "${W[f3]}"
expect_eq "f3 still waits" "$(wl_cond "${W[f3]}" QuotaReserved)" False
cq_yaml cq-fifo BestEffortFIFO 2 | k apply -f - >/dev/null
wait_until 20 "one more admission in cq-fifo" 'admitted "${W[f1]}" || admitted "${W[f2]}" || admitted "${W[f3]}"'
expect_eq "the relabelled f3 is admitted first" "$(admitted_set f1 f2 f3)" "f1=False f2=False f3=True"
wait_until 10 "Job f3 started" '[ "$(jp job f3 "{.spec.suspend}")" = false ]'
expect_eq "Jobs f1 and f2 stay suspended" "$(jp job f1 '{.spec.suspend}') $(jp job f2 '{.spec.suspend}')" "true true"
e2e_pass "raising a WorkloadPriorityClass value and relabelling a Job both moved the workload to the head of its queue"
