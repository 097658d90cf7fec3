#!/usr/bin/env bash
# The API-server conformance traces (../shared/apiserver-conformance: recorded from a real
# kube-apiserver 1.28 with Kueue's CRDs) replayed against `kueuepp apiserver` with OUR
# CRDs (deploy/crds): the same requests must get the same answers (defaults, enums,
# patterns, minItems, required fields, CEL rules, pruning, status subresources,
# discovery: short names, verbs, namespaced).
#
# One deliberate difference, applied to a copy of the traces: Kueue's CRDs also serve
# kueue.x-k8s.io/v1beta1 (through Kueue's conversion webhook), ours serve v1beta2 only,
# so the v1beta1 entries are dropped from the group's recorded version lists (in
# s01-discovery-core and s02-discovery-kueue-and-health); nothing else is changed.
#
# usage: crd_conformance_test.sh KUEUEPP_BINARY SHARED_DIR   (exit 77: skipped)
set -euo pipefail
bin=$1
shared=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
traces=$shared/apiserver-conformance/traces
if [ ! -d "$traces" ] || ! command -v jq >/dev/null; then
  echo "skipped: needs $traces and jq"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "FAIL: $*"
  exit 1
}

adjusted=()
for f in "$traces"/*.json; do
  name=$(basename "$f" .json)
  jq 'walk(if type == "array"
           then map(select((type == "object" and .groupVersion == "kueue.x-k8s.io/v1beta1") | not))
           else . end)' "$f" >"$tmp/$name.json"
  if [ "$(jq -cS . "$f")" != "$(jq -cS . "$tmp/$name.json")" ]; then adjusted+=("$name"); fi
done
count=$(find "$tmp" -name '*.json' | wc -l)
[ "$count" -gt 0 ] || fail "no traces in $traces"
[ "${adjusted[*]}" = "s01-discovery-core s02-discovery-kueue-and-health" ] ||
  fail "expected to drop v1beta1 from s01 and s02 only, changed: ${adjusted[*]:-none}"
echo "v1beta1 dropped from the recorded kueue.x-k8s.io versions of: ${adjusted[*]}"

rc=0
out=$("$bin" conformance --crds "$src/deploy/crds" "$tmp" 2>"$tmp/log") || rc=$?
echo "$out"
if [ "$rc" -ne 0 ] || ! grep -qx "$count passed, 0 failed" <<<"$out"; then
  echo "--- kueuepp log (last 30 lines)"
  tail -n 30 "$tmp/log"
  fail "not every trace passed with deploy/crds (exit $rc)"
fi
echo "PASS: $count/$count conformance traces with deploy/crds"
