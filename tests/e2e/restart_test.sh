#!/usr/bin/env bash
# Restart safety, end to end: `kueuepp standalone --data-dir D` is killed with SIGKILL twice
# while 30 one-CPU Jobs stream through a 5-CPU ClusterQueue, and restarted on the same data
# dir each time. Sampled all along while it runs (every API read): never more than 5
# Workloads hold quota at once and never more than 5 Jobs have active pods. At the end:
# every Job completed exactly once (succeeded 1, Complete, its completion time unchanged
# since it was first seen complete, even across the crashes), there is exactly one Workload
# per Job (none lost, none duplicated), each Finished, and the queue is empty.
#
# usage: restart_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
data=$E2E_TMP/data
mkdir -p "$data"
e2e_start --job-time-scale 10 --data-dir "$data"

# Five at a time: six waves of Jobs, each wave long enough to be sampled several times.
quota=5
apply_one_queue $quota

total=30
submit() { # FIRST LAST: jobs job-FIRST .. job-LAST, 1 CPU, 2 s each (sleep 20 at scale 10)
  local i
  for i in $(seq "$1" "$2"); do job_yaml name="job-$i" queue=lq cpu=1 sleep=20; echo ---; done | k create -f - >/dev/null
}

# Completion times of the Jobs seen complete: name -> completionTime.
declare -A completed_at
max_reserving=0
max_active=0
samples=0
# One sample of the API objects; fails on over-admission or a re-run Job. Sets $done_jobs.
sample() {
  local wls jobs reserving active name t
  wls=$(api_get "$E2E_KUEUE_API/namespaces/default/workloads") || return 1
  jobs=$(api_get /apis/batch/v1/namespaces/default/jobs) || return 1
  reserving=$(jq '[.items[] | select(any(.status.conditions[]?; .type == "QuotaReserved" and .status == "True"))
    | select(all(.status.conditions[]?; .type != "Finished" or .status != "True"))] | length' <<<"$wls")
  active=$(jq '[.items[] | select((.status.active // 0) > 0)] | length' <<<"$jobs")
  samples=$((samples + 1))
  [ "$reserving" -gt "$max_reserving" ] && max_reserving=$reserving
  [ "$active" -gt "$max_active" ] && max_active=$active
  [ "$reserving" -le "$quota" ] || fail "$reserving Workloads hold quota at once; the ClusterQueue has $quota CPU"
  [ "$active" -le "$quota" ] || fail "$active Jobs have active pods at once; the ClusterQueue has $quota CPU"
  done_jobs=0
  while read -r name t; do
    [ -n "$name" ] || continue
    done_jobs=$((done_jobs + 1))
    if [ -z "${completed_at[$name]:-}" ]; then
      completed_at[$name]=$t
    elif [ "${completed_at[$name]}" != "$t" ]; then
      fail "Job $name completed again: completionTime ${completed_at[$name]}, now $t"
    fi
  done < <(jq -r '.items[] | select(any(.status.conditions[]?; .type == "Complete" and .status == "True"))
    | "\(.metadata.name) \(.status.completionTime)"' <<<"$jobs")
}
# run_until COUNT SECONDS: keep sampling until at least COUNT Jobs completed.
run_until() {
  local want=$1 deadline=$((SECONDS + $2))
  done_jobs=0
  while :; do
    sample || true
    [ "$done_jobs" -ge "$want" ] && return 0
    [ "$SECONDS" -lt "$deadline" ] || fail "only $done_jobs Jobs completed within $2 s (waiting for $want)"
    sleep 0.2
  done
}
crash_and_restart() {
  local reserving
  reserving=$(k get workloads -o json | jq '[.items[] | select(any(.status.conditions[]?; .type == "Admitted" and .status == "True"))
    | select(all(.status.conditions[]?; .type != "Finished" or .status != "True"))] | length')
  echo "crash: SIGKILL with $done_jobs Jobs completed and $reserving admitted and running"
  e2e_kill KILL
  e2e_start --job-time-scale 10 --data-dir "$data"
}

submit 1 20
run_until 5 60
crash_and_restart
submit 21 30
run_until 17 60
crash_and_restart
run_until "$total" 90

# The end state, read once more after the last completion.
sample
wls=$(k get workloads -o json)
jobs=$(k get jobs -o json)
expect_eq "Jobs" "$(jq '.items | length' <<<"$jobs")" "$total"
expect_eq "Jobs completed exactly once (Complete, succeeded 1, nothing failed)" \
  "$(jq '[.items[] | select(any(.status.conditions[]?; .type == "Complete" and .status == "True")
    and .status.succeeded == 1 and (.status.failed // 0) == 0)] | length' <<<"$jobs")" "$total"
expect_eq "Workloads" "$(jq '.items | length' <<<"$wls")" "$total"
expect_eq "Jobs with exactly one Workload" \
  "$(jq '[.items[] | .metadata.ownerReferences[]? | select(.kind == "Job") | .name] | group_by(.) | map(select(length == 1)) | length' <<<"$wls")" \
  "$total"
echo "$wls" >"$E2E_TMP/workloads.json"
echo "$jobs" >"$E2E_TMP/jobs.json"
expect_eq "Workloads owned by a Job that exists (same UID)" \
  "$(jq -n --slurpfile w "$E2E_TMP/workloads.json" --slurpfile j "$E2E_TMP/jobs.json" '
    [$j[0].items[] | {(.metadata.name): .metadata.uid}] | add as $uid
    | [$w[0].items[] | .metadata.ownerReferences[]? | select(.kind == "Job" and $uid[.name] == .uid)] | length')" "$total"
expect_eq "Workloads Finished (Succeeded)" \
  "$(jq '[.items[] | select(any(.status.conditions[]?; .type == "Finished" and .status == "True" and .reason == "Succeeded"))] | length' <<<"$wls")" \
  "$total"
expect_eq "Jobs seen completing" "${#completed_at[@]}" "$total"
expect_eq "most Workloads holding quota at once" "$max_reserving" "$quota"
wait_until 10 "the ClusterQueue status to be empty" \
  '[ "$(jp clusterqueue cq "{.status.reservingWorkloads}/{.status.admittedWorkloads}/{.status.pendingWorkloads}/{.status.flavorsUsage[0].resources[0].total}")" = 0/0/0/0 ]'
e2e_pass "$total Jobs through two SIGKILL restarts: each completed once with one Workload; at most $max_reserving held quota and $max_active ran at once ($samples samples)"
