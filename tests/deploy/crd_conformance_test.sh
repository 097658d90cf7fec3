#!/usr/bin/env bash
# The API-server conformance traces (../shared/apiserver-conformance: recorded from a real
# kube-apiserver 1.28 with Kueue's CRDs) replayed against `kueuepp apiserver` with OUR
# CRDs (deploy/crds): the same requests must get the same answers (defaults, enums,
# patterns, minItems, required fields, CEL rules, pruning, status subresources,
# discovery: short names, verbs, namespaced).
#
# The traces are replayed as recorded: like Kueue's, our CRDs serve kueue.x-k8s.io/v1beta1
# (through kueuepp's conversion webhook) beside v1beta2.
#
# usage: crd_conformance_test.sh KUEUEPP_BINARY SHARED_DIR   (exit 77: skipped)
set -euo pipefail
bin=$1
shared=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
traces=$shared/apiserver-conformance/traces
if [ ! -d "$traces" ]; then
  echo "skipped: needs $traces"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "FAIL: $*"
  exit 1
}

count=$(find "$traces" -name '*.json' | wc -l)
[ "$count" -gt 0 ] || fail "no traces in $traces"

rc=0
out=$("$bin" conformance --crds "$src/deploy/crds" "$traces" 2>"$tmp/log") || rc=$?
echo "$out"
if [ "$rc" -ne 0 ] || ! grep -qx "$count passed, 0 failed" <<<"$out"; then
  echo "--- kueuepp log (last 30 lines)"
  tail -n 30 "$tmp/log"
  fail "not every trace passed with deploy/crds (exit $rc)"
fi
echo "PASS: $count/$count conformance traces with deploy/crds"
