#!/usr/bin/env bash
# Kueue's example manifests (../shared/kueue-examples) against OUR CRDs: every document
# whose kind is one of the seven kinds of deploy/crds is accepted by
# `kubectl apply --dry-run=server` against `kueuepp apiserver --crds deploy/crds`, and the
# object the server would store (defaults applied, unknown fields pruned) is the one a
# server with Kueue's own CRDs (../shared/kueue-crds) stores. Prints what was checked.
#
# usage: examples_test.sh KUEUEPP_BINARY SHARED_DIR   (exit 77: skipped)
set -euo pipefail
bin=$1
shared=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
examples=$shared/kueue-examples
if [ ! -d "$examples" ] || [ ! -d "$shared/kueue-crds" ] || ! command -v kubectl >/dev/null ||
  ! command -v jq >/dev/null; then
  echo "skipped: needs $examples, $shared/kueue-crds, kubectl and jq"
  exit 77
fi
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  for s in ours kueue; do
    [ -f "$tmp/$s.log" ] && { echo "--- $s server log (last 20 lines)"; tail -n 20 "$tmp/$s.log"; }
  done
  exit 1
}

# Two servers: ours with deploy/crds, the reference with Kueue's CRDs.
start() {
  local name=$1 crds=$2
  "$bin" apiserver --listen 127.0.0.1:0 --kubeconfig-out "$tmp/$name.kc" --crds "$crds" >"$tmp/$name.log" 2>&1 &
  pids+=($!)
}
k() {
  local name=$1
  shift
  kubectl --kubeconfig "$tmp/$name.kc" --cache-dir "$tmp/cache-$name" --request-timeout=20s "$@"
}
start ours "$src/deploy/crds"
start kueue "$shared/kueue-crds"
for s in ours kueue; do
  for _ in $(seq 150); do
    [ -s "$tmp/$s.kc" ] && k "$s" get ns default >/dev/null 2>&1 && break
    sleep 0.1
  done
  k "$s" get ns default >/dev/null || fail "the $s API server did not come up"
done

kinds='ResourceFlavor|ClusterQueue|LocalQueue|Cohort|Workload|WorkloadPriorityClass|AdmissionCheck'
# Split every example into its documents; keep the kueue.x-k8s.io ones of our kinds.
mkdir "$tmp/docs"
n=0
while IFS= read -r file; do
  rel=${file#"$examples"/}
  base=$tmp/docs/$(printf %03d "$n")
  awk -v out="$base" '
    /^---/ { doc++; next }
    { print > (out "." sprintf("%03d", doc) ".yaml") }' "$file"
  for d in "$base".*.yaml; do
    [ -f "$d" ] || continue
    if grep -Eq "^kind: ($kinds)\s*$" "$d" && grep -Eq '^apiVersion: kueue\.x-k8s\.io/' "$d"; then
      echo "$rel" >"$d.source"
    else
      rm -f "$d"
    fi
  done
  n=$((n + 1))
done < <(find "$examples" -name '*.yaml' | sort)

# The namespaces the documents live in exist on both servers (dry-run needs them).
for ns in $(cat "$tmp"/docs/*.yaml | awk '/^  namespace:/ {print $2}' | sort -u); do
  for s in ours kueue; do k "$s" create namespace "$ns" >/dev/null 2>&1 || true; done
done

normalize() {
  jq -S 'del(.metadata.uid, .metadata.creationTimestamp, .metadata.resourceVersion, .metadata.managedFields)'
}
checked=0
declare -A per_kind=()
for d in "$tmp"/docs/*.yaml; do
  rel=$(cat "$d.source")
  ours=$(k ours apply --dry-run=server -o json -f "$d" 2>&1) ||
    fail "$rel: refused with deploy/crds: $ours"$'\n'"$(cat "$d")"
  kueue=$(k kueue apply --dry-run=server -o json -f "$d" 2>&1) ||
    fail "$rel: refused with Kueue's CRDs (the example itself is wrong?): $kueue"
  what=$(jq -r '"\(.kind)/\(.metadata.name)" + (if .metadata.namespace then " in \(.metadata.namespace)" else "" end)' <<<"$ours")
  if [ "$(normalize <<<"$ours")" != "$(normalize <<<"$kueue")" ]; then
    diff <(normalize <<<"$kueue") <(normalize <<<"$ours") || true
    fail "$rel: $what is stored differently with deploy/crds (< Kueue's CRDs, > ours)"
  fi
  echo "ok - $rel: $what"
  checked=$((checked + 1))
  kind=$(jq -r .kind <<<"$ours")
  per_kind[$kind]=$((${per_kind[$kind]:-0} + 1))
done
[ "$checked" -gt 0 ] || fail "no example of our kinds found in $examples"
summary=$(for kind in "${!per_kind[@]}"; do echo "$kind ${per_kind[$kind]}"; done | sort | paste -sd, - | sed 's/,/, /g')
echo "PASS: $checked example objects accepted by deploy/crds and stored as with Kueue's CRDs ($summary)"
