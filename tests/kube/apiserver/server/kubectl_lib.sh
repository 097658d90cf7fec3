# The harness shared by the kubectl scripts of the embedded API server: source it with
# $bin set (the kueuepp binary), and optionally the array server_args (more arguments of
# `kueuepp apiserver`, e.g. --crds DIR). It starts `kueuepp apiserver` on a free port (log
# in $tmp/log), waits until kubectl gets an answer, and stops it on exit with whatever the
# script started in the background (add their pids to `background`).
#
#   k ARGS...                   kubectl against it (a discovery cache of its own: the
#                               cache is per server address, and the port is new each run)
#   fail MESSAGE                prints MESSAGE and the server's log tail; exits 1
#   expect WANT COMMAND...      the command succeeds and prints exactly WANT
#   refused COMMAND...          the command fails (the server refused it)
#   refused_with WORDS COMMAND...  ... and its output contains WORDS
#   eventually SECONDS COMMAND...  polls the command until it succeeds

tmp=$(mktemp -d)
"$bin" apiserver --listen 127.0.0.1:0 --kubeconfig-out "$tmp/kc" ${server_args[@]+"${server_args[@]}"} >"$tmp/log" 2>&1 &
pid=$!
background=()
cleanup() {
  for p in "${background[@]}"; do kill "$p" 2>/dev/null || true; done
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  echo "--- kueuepp log"
  tail -30 "$tmp/log"
  exit 1
}
k() { kubectl --kubeconfig "$tmp/kc" --cache-dir "$tmp/cache" --request-timeout=20s "$@"; }
expect() {
  local want=$1 got
  shift
  got=$("$@" 2>&1) || fail "$* failed: $got"
  [ "$got" = "$want" ] || fail "$*: got '$got', want '$want'"
}
refused() {
  local out
  if out=$("$@" 2>&1); then fail "$* succeeded, expected a refusal: $out"; fi
}
refused_with() {
  local words=$1 out
  shift
  if out=$("$@" 2>&1); then fail "$* succeeded, expected a refusal: $out"; fi
  grep -qF -- "$words" <<<"$out" || fail "$* was refused without '$words': $out"
}
eventually() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$deadline" ] || fail "timed out waiting for: $*"
    sleep 0.1
  done
}

for _ in $(seq 100); do
  [ -s "$tmp/kc" ] && k get ns default >/dev/null 2>&1 && break
  sleep 0.1
done
k get ns default >/dev/null || fail "the API server did not come up"
