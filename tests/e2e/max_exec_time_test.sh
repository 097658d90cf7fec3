#!/usr/bin/env bash
# Kueue's maximum execution time, end to end through kubectl: a Job labelled
# kueue.x-k8s.io/max-exec-time-seconds=3 whose container would run 100 s
#   - gets spec.maximumExecutionTimeSeconds on its Workload;
#   - is evicted once it has been admitted 3 s (reason
#     DeactivatedDueToMaximumExecutionTimeExceeded, within a second of the limit as the
#     conditions' whole-second times can show), deactivated, its Job suspended, and not
#     requeued;
#   - releases its quota, so the Job waiting behind it is admitted;
#   - is reported by a Warning Event MaximumExecutionTimeExceeded on the Workload.
#
# usage: max_exec_time_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
e2e_start

apply_one_queue 2
job_yaml name=capped queue=lq cpu=2 sleep=100 labels='kueue.x-k8s.io/max-exec-time-seconds: "3"' | k create -f - >/dev/null
wl=$(wait_wl_of_job capped)
expect_eq "the label becomes the Workload's maximumExecutionTimeSeconds" \
  "$(jp workload "$wl" '{.spec.maximumExecutionTimeSeconds}' "$E2E_NS")" "3"
expect_eventually 20 "the capped Job is admitted and runs" "jp job capped '{.spec.suspend}' $E2E_NS" "false"
# When it was admitted: the Workload's Admitted condition, the time the limit counts from.
# On a loaded machine that condition may already have flipped to False (evicted) when it
# is read; then the Admitted Event, recorded up to a second after the admission, so a
# whole-second difference may read one less.
admitted_json=$(wl_json "$wl")
if [ "$(cond "$admitted_json" Admitted)" = True ]; then
  admitted_at=$(cond "$admitted_json" Admitted lastTransitionTime)
  within='^[34]$'
else
  admitted_at=$(k get events -n "$E2E_NS" --field-selector "involvedObject.name=$wl,reason=Admitted" \
    -o jsonpath='{.items[0].firstTimestamp}')
  within='^[234]$'
fi
job_yaml name=behind queue=lq cpu=2 sleep=10 | k create -f - >/dev/null

expect_eventually 20 "the capped Workload is evicted for exceeding its maximum execution time" \
  "wl_cond $wl Evicted reason" "DeactivatedDueToMaximumExecutionTimeExceeded"
expect_eventually 20 "its quota is released" "wl_cond $wl QuotaReserved" "False"
expect_eventually 20 "the Job waiting behind it is admitted" "jp job behind '{.spec.suspend}' $E2E_NS" "false"

json=$(wl_json "$wl")
evicted_at=$(cond "$json" Evicted lastTransitionTime)
released_at=$(cond "$json" QuotaReserved lastTransitionTime)
evicted_after=$(($(date -d "$evicted_at" +%s) - $(date -d "$admitted_at" +%s)))
released_after=$(($(date -d "$released_at" +%s) - $(date -d "$admitted_at" +%s)))
# Whole-second times: admitted at a.x and evicted at (a+3).y reads 3 or 4.
expect_match "evicted within a second of the limit (admitted $admitted_at, evicted $evicted_at)" \
  "$evicted_after" "$within"
expect_match "quota released within a second of the limit (released $released_at)" "$released_after" "$within"
expect_eq "the Workload is deactivated" "$(jq -r '.spec.active' <<<"$json")" "false"
expect_eq "it is not requeued" "$(cond "$json" Requeued):$(cond "$json" Requeued reason)" \
  "False:DeactivatedDueToMaximumExecutionTimeExceeded"
expect_eq "the capped Job is suspended" "$(jp job capped '{.spec.suspend}' "$E2E_NS")" "true"
expect_eq "the eviction is counted in schedulingStats" \
  "$(jq -r '.status.schedulingStats.evictions[0] | "\(.reason)/\(.underlyingCause)/\(.count)"' <<<"$json")" \
  "Deactivated/MaximumExecutionTimeExceeded/1"
expect_eventually 10 "a Warning Event says so on the Workload" \
  "k get events -n $E2E_NS --field-selector involvedObject.name=$wl,reason=MaximumExecutionTimeExceeded -o jsonpath='{.items[0].type}: {.items[0].message}'" \
  "Warning: The maximum execution time (3s) exceeded"
expect_eventually 10 "kueue_evicted_workloads_total counts it with its cause" \
  "probe /metrics | grep '^kueue_evicted_workloads_total{' | grep 'cluster_queue=\"cq\"' | grep 'reason=\"Deactivated\"' | grep 'underlying_cause=\"MaximumExecutionTimeExceeded\"' | awk '{print \$2}'" "1"

e2e_failed_checks
e2e_pass "a Job past its maximum execution time is evicted, deactivated and gives back its quota"
