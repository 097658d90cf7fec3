#!/usr/bin/env bash
# Partial admission, end to end, on Kueue's getting-started queue (9 CPU, 9Gi).
#   1. Kueue's example Job sample-job-partial-admission (parallelism 20, 1 CPU and 200Mi
#      per pod, kueue.x-k8s.io/job-min-parallelism: 5) is admitted with the largest count
#      that fits, 9: status.admission says count 9 (9 CPU, 1800Mi), the Workload keeps
#      count 20 / minCount 5, and the Job runs with parallelism 9.
#   2. With 6 CPU taken by a blocker, p2 (parallelism 8, min 2) is admitted with count 3,
#      and p3 (parallelism 6, min 4) waits: not even its minimum fits.
#   3. The blocker finishes: p3 now fits whole and is admitted with its full count 6
#      (no partial admission when the full count fits).
#
# usage: partial_admission_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
e2e_start --job-time-scale 10 --default-job-duration 20

k apply -f "$E2E_SHARED/kueue-examples/getting-started/quick-start-setup.yaml" >/dev/null

admitted() { [ "$(wl_cond "$1" Admitted)" = True ]; }
finished() { [ "$(wl_cond "$1" Finished)" = True ]; }
assignment() { # cluster queue, pod set, count, flavors and usage (quantities as plain numbers)
  local a cpu mem
  IFS=$'\t' read -r a cpu mem < <(k get workload "$1" -o json | jq -r '.status.admission as $a | $a.podSetAssignments[0] |
    ["\($a.clusterQueue)/\(.name) count=\(.count) flavors=\(.flavors.cpu),\(.flavors.memory // "-")",
     .resourceUsage.cpu, (.resourceUsage.memory // "0")] | @tsv')
  echo "$a cpu=$(qty "$cpu") memory=$(qty "$mem")"
}

# 1. Kueue's example.
k create -f "$E2E_SHARED/kueue-examples/jobs/sample-job-partial-admission.yaml" >/dev/null
job=sample-job-partial-admission
w=$(wait_wl_of_job $job)
expect_eq "Workload pod set: count and minCount from the Job" \
  "$(jp workload "$w" '{.spec.podSets[0].count} {.spec.podSets[0].minCount}')" "20 5"
wait_until 20 "$job admitted" 'admitted "$w"'
expect_eq "$job admitted with the count that fits" "$(assignment "$w")" \
  "cluster-queue/main count=9 flavors=default-flavor,default-flavor cpu=9 memory=$(qty 1800Mi)"
wait_until 10 "Job $job started" '[ "$(jp job $job "{.spec.suspend}")" = false ]'
expect_eq "Job $job parallelism lowered to the admitted count; completions kept" \
  "$(jp job $job '{.spec.parallelism} {.spec.completions}')" "9 20"
wait_until 30 "$job to finish" 'finished "$w"'
expect_eq "Job $job completed" "$(jp job $job '{.status.conditions[?(@.type=="Complete")].status}')" True

# 2. Partial admission next to a blocker; a minimum that does not fit waits.
job_yaml name=blocker queue=user-queue cpu=1 parallelism=6 sleep=120 | k create -f - >/dev/null
blocker=$(wait_wl_of_job blocker)
wait_until 20 "blocker admitted" 'admitted "$blocker"'
job_yaml name=p2 queue=user-queue cpu=1 parallelism=8 sleep=20 \
  annotations='kueue.x-k8s.io/job-min-parallelism: "2"' | k create -f - >/dev/null
p2=$(wait_wl_of_job p2)
wait_until 20 "p2 admitted" 'admitted "$p2"'
expect_eq "p2 admitted with the 3 CPU left" "$(assignment "$p2")" \
  "cluster-queue/main count=3 flavors=default-flavor,- cpu=3 memory=0"
wait_until 10 "Job p2 started" '[ "$(jp job p2 "{.spec.suspend}")" = false ]'
expect_eq "Job p2 parallelism/completions" "$(jp job p2 '{.spec.parallelism} {.spec.completions}')" "3 8"
job_yaml name=p3 queue=user-queue cpu=1 parallelism=6 sleep=20 \
  annotations='kueue.x-k8s.io/job-min-parallelism: "4"' | k create -f - >/dev/null
p3=$(wait_wl_of_job p3)
wait_until 20 "p3 to wait for quota" '[ "$(wl_cond "$p3" QuotaReserved reason)" = WaitingForQuota ]'
expect_eq "Job p3 stays suspended with its parallelism" "$(jp job p3 '{.spec.suspend} {.spec.parallelism}')" "true 6"
admitted "$blocker" && ! finished "$blocker" || fail "the blocker finished before p3 was checked; the test is too slow"

# 3. The blocker finishes: p3 fits whole.
wait_until 40 "p3 admitted" 'admitted "$p3"'
expect_eq "p3 admitted with its full count" "$(assignment "$p3")" \
  "cluster-queue/main count=6 flavors=default-flavor,- cpu=6 memory=0"
wait_until 10 "Job p3 started" '[ "$(jp job p3 "{.spec.suspend}")" = false ]'
expect_eq "Job p3 parallelism unchanged" "$(jp job p3 '{.spec.parallelism} {.spec.completions}')" "6 6"
wait_until 40 "p2 and p3 to finish" 'finished "$p2" && finished "$p3"'
e2e_pass "partially admitted Jobs ran with the parallelism that fits; a full fit was admitted whole"
