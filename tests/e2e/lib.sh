# Shared helpers of the end-to-end tests: source it from a test script (which runs under
# `set -euo pipefail`), then call `e2e_init "$@"` with the script's arguments
# (KUEUEPP_BINARY SHARED_DIR). The tests of a kind of job (JobSet, Kubeflow, Ray, TrainJob,
# AppWrapper) source job_kind_lib.sh too, for the steps of its lifecycle.
#
# Process:
#   e2e_init BIN SHARED        checks the prerequisites (exit 77, "skipped", when kubectl,
#                              jq, ss or SHARED/kueue-crds is missing), makes $E2E_TMP,
#                              installs the cleanup trap (stops kueuepp, removes $E2E_TMP)
#   e2e_start [ARGS...]        starts `kueuepp standalone` on free ports with the CRDs kueuepp
#                              ships ($E2E_CRDS: deploy/crds of this checkout)
#                              (ARGS are appended, e.g. --job-time-scale 10 --data-dir D),
#                              appending to $E2E_LOG, and waits until kubectl gets an answer
#                              and /readyz says ok
#   e2e_kill [SIGNAL]          stops it (default TERM; KILL for a crash) and reaps it
#   k ARGS...                  kubectl against it
#   api_get PATH               GET on its API server (curl; for the reads tests poll)
#   probe PATH                 GET on its probe/introspection listener (/debug/...)
# Waiting and checking:
#   wait_until SECONDS WHAT CONDITION
#                              evaluates the shell CONDITION until it holds (pausing 0.1 s
#                              at first, 0.5 s from the fifth poll: poll_pause);
#                              else fails with "timed out after SECONDS s waiting for WHAT"
#   fail MESSAGE               prints MESSAGE, the checks that did not hold, the queueing
#                              objects and the log tail (on stderr); exits 1
#   expect_eq WHAT GOT WANT, expect_match WHAT GOT ERE, expect_eventually SECONDS WHAT COMMAND WANT
#                              checks that do not stop the test ("ok - ..." / "not ok - ...");
#                              call them in the test's own shell (not in a pipe or $(...)),
#                              and end the test with e2e_pass SUMMARY, which fails if any
#                              did not hold
# Objects:
#   job_yaml key=value...      a batch/v1 Job (see the function for the keys)
#   unlabelled_job_yaml NAME NS  a Job that names no queue
#   wl_of_job JOB [NS]         the name of the Workload owned by the Job (empty if none yet)
#   wait_wl_of_job JOB [NS]    waits for it and prints it
#   wl_cond WL TYPE [FIELD] [NS]  status (or reason, message) of a Workload condition
#   wl_json WL [NS], cond JSON TYPE [FIELD]
#                              the same from one read of the Workload, for several fields
#                              that must come from one state
#   jp KIND NAME JSONPATH [NS] one field of one object (kubectl -o jsonpath)
#   qty QUANTITY               a Kubernetes quantity as a plain number
#   after_creation_second WL [NS]  waits until a Workload submitted now is later in FIFO order
#
# Everything the test starts is stopped by the trap; a watchdog also stops kueuepp if the
# test shell itself is killed, so no server outlives its test.

E2E_NS=default
# The CRDs a cluster gets from `kubectl apply -k deploy/`: the product is tested with them.
E2E_CRDS=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/deploy/crds

