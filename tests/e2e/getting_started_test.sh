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
for i in 1 2 3 4 5 6; do
  sed "s/name: sample-job\$/name: sample-job-$i/" "$E2E_SHARED/kueue-examples/getting-started/quick-start-job.yaml" |
    k create -f - >/dev/null
done

max_running=0
saw_waiting_reason=0
for _ in $(seq 300); do
  # Admitted and not finished: each holds 3 CPU of the 9-CPU queue.
  running=$(k get workloads -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Admitted")].status}{"/"}{.status.conditions[?(@.type=="Finished")].status}{"\n"}{end}' |
    grep -c '^True/$' || true)
  [ "$running" -le 3 ] || fail "$running workloads admitted at once; the quota allows 3"
  [ "$running" -gt "$max_running" ] && max_running=$running
  if k get workloads -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="QuotaReserved")].message}{"\n"}{end}' |
    grep -q 'insufficient unused quota for cpu in flavor default-flavor'; then
    saw_waiting_reason=1
  fi
  done_jobs=$(k get jobs -o jsonpath='{range .items[*]}{.status.succeeded}{"\n"}{end}' | grep -c '^3$' || true)
  [ "$done_jobs" -eq 6 ] && break
  sleep 0.2
done
[ "$done_jobs" -eq 6 ] || fail "only $done_jobs of 6 jobs completed"
[ "$max_running" -eq 3 ] || fail "at most $max_running jobs ran at once; expected the queue to fill its 9 CPUs"
[ "$saw_waiting_reason" -eq 1 ] || fail "no waiting workload said why it waits"
finished=$(k get workloads -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Finished")].status}{"\n"}{end}' | grep -c True || true)
[ "$finished" -eq 6 ] || fail "$finished of 6 workloads finished"
echo "PASS: 6 jobs, at most 3 admitted at once, all completed and their workloads finished"
