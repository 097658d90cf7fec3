#!/usr/bin/env bash
# End to end, as a user would: `kueuepp standalone`, then kubectl applies Kueue's
# getting-started example and submits six 3-CPU Jobs against the 9-CPU ClusterQueue.
# Checked from the API objects only: never more than three Jobs admitted at once,
# the rest wait with a reason, and every Job runs and completes as others finish.
#
# usage: getting_started_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
e2e_start --job-time-scale 10

k apply -f "$E2E_SHARED/kueue-examples/getting-started/quick-start-setup.yaml" >/dev/null
# Every version of every Workload's QuotaReserved message, as the API server stores them:
# a waiting workload's explanation is seen however briefly it waits (polling missed it
# on a loaded machine).
kubectl --kubeconfig "$E2E_TMP/kc" --request-timeout=0 get workloads --watch \
  -o jsonpath='{.metadata.name}{" "}{.status.conditions[?(@.type=="QuotaReserved")].message}{"\n"}' \
  >"$E2E_TMP/quota-reserved-messages" 2>/dev/null &
watcher=$!
sleep 0.5  # the watch is listed before the Jobs come
# All six in one request: created one by one on a loaded machine, they trickled in as
# fast as the first ones finished, and none had to wait long enough to be seen waiting.
for i in 1 2 3 4 5 6; do
  sed "s/name: sample-job\$/name: sample-job-$i/" "$E2E_SHARED/kueue-examples/getting-started/quick-start-job.yaml"
  echo "---"
done | k create -f - >/dev/null

max_running=0
saw_waiting_reason=0
for _ in $(seq 300); do
  # Admitted and not finished: each holds 3 CPU of the 9-CPU queue.
  running=$(api_get "$E2E_KUEUE_API/namespaces/default/workloads" | jq '[.items[]
    | [(.status.conditions // [])[] | select(.type == "Admitted" or .type == "Finished") | "\(.type)=\(.status)"]
    | select(any(. == "Admitted=True") and (any(startswith("Finished=")) | not))] | length' || echo 0)
  [ "$running" -le 3 ] || fail "$running workloads admitted at once; the quota allows 3"
  [ "$running" -gt "$max_running" ] && max_running=$running
  done_jobs=$(api_get /apis/batch/v1/namespaces/default/jobs | jq '[.items[] | select(.status.succeeded == 3)] | length' || echo 0)
  [ "$done_jobs" -eq 6 ] && break
  sleep 0.2
done
kill "$watcher" 2>/dev/null || true
wait "$watcher" 2>/dev/null || true
grep -q 'insufficient unused quota for cpu in flavor default-flavor' "$E2E_TMP/quota-reserved-messages" &&
  saw_waiting_reason=1
[ "$done_jobs" -eq 6 ] || fail "only $done_jobs of 6 jobs completed"
[ "$max_running" -eq 3 ] || fail "at most $max_running jobs ran at once; expected the queue to fill its 9 CPUs"
[ "$saw_waiting_reason" -eq 1 ] || fail "no waiting workload said why it waits"
finished=$(k get workloads -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Finished")].status}{"\n"}{end}' | grep -c True || true)
[ "$finished" -eq 6 ] || fail "$finished of 6 workloads finished"
echo "PASS: 6 jobs, at most 3 admitted at once, all completed and their workloads finished"