e2e_init() {
  E2E_BIN=${1:?usage: $0 KUEUEPP_BINARY SHARED_DIR}
  E2E_SHARED=${2:?usage: $0 KUEUEPP_BINARY SHARED_DIR}
  if [ ! -d "$E2E_SHARED/kueue-crds" ] || ! command -v kubectl >/dev/null; then
    echo "skipped: needs $E2E_SHARED/kueue-crds and kubectl"
    exit 77
  fi
  for tool in jq ss; do
    if ! command -v "$tool" >/dev/null; then
      echo "skipped: needs $tool"
      exit 77
    fi
  done
  [ -x "$E2E_BIN" ] || { echo "FAIL: $E2E_BIN is not an executable"; exit 1; }
  [ -d "$E2E_CRDS" ] || { echo "FAIL: $E2E_CRDS is missing"; exit 1; }
  E2E_TMP=$(mktemp -d "${TMPDIR:-/tmp}/kueuepp-e2e.XXXXXX")
  E2E_LOG=$E2E_TMP/log
  E2E_PID=
  E2E_PROBE=
  E2E_STARTS=0
  : >"$E2E_LOG"
  trap e2e_cleanup EXIT
  trap 'exit 130' INT TERM
  # The watchdog: if this shell dies without running its trap, stop kueuepp and clean up.
  # It stops when $E2E_TMP/watchdog disappears (the cleanup removes it).
  local parent=$$
  : >"$E2E_TMP/watchdog"
  (
    while [ -e "$E2E_TMP/watchdog" ]; do
      if ! kill -0 "$parent" 2>/dev/null; then
        p=$(cat "$E2E_TMP/pid" 2>/dev/null) && kill -KILL "$p" 2>/dev/null
        rm -rf "$E2E_TMP"
        break
      fi
      sleep 1
    done
  ) </dev/null >/dev/null 2>&1 &
}

e2e_cleanup() {
  local rc=$?
  trap - EXIT
  [ -n "$E2E_PID" ] && e2e_kill TERM
  rm -rf "$E2E_TMP"
  exit "$rc"
}

k() { kubectl --kubeconfig "$E2E_TMP/kc" --request-timeout=10s "$@"; }

# api_get PATH: the API server's answer to a GET (JSON), as `k get --raw PATH` gives it.
# The reads the tests poll go through curl: a kubectl call costs about 0.3 s of CPU
# (its start-up), curl a tenth of that, and two tests polling side by side on two cores
# otherwise take CPU from the product they time. What the user does (create, apply,
# patch, delete) and what a test shows with kubectl's output stays kubectl.
api_get() {
  local server
  server=$(sed -n 's|^ *server: \(http://[^ ]*\)$|\1|p' "$E2E_TMP/kc")
  if [ -n "$server" ]; then
    curl -fsS --max-time 10 "$server$1"
  else
    k get --raw "$1"
  fi
}
E2E_KUEUE_API=/apis/kueue.x-k8s.io/v1beta2

probe() { curl -fsS --max-time 5 "http://$E2E_PROBE$1"; }

e2e_start() {
  E2E_STARTS=$((E2E_STARTS + 1))
  rm -f "$E2E_TMP/kc"
  echo "=== kueuepp standalone start $E2E_STARTS: $*" >>"$E2E_LOG"
  "$E2E_BIN" standalone --listen 127.0.0.1:0 --probe-listen 127.0.0.1:0 \
    --kubeconfig-out "$E2E_TMP/kc" --crds "$E2E_CRDS" "$@" >>"$E2E_LOG" 2>&1 &
  E2E_PID=$!
  echo "$E2E_PID" >"$E2E_TMP/pid"
  local api_port=''
  for _ in $(seq 150); do
    kill -0 "$E2E_PID" 2>/dev/null || fail "kueuepp standalone exited during start-up"
    if [ -s "$E2E_TMP/kc" ] && k get ns default >/dev/null 2>&1; then
      api_port=$(sed -n 's|.*server: https\?://127.0.0.1:\([0-9]*\).*|\1|p' "$E2E_TMP/kc")
      break
    fi
    sleep 0.2
  done
  [ -n "$api_port" ] || fail "the API server did not come up"
  # --probe-listen 127.0.0.1:0 picks a free port: of the process's other listeners (the
  # probes, the admission webhooks' HTTPS) it is the one answering /readyz in plain HTTP.
  for _ in $(seq 50); do
    for E2E_PROBE in $(ss -Hltnp 2>/dev/null | grep "pid=$E2E_PID," | awk '{print $4}' |
      grep -v ":$api_port\$"); do
      [ "$(probe /readyz 2>/dev/null)" = ok ] && return 0
    done
    sleep 0.2
  done
  fail "the controller did not become ready (probe listener '${E2E_PROBE:-not found}')"
}

