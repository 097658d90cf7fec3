# Several controller replicas against one embedded API server, for the leader-election
# and sharding tests. Source it after lib.sh and e2e_init.
#
#   rep_start_apiserver [ARGS...]   `kueuepp apiserver` on a free port with the CRDs we ship
#                                   (ARGS appended, e.g. --audit-log FILE); sets $E2E_TMP/kc
#   api PATH                        GET PATH from the API server with curl (samplers)
#   rep_config LEASE RENEW RETRY    writes $REP_CONFIG: Kueue's Configuration with these
#                                   leader-election durations (Go durations, e.g. 3s)
#   rep_start NAME [ARGS...]        `kueuepp controller --identity NAME --config $REP_CONFIG`
#                                   (ARGS appended, e.g. --shards 4); its log lines go to
#                                   $E2E_LOG prefixed with [NAME]
#   rep_signal NAME SIGNAL          sends SIGNAL to the replica (KILL and TERM also reap it)
#   rep_alive NAME                  true while it runs
#   shard_holders                   "shard holder" lines of the shard Leases ("-" when free)
#   holder_counts                   how many shards each holder has, sorted ("1 1 2")
#   now_ms                          wall clock in milliseconds
#
# The cleanup stops every replica and the API server before lib.sh's own cleanup.

REP_NS=kueuepp-system
REP_PREFIX=kueuepp
declare -A REP_PID=()
REP_API_PID=

rep_cleanup() {
  local rc=$? name
  for name in "${!REP_PID[@]}"; do
    kill -KILL "${REP_PID[$name]}" 2>/dev/null || true
    wait "${REP_PID[$name]}" 2>/dev/null || true
  done
  (exit "$rc")
  e2e_cleanup  # stops the API server ($E2E_PID)
}
trap rep_cleanup EXIT

rep_start_apiserver() {
  "$E2E_BIN" apiserver --listen 127.0.0.1:0 --kubeconfig-out "$E2E_TMP/kc" --crds "$E2E_CRDS" "$@" \
    >>"$E2E_LOG" 2>&1 &
  REP_API_PID=$!
  # lib.sh's watchdog and failure report know the API server as "the" process.
  E2E_PID=$REP_API_PID
  echo "$REP_API_PID" >"$E2E_TMP/pid"
  wait_until 30 "the API server" '[ -s "$E2E_TMP/kc" ] && k get ns default >/dev/null 2>&1'
  REP_API_URL=$(sed -n 's|.*server: \(http://127.0.0.1:[0-9]*\).*|\1|p' "$E2E_TMP/kc")
  k create namespace "$REP_NS" >/dev/null
}

# api PATH: a GET straight to the API server (cheaper than kubectl, for samplers).
api() { curl -fsS --max-time 5 "$REP_API_URL$1"; }

rep_config() {
  REP_CONFIG=$E2E_TMP/config.yaml
  cat >"$REP_CONFIG" <<EOF
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
namespace: $REP_NS
leaderElection:
  leaderElect: true
  resourceName: $REP_PREFIX
  leaseDuration: $1
  renewDeadline: $2
  retryPeriod: $3
EOF
}

rep_start() {
  local name=$1
  shift
  echo "=== replica $name starts: $*" >>"$E2E_LOG"
  # Every line of its log in $E2E_LOG, prefixed with its name (fail shows the tail).
  "$E2E_BIN" controller --kubeconfig "$E2E_TMP/kc" --config "$REP_CONFIG" --identity "$name" \
    --probe-listen 127.0.0.1:0 "$@" > >(sed -u "s/^/[$name] /" >>"$E2E_LOG") 2>&1 &
  REP_PID[$name]=$!
}

rep_alive() { kill -0 "${REP_PID[$1]}" 2>/dev/null; }

rep_signal() {
  local name=$1 sig=$2 pid=${REP_PID[$1]}
  kill "-$sig" "$pid" 2>/dev/null || true
  echo "=== replica $name got SIG$sig" >>"$E2E_LOG"
  if [ "$sig" = KILL ] || [ "$sig" = TERM ]; then
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    unset "REP_PID[$name]"
  fi
}

shard_holders() {
  k get leases -n "$REP_NS" -o json | jq -r --arg p "$REP_PREFIX-shard-" '
    .items[] | select(.metadata.name | startswith($p))
    | "\(.metadata.name | ltrimstr($p)) \(if (.spec.holderIdentity // "") == "" then "-" else .spec.holderIdentity end)"' |
    sort -n
}

holder_counts() { shard_holders | awk '{print $2}' | sort | uniq -c | awk '{print $1}' | sort -n | xargs; }

now_ms() { date +%s%3N; }
