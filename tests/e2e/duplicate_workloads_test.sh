#!/usr/bin/env bash
# Duplicate Workloads, end to end: a second Workload owned by the same Job (a copy with
# another name, ownerReference to the Job's uid) is deleted by the job integration, as
# Kueue's ensureOneWorkload does; the admitted Workload stays and the Job keeps running.
#
# usage: duplicate_workloads_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
e2e_start --job-time-scale 10

apply_one_queue 4

job_yaml name=d1 queue=lq cpu=1 sleep=600 | k create -f - >/dev/null
wl=$(wait_wl_of_job d1)
wait_until 20 "$wl admitted" '[ "$(wl_cond "$wl" Admitted)" = True ]'
wait_until 20 "Job d1 running" '[ "$(jp job d1 "{.spec.suspend}")" = false ]'

# A duplicate: the same spec and owner, another name.
wl_json "$wl" | jq --arg n "$wl-dup" 'del(.status, .metadata.uid, .metadata.resourceVersion,
  .metadata.creationTimestamp, .metadata.managedFields, .metadata.generation) | .metadata.name = $n' |
  k create -f - >/dev/null
wait_until 20 "the duplicate deleted" '! k get workload "$wl-dup" >/dev/null 2>&1'
s=$(wl_json "$wl")
expect_eq "the admitted Workload stays admitted" "$(cond "$s" Admitted)/$(cond "$s" Evicted)" "True/"
expect_eq "Job d1 keeps running" "$(jp job d1 '{.spec.suspend}')" false
expect_eq "one Workload for Job d1" "$(wl_of_job d1)" "$wl"
expect_eventually 10 "DeletedWorkload event on Job d1" \
  "k get events -n default -o json | jq -r '[.items[] | select(.involvedObject.name == \"d1\" and .reason == \"DeletedWorkload\") | .message] | first // \"\"'" \
  "Deleted not matching Workload: default/$wl-dup"
sleep 2
expect_eq "nothing else deleted or created" "$(wl_of_job d1)" "$wl"

e2e_pass "a duplicate Workload of a Job is deleted, the admitted one kept"