e2e_kill() {
  local sig=${1:-TERM}
  [ -n "$E2E_PID" ] || return 0
  {
    kill "-$sig" "$E2E_PID" || true
    for _ in $(seq 50); do
      kill -0 "$E2E_PID" || break
      sleep 0.2
    done
    kill -KILL "$E2E_PID" || true
    wait "$E2E_PID" || true
  } 2>/dev/null
  echo "=== kueuepp standalone stopped with SIG$sig" >>"$E2E_LOG"
  E2E_PID=
  rm -f "$E2E_TMP/pid"
}

# A compact view of the queueing objects, for failure reports.
e2e_dump() {
  echo "--- workloads (queue, priority, QuotaReserved/Admitted/Evicted/Preempted/Requeued/Finished, admission)"
  k get workloads -A -o json 2>/dev/null | jq -r '
    def c($t): ((.status.conditions // []) | map(select(.type == $t)) | first) as $c
      | if $c then "\($c.status)(\($c.reason))" else "-" end;
    .items[] | [.metadata.namespace + "/" + .metadata.name, .spec.queueName, (.spec.priority // 0 | tostring),
      c("QuotaReserved"), c("Admitted"), c("Evicted"), c("Preempted"), c("Requeued"), c("Finished"),
      ((.status.admission // {}) | "\(.clusterQueue // "-") \([.podSetAssignments[]?.count] | map(tostring) | join(","))")]
    | join("  ")' 2>/dev/null || true
  echo "--- pending messages"
  k get workloads -A -o json 2>/dev/null | jq -r '.items[] | (.status.conditions // [])[]
    | select(.type == "QuotaReserved" and .status == "False") | .message' 2>/dev/null | sort | uniq -c || true
  echo "--- jobs (suspend, parallelism, succeeded)"
  k get jobs -A -o custom-columns='NAME:.metadata.name,SUSPEND:.spec.suspend,PARALLELISM:.spec.parallelism,SUCCEEDED:.status.succeeded' 2>/dev/null || true
  echo "--- clusterqueues"
  k get clusterqueues -o json 2>/dev/null | jq -c '.items[] | {name: .metadata.name, stopPolicy: .spec.stopPolicy,
    conditions: [.status.conditions[]? | {type, status, reason}], pending: .status.pendingWorkloads,
    reserving: .status.reservingWorkloads, admitted: .status.admittedWorkloads,
    usage: [.status.flavorsUsage[]? | {name, resources}]}' 2>/dev/null || true
}

# On stderr, so that a failure inside $(...) is seen too (set -e then ends the test).
fail() {
  {
    echo "FAIL: $*"
    e2e_failed_checks
    if [ -n "$E2E_PID" ] && kill -0 "$E2E_PID" 2>/dev/null; then
      e2e_dump
    else
      echo "(kueuepp standalone is not running)"
    fi
    echo "--- kueuepp log (last 60 lines)"
    tail -n 60 "$E2E_LOG"
  } >&2
  exit 1
}

# Checks that do not stop the test: each prints "ok - WHAT" or "not ok - WHAT: got ..., want ...",
# and e2e_pass (or a later fail) reports every check that did not hold.
E2E_FAILED_CHECKS=()
expect_eq() {
  local what=$1 got=$2 want=$3
  if [ "$got" = "$want" ]; then
    echo "ok - $what"
  else
    echo "not ok - $what: got '$got', want '$want'"
    E2E_FAILED_CHECKS+=("$what: got '$got', want '$want'")
  fi
}

# expect_match WHAT GOT ERE: GOT matches the extended regular expression ERE.
expect_match() {
  local what=$1 got=$2 want=$3
  if [[ $got =~ $want ]]; then
    echo "ok - $what"
  else
    echo "not ok - $what: got '$got', want a match of /$want/"
    E2E_FAILED_CHECKS+=("$what: got '$got', want a match of /$want/")
  fi
}

# expect_eventually SECONDS WHAT COMMAND WANT: polls COMMAND (evaluated) until it prints WANT;
# if it does not within SECONDS, that is a failed check (the test goes on), reporting the
# last value seen.
expect_eventually() {
  local seconds=$1 what=$2 command=$3 want=$4 got polls=0
  local deadline=$((SECONDS + seconds))
  while got=$(eval "$command") || true; [ "$got" != "$want" ]; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "not ok - $what: got '$got' (still after $seconds s), want '$want'"
      E2E_FAILED_CHECKS+=("$what: got '$got' (still after $seconds s), want '$want'")
      return 0
    fi
    poll_pause $((polls++))
  done
  echo "ok - $what"
}

e2e_failed_checks() {
  [ ${#E2E_FAILED_CHECKS[@]} -gt 0 ] || return 0
  echo "checks that did not hold:"
  printf '  - %s\n' "${E2E_FAILED_CHECKS[@]}"
}

# e2e_pass SUMMARY: PASS when every check held, else FAIL with the list.
e2e_pass() {
  [ ${#E2E_FAILED_CHECKS[@]} -eq 0 ] || fail "${#E2E_FAILED_CHECKS[@]} check(s) did not hold"
  echo "PASS: $*"
}

wait_until() {
  local seconds=$1 what=$2 condition=$3 polls=0
  local deadline=$((SECONDS + seconds))
  while :; do
    eval "$condition" && return 0
    [ "$SECONDS" -lt "$deadline" ] || fail "timed out after $seconds s waiting for $what"
    poll_pause $((polls++))
  done
}

# poll_pause N: the pause after the Nth poll (from 0) of a condition: 0.1 s, growing to
# 0.5 s from the fifth on. What holds soon is seen soon; a long wait (a Job running its
# time out) does not spend a core on kubectl, whose every call costs 0.1-0.2 s of CPU
# that the product under test and the neighbouring test then lack.
E2E_POLL_PAUSES=(0.1 0.2 0.3 0.4 0.5)
poll_pause() {
  local n=$1
  [ "$n" -lt ${#E2E_POLL_PAUSES[@]} ] || n=$((${#E2E_POLL_PAUSES[@]} - 1))
  sleep "${E2E_POLL_PAUSES[$n]}"
}

# The queue most tests need: ResourceFlavor "default", ClusterQueue "cq" open to every
# namespace with QUOTA cpu on it, and LocalQueue default/lq pointing at it.
# usage: apply_one_queue QUOTA
apply_one_queue() {
  k apply -f - >/dev/null <<EOF
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources: [{name: cpu, nominalQuota: $1}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: default}
spec: {clusterQueue: cq}
EOF
}

# job_yaml name=N queue=LQ [cpu=1] [parallelism=1] [completions=PARALLELISM] [sleep=10]
#          [ns=default] [labels='k: v, k2: v2'] [annotations='k: v'] [priorityClassName=PC]
# A Job of `parallelism` pods, each requesting `cpu`, whose container runs `sleep N`
# (the standalone job runner runs it for N / --job-time-scale seconds).
job_yaml() {
  local name='' queue='' cpu=1 parallelism=1 completions='' sleep=10 ns=$E2E_NS labels='' annotations='' pc='' kv
  for kv in "$@"; do
    case $kv in
      name=*) name=${kv#*=} ;;
      queue=*) queue=${kv#*=} ;;
      cpu=*) cpu=${kv#*=} ;;
      parallelism=*) parallelism=${kv#*=} ;;
      completions=*) completions=${kv#*=} ;;
      sleep=*) sleep=${kv#*=} ;;
      ns=*) ns=${kv#*=} ;;
      labels=*) labels=${kv#*=} ;;
      annotations=*) annotations=${kv#*=} ;;
      priorityClassName=*) pc=${kv#*=} ;;
      *) echo "job_yaml: unknown key $kv" >&2; return 1 ;;
    esac
  done
  cat <<EOF
apiVersion: batch/v1
kind: Job
metadata:
  name: $name
  namespace: $ns
  labels: {kueue.x-k8s.io/queue-name: $queue${labels:+, $labels}}
  annotations: {${annotations}}
spec:
  parallelism: $parallelism
  completions: ${completions:-$parallelism}
  template:
    spec:
      ${pc:+priorityClassName: $pc}
      restartPolicy: Never
      containers:
      - name: main
        image: registry.k8s.io/e2e-test-images/agnhost:2.53
        command: ["/bin/sh"]
        args: ["-c", "sleep $sleep"]
        resources:
          requests:
            cpu: "$cpu"
EOF
}

# unlabelled_job_yaml NAME NS: a batch/v1 Job of one 1-CPU pod (sleep 10) that names no
# queue (for the webhooks' defaulting and manageJobsWithoutQueueName).
unlabelled_job_yaml() {
  cat <<EOF
apiVersion: batch/v1
kind: Job
metadata: {name: $1, namespace: $2}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: registry.k8s.io/e2e-test-images/agnhost:2.53
        command: ["/bin/sh", "-c", "sleep 10"]
        resources: {requests: {cpu: "1"}}
EOF
}

# qty QUANTITY: a Kubernetes quantity as a plain number (base units), to compare values
# that may be written in different forms ("1800Mi" and "1887436800", "500m" and "0.5").
qty() {
  awk -v q="$1" 'BEGIN {
    n = q; sub(/[a-zA-Z]+$/, "", n); s = substr(q, length(n) + 1)
    f["Ki"] = 2^10; f["Mi"] = 2^20; f["Gi"] = 2^30; f["Ti"] = 2^40
    f["m"] = 1e-3; f["k"] = 1e3; f["M"] = 1e6; f["G"] = 1e9; f["T"] = 1e12; f[""] = 1
    if (!(s in f) || n == "") { print "invalid(" q ")"; exit }
    printf "%.15g\n", n * f[s] }'
}

wl_of_job() {
  api_get "$E2E_KUEUE_API/namespaces/${2:-$E2E_NS}/workloads" |
    jq -r --arg job "$1" '.items[] | select(any(.metadata.ownerReferences[]?; .kind == "Job" and .name == $job)) | .metadata.name'
}

wait_wl_of_job() {
  local _job=$1 _ns=${2:-$E2E_NS} _wl=
  wait_until 20 "the Workload of Job $_job" '_wl=$(wl_of_job "$_job" "$_ns"); [ -n "$_wl" ]'
  echo "$_wl"
}

wl_cond() {
  api_get "$E2E_KUEUE_API/namespaces/${4:-$E2E_NS}/workloads/$1" |
    jq -r --arg t "$2" --arg f "${3:-status}" '[.status.conditions[]? | select(.type == $t) | .[$f] // ""] | join(" ")'
}

# after_creation_second WL [NS]: waits until the clock is past the second WL was created in.
# Kueue orders equal priorities by creationTimestamp (whole seconds), then by UID: a
# workload submitted after this call comes later in FIFO order than WL, whatever the UIDs.
after_creation_second() {
  local _created
  _created=$(date -d "$(k get workload -n "${2:-$E2E_NS}" "$1" -o jsonpath='{.metadata.creationTimestamp}')" +%s)
  wait_until 3 "the second after $1 was created" '[ "$(date +%s)" -gt "$_created" ]'
}

# wl_json WL [NS]: the Workload as JSON, to read several fields from one consistent state.
wl_json() { api_get "$E2E_KUEUE_API/namespaces/${2:-$E2E_NS}/workloads/$1"; }
# cond JSON TYPE [FIELD]: status (or reason, message) of a condition in such a JSON.
cond() {
  jq -r --arg t "$2" --arg f "${3:-status}" '[.status.conditions[]? | select(.type == $t) | .[$f]] | first // ""' <<<"$1"
}

jp() {
  # A plain path ({.a.b}) of a Job or Workload, the fields tests poll most, is read with
  # api_get and printed as kubectl's jsonpath prints it: a string bare, anything else as
  # compact JSON with sorted keys, nothing when absent.
  local base=''
  case $1 in
    job | jobs) base=/apis/batch/v1 ;;
    workload | workloads) base=$E2E_KUEUE_API ;;
  esac
  if [ -n "$base" ] && [[ $3 =~ ^\{(\.[A-Za-z0-9_]+)+\}$ ]]; then
    local ns=${4:-$(sed -n 's|^ *namespace: ||p' "$E2E_TMP/kc" | head -n 1)}
    local path=${3#\{}
    api_get "$base/namespaces/${ns:-default}/${1%s}s/$2" | jq -jcS "${path%\}} | select(. != null)"
    return
  fi
  if [ -n "${4:-}" ]; then
    k get "$1" -n "$4" "$2" -o jsonpath="$3"
  else
    k get "$1" "$2" -o jsonpath="$3"
  fi
}
