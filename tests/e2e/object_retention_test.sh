#!/usr/bin/env bash
# Kueue's objectRetentionPolicies, end to end through kubectl, with both set to 6 s:
#   - afterFinished: the Workload of a Job that finished is deleted about 6 s after its
#     Finished condition, and the Job stays;
#   - afterDeactivatedByKueue: a Job whose Workload Kueue deactivated (here for exceeding
#     its maximum execution time) is deleted about 6 s after the eviction, its Workload
#     with it; a Workload a user deactivates by hand keeps its Job.
#
# usage: object_retention_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
cat >"$E2E_TMP/config.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
objectRetentionPolicies:
  workloads:
    afterFinished: 6s
    afterDeactivatedByKueue: 6s
YAML
e2e_start --config "$E2E_TMP/config.yaml"

apply_one_queue 3
# The three cases run side by side (a CPU each), so that their retention periods overlap.
job_yaml name=quick queue=lq sleep=1 | k create -f - >/dev/null
job_yaml name=paused queue=lq sleep=100 | k create -f - >/dev/null
job_yaml name=capped queue=lq sleep=100 labels='kueue.x-k8s.io/max-exec-time-seconds: "2"' | k create -f - >/dev/null
quick_wl=$(wait_wl_of_job quick)
paused_wl=$(wait_wl_of_job paused)
capped_wl=$(wait_wl_of_job capped)

# The Job's completion time (the Job stays to be read) is when its Workload finishes.
finished_at=
wait_until 20 "the quick Job to complete" \
  'finished_at=$(jp job quick "{.status.completionTime}" "$E2E_NS"); [ -n "$finished_at" ]'
expect_eq "its Workload is kept meanwhile" "$(k get workload -n "$E2E_NS" "$quick_wl" --ignore-not-found -o name)" \
  "workload.kueue.x-k8s.io/$quick_wl"

evicted_at=
wait_until 20 "the capped Workload to be deactivated by Kueue" \
  'evicted_at=$(k get workload -n "$E2E_NS" "$capped_wl" -o json 2>/dev/null | jq -r '"'"'[.status.conditions[]? | select(.type == "Evicted" and .reason == "DeactivatedDueToMaximumExecutionTimeExceeded")][0].lastTransitionTime // empty'"'"'); [ -n "$evicted_at" ]'

# A user's own deactivation is not Kueue's: the Job stays (checked at the end, once its
# retention period is over).
expect_eventually 20 "the paused Job runs" "jp job paused '{.spec.suspend}' $E2E_NS" "false"
k patch workload -n "$E2E_NS" "$paused_wl" --type merge -p '{"spec":{"active":false}}' >/dev/null
expect_eventually 20 "the Workload the user deactivated is evicted" "wl_cond $paused_wl Evicted reason" "Deactivated"
paused_evicted_at=$(date +%s)

expect_eventually 15 "its finished Workload is deleted" \
  "k get workload -n $E2E_NS $quick_wl --ignore-not-found -o name" ""
gone_after=$(($(date +%s) - $(date -d "$finished_at" +%s)))
expect_match "6-10 s after it finished (gone ${gone_after} s after)" "$gone_after" '^([6-9]|10)$'
expect_eq "the finished Job stays" "$(jp job quick '{.status.succeeded}' "$E2E_NS")" "1"

expect_eventually 15 "the capped Job is deleted" "k get job -n $E2E_NS capped --ignore-not-found -o name" ""
gone_after=$(($(date +%s) - $(date -d "$evicted_at" +%s)))
expect_match "6-10 s after the eviction (gone ${gone_after} s after)" "$gone_after" '^([6-9]|10)$'
expect_eventually 15 "its Workload goes with it" \
  "k get workload -n $E2E_NS $capped_wl --ignore-not-found -o name" ""
expect_eventually 10 "an Event says why" \
  "k get events -n $E2E_NS --field-selector involvedObject.name=capped,reason=Deleted -o jsonpath='{.items[0].message}'" \
  "Deleted job: deactivation retention period expired"

# Past the retention period of the user's deactivation: nothing may have deleted its Job.
wait_until 15 "8 s after the user's deactivation" '[ "$(date +%s)" -ge $((paused_evicted_at + 8)) ]'
expect_eq "the user's deactivated Job stays" "$(k get job -n "$E2E_NS" paused --ignore-not-found -o name)" "job.batch/paused"

e2e_failed_checks
e2e_pass "finished Workloads and Jobs Kueue deactivated are deleted after their retention periods"
