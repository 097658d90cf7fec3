#!/usr/bin/env bash
# Preemption within a ClusterQueue, end to end. cq has 4 CPU and
# preemption.withinClusterQueue: LowerPriority.
#   1. "low" (WorkloadPriorityClass low = 100) takes all 4 CPU and runs.
#   2. "high" (pod PriorityClass high-pc = 1000) asks for 2 CPU: low is evicted
#      (Evicted=True Preempted, Preempted=True InClusterQueue, with Kueue's message naming
#      the preemptor's Workload and Job UIDs and both queues' paths), its Job is suspended
#      and its pod template restored, its admission cleared (Requeued=True Preempted);
#      then high is admitted and runs. Never more than 4 CPU reserved at once.
#   3. high finishes: low is admitted again (Evicted/Preempted turn False with reason
#      QuotaReserved, "Previously: ..."), runs and completes.
#
# usage: preemption_test.sh KUEUEPP_BINARY SHARED_DIR
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
metadata: {name: cq}
spec:
  namespaceSelector: {}
  preemption:
    withinClusterQueue: LowerPriority
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
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: low}
value: 100
description: low priority batch
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high-pc}
value: 1000
description: high priority pods
EOF

admitted() { [ "$(wl_cond "$1" Admitted)" = True ]; }
finished() { [ "$(wl_cond "$1" Finished)" = True ]; }
# CPU held by workloads that reserve quota and have not finished; fails above the quota.
check_quota() {
  local used
  used=$(api_get "$E2E_KUEUE_API/namespaces/default/workloads" | jq '[.items[] | select(any(.status.conditions[]?; .type == "QuotaReserved" and .status == "True"))
    | select(all(.status.conditions[]?; .type != "Finished" or .status != "True"))
    | .status.admission.podSetAssignments[]?.resourceUsage.cpu | tonumber] | add // 0')
  [ "$used" -le 4 ] || fail "$used CPU reserved at once in cq; its quota is 4"
}
priority_of() {
  k get workload "$1" -o json | jq -r '"\(.spec.priority) \(.spec.priorityClassRef.group)/\(.spec.priorityClassRef.kind)/\(.spec.priorityClassRef.name)"'
}

# 1. low fills the queue.
job_yaml name=low queue=lq cpu=1 parallelism=4 sleep=80 labels='kueue.x-k8s.io/priority-class: low' |
  k create -f - >/dev/null
low=$(wait_wl_of_job low)
wait_until 20 "low admitted" 'admitted "$low"'
wait_until 10 "Job low started" '[ "$(jp job low "{.spec.suspend}")" = false ]'
expect_eq "low priority (value, priorityClassRef)" "$(priority_of "$low")" "100 kueue.x-k8s.io/WorkloadPriorityClass/low"
expect_eq "Job low runs on the flavor's nodes" "$(jp job low '{.spec.template.spec.nodeSelector}')" \
  '{"e2e.kueuepp.dev/flavor":"default"}'

# 2. high preempts low.
job_yaml name=high queue=lq cpu=1 parallelism=2 sleep=150 priorityClassName=high-pc | k create -f - >/dev/null
high=$(wait_wl_of_job high)
expect_eq "high priority (value, priorityClassRef)" "$(priority_of "$high")" "1000 scheduling.k8s.io/PriorityClass/high-pc"
wait_until 20 "low evicted" 'check_quota; [ "$(wl_cond "$low" Evicted)" = True ]'
s=$(wl_json "$low")
high_uid=$(jp workload "$high" '{.metadata.uid}')
high_job_uid=$(jp job high '{.metadata.uid}')
message="Preempted to accommodate a workload (UID: $high_uid, JobUID: $high_job_uid) due to prioritization in the ClusterQueue; preemptor path: /cq; preemptee path: /cq"
expect_eq "low Evicted reason" "$(cond "$s" Evicted reason)" Preempted
expect_eq "low Evicted message" "$(cond "$s" Evicted message)" "$message"
expect_eq "low Preempted condition" "$(cond "$s" Preempted)/$(cond "$s" Preempted reason)" True/InClusterQueue
expect_eq "low Preempted message" "$(cond "$s" Preempted message)" "$message"
evicted_message=$(cond "$s" Evicted message)
expect_eq "high's Workload carries its Job's UID label" "$(jp workload "$high" '{.metadata.labels.kueue\.x-k8s\.io/job-uid}')" "$high_job_uid"
wait_until 20 "Job low suspended again" 'check_quota; [ "$(jp job low "{.spec.suspend}")" = true ]'
wait_until 20 "low's quota released" 'check_quota; [ "$(wl_cond "$low" QuotaReserved)" = False ]'
s=$(wl_json "$low")
expect_eq "low admission cleared" "$(jq -c '.status.admission' <<<"$s")" null
expect_eq "low Admitted" "$(cond "$s" Admitted)" False
expect_eq "low Requeued" "$(cond "$s" Requeued)/$(cond "$s" Requeued reason)" True/Preempted
expect_eq "low still Evicted until it is admitted again" "$(cond "$s" Evicted)" True
expect_eq "Job low pod template restored (no flavor nodeSelector)" "$(jp job low '{.spec.template.spec.nodeSelector}')" ""
wait_until 20 "high admitted" 'check_quota; admitted "$high"'
expect_eq "high admission" "$(jp workload "$high" '{.status.admission.clusterQueue} {.status.admission.podSetAssignments[0].count}')" "cq 2"
wait_until 10 "Job high started" '[ "$(jp job high "{.spec.suspend}")" = false ]'
s=$(wl_json "$low")
expect_eq "low waits while high runs (QuotaReserved, Admitted)" "$(cond "$s" QuotaReserved) $(cond "$s" Admitted)" "False False"
expect_eq "Job low stays suspended while high runs" "$(jp job low '{.spec.suspend}')" true
admitted "$high" && ! finished "$high" || fail "high finished before low was checked; the test is too slow"

# 3. high finishes; low comes back.
wait_until 30 "high to finish" 'check_quota; finished "$high"'
wait_until 20 "low admitted again" 'check_quota; admitted "$low"'
s=$(wl_json "$low")
expect_eq "low Evicted after re-admission" "$(cond "$s" Evicted)/$(cond "$s" Evicted reason)" False/QuotaReserved
expect_eq "low Evicted message after re-admission" "$(cond "$s" Evicted message)" "Previously: $evicted_message"
expect_eq "low Preempted after re-admission" "$(cond "$s" Preempted)/$(cond "$s" Preempted reason)" False/QuotaReserved
wait_until 10 "Job low restarted" '[ "$(jp job low "{.spec.suspend}")" = false ]'
expect_eq "Job low runs on the flavor's nodes again" "$(jp job low '{.spec.template.spec.nodeSelector}')" \
  '{"e2e.kueuepp.dev/flavor":"default"}'
wait_until 40 "low to finish" 'check_quota; finished "$low"'
expect_eq "Job low completed" "$(jp job low '{.status.conditions[?(@.type=="Complete")].status} {.status.succeeded}')" "True 4"
expect_eq "Job high completed" "$(jp job high '{.status.conditions[?(@.type=="Complete")].status} {.status.succeeded}')" "True 2"
e2e_pass "high preempted low within the ClusterQueue; low was suspended, requeued, re-admitted and completed"
