#!/usr/bin/env bash
# perf.smoke: `kueuepp perf` on a tiny generator (1 cohort x 2 queues x 20 workloads)
# must exit 0 with every workload created, admitted and finished.
#
# usage: perf_smoke_test.sh KUEUEPP_BINARY GENERATOR CRDS_DIR
set -euo pipefail
bin=$1 generator=$2 crds=$3
if [ ! -d "$crds" ]; then
  echo "SKIP: no CRDs at $crds"
  exit 77
fi
out=$(mktemp -d "${TMPDIR:-/tmp}/kueuepp-perf-smoke-XXXXXX")
trap 'rm -rf "$out"' EXIT
expected=40

status=0
"$bin" perf --generator "$generator" --out "$out" --timeout 45 --crds "$crds" >"$out/stdout" 2>"$out/stderr" || status=$?
cat "$out/stdout"
if [ "$status" -ne 0 ]; then
  echo "FAIL: kueuepp perf exited with $status"
  tail -n 40 "$out/stderr"
  for f in controller.log apiserver.log; do
    [ -f "$out/$f" ] && { echo "--- last lines of $f"; tail -n 20 "$out/$f"; }
  done
  exit 1
fi
for field in created admitted finished; do
  value=$(sed -n "s/^  $field: //p" "$out/summary.yaml")
  if [ "$value" != "$expected" ]; then
    echo "FAIL: summary.yaml counts.$field is '$value', expected $expected"
    cat "$out/summary.yaml"
    exit 1
  fi
done
echo "PASS: $expected workloads created, admitted and finished"
