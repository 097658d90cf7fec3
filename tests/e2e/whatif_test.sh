#!/usr/bin/env bash
# "What if I submit this?" through kubectl's cluster and `kueuepp whatif`, on standalone
# (--tls, token authentication): the question goes to the visibility API's
# localqueues/{name}/whatif through the embedded API server's aggregation, as on a real
# cluster.
#   - discovery lists localqueues/whatif;
#   - a queue with room: "admitted now" on flavor default;
#   - a full queue: pending with Kueue's reason and message and position 0;
#   - a high-priority Job with preemption enabled: names the victims and the rule;
#   - after each question nothing was created (no Workload, no Job, no Event), and the
#     answer is what happens when the Job is then really created.
#
# usage: whatif_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
echo 'alice-token,alice,alice-uid,"team-a"' >"$E2E_TMP/tokens.csv"
e2e_start --tls --token-auth-file "$E2E_TMP/tokens.csv"

expect_eventually 30 "the visibility APIService is Available" \
  "k get apiservices v1beta2.visibility.kueue.x-k8s.io -o jsonpath='{.status.conditions[?(@.type==\"Available\")].status}'" \
  "True"
expect_match "discovery lists the whatif subresource" \
  "$(k get --raw /apis/visibility.kueue.x-k8s.io/v1beta2 | jq -r '.resources[] | select(.name == "localqueues/whatif") | .verbs | join(",")')" \
  '^create$'

k apply -f - >/dev/null <<'EOF_QUEUES'
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
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
      resources: [{name: cpu, nominalQuota: 3}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: default}
spec: {clusterQueue: cq}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: high}
value: 1000
EOF_QUEUES

# What exists: Workloads, Jobs and Events, counted before and after each question.
census() {
  echo "$(k get workloads -A -o name | wc -l) $(k get jobs -A -o name | wc -l) $(k get events -A -o name | wc -l)"
}
whatif() { "$E2E_BIN" whatif --kubeconfig "$E2E_TMP/kc" -o json -f "$1"; }
ask() {  # ask FILE: the answer as JSON in $answer, checking that the question created nothing
  local before after
  before=$(census)
  answer=$(whatif "$1")
  after=$(census)
  expect_eq "asking about $(basename "$1") created nothing (workloads jobs events)" "$after" "$before"
}
settled() { sleep 2; }  # events of the last change are recorded before the census

# 1. A queue with room.
job_yaml name=job-a queue=lq cpu=1 sleep=300 >"$E2E_TMP/job-a.yaml"
settled
ask "$E2E_TMP/job-a.yaml"
a=$answer
expect_eq "job-a would be admitted now on flavor default" \
  "$(jq -r '.kind + " " + .status.outcome + " " + .status.admission.podSetAssignments[0].flavors.cpu' <<<"$a")" \
  "WhatIfResult Admitted default"
expect_match "the text answer says so" "$("$E2E_BIN" whatif --kubeconfig "$E2E_TMP/kc" -f "$E2E_TMP/job-a.yaml")" \
  'admitted now, on:'
k create -f "$E2E_TMP/job-a.yaml" >/dev/null
wl_a=$(wait_wl_of_job job-a)
expect_eventually 20 "and job-a is admitted on flavor default" \
  "k get workload $wl_a -o jsonpath='{.status.admission.podSetAssignments[0].flavors.cpu}'" "default"
# The Workload's name hashes the Job's UID, which a Job not yet created has not.
expect_match "the answer names the Workload as the Job's" "$(jq -r '.metadata.name' <<<"$a")" '^job-job-a-'

# 2. A full queue.
job_yaml name=job-b queue=lq cpu=2 sleep=300 | k create -f - >/dev/null
wl_b=$(wait_wl_of_job job-b)
expect_eventually 20 "job-b fills the queue" "k get workload $wl_b -o jsonpath='{.status.admission.clusterQueue}'" "cq"
job_yaml name=job-c queue=lq cpu=1 sleep=300 >"$E2E_TMP/job-c.yaml"
settled
ask "$E2E_TMP/job-c.yaml"
c=$answer
expect_eq "job-c would wait, first in line" "$(jq -r '.status.outcome + " " + (.status.positionInClusterQueue|tostring)' <<<"$c")" \
  "Pending 0"
expect_match "with Kueue's message" "$(jq -r '.status.pending.message' <<<"$c")" \
  "insufficient unused quota for cpu in flavor default"
k create -f "$E2E_TMP/job-c.yaml" >/dev/null
wl_c=$(wait_wl_of_job job-c)
expect_eventually 20 "job-c's Workload gets the reason the answer gave" \
  "wl_cond $wl_c QuotaReserved reason" "$(jq -r '.status.pending.reason' <<<"$c")"
expect_eq "and the message" "$(wl_cond "$wl_c" QuotaReserved message)" "$(jq -r '.status.pending.message' <<<"$c")"

# 3. A high-priority Job preempts.
job_yaml name=job-h queue=lq cpu=2 sleep=300 labels='kueue.x-k8s.io/priority-class: high' >"$E2E_TMP/job-h.yaml"
settled
ask "$E2E_TMP/job-h.yaml"
h=$answer
expect_eq "job-h would preempt" "$(jq -r '.status.outcome' <<<"$h")" "Preempting"
victims=$(jq -r '[.status.preemptions[] | .workload.name + ":" + .reason] | sort | join(" ")' <<<"$h")
expect_eq "naming its victim, job-b, by rule InClusterQueue" "$victims" "$wl_b:InClusterQueue"
k create -f "$E2E_TMP/job-h.yaml" >/dev/null
# Single objects only from here: a list of this namespace's Workloads stalls (kubectl's
# "context deadline exceeded while reading body") after the preemption on the embedded
# API server with --tls, with or without a what-if question asked before.
expect_eventually 30 "job-b's Workload is preempted by that rule" "wl_cond $wl_b Preempted reason" "InClusterQueue"
expect_eventually 30 "and job-h runs" "k get job job-h -o jsonpath='{.spec.suspend}'" "false"
expect_eq "job-a, not named, still runs" "$(wl_cond "$wl_a" Evicted)" ""

# Bad manifests: a clear error, nothing sent.
echo 'apiVersion: v1
kind: Pod
metadata: {name: p}' >"$E2E_TMP/pod.yaml"
expect_match "a Pod is refused with a clear error" "$(whatif "$E2E_TMP/pod.yaml" 2>&1 || true)" \
  'cannot ask about v1, Kind=Pod'
expect_match "a file that is not YAML too" "$(echo '{{' | "$E2E_BIN" whatif --kubeconfig "$E2E_TMP/kc" -f - 2>&1 || true)" \
  'not one YAML or JSON object'

e2e_failed_checks
e2e_pass "kueuepp whatif answers through the aggregated API, creates nothing, and agrees with what then happens"
