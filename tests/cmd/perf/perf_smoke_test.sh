#!/usr/bin/env bash
# perf.smoke: `kueuepp perf` on a tiny generator (1 cohort x 2 queues x 20 workloads)
# must exit 0 with every workload created, admitted and finished, its controller started
# with the given Configuration and the arguments given for it (--controller-arg).
#
# usage: perf_smoke_test.sh KUEUEPP_BINARY GENERATOR CRDS_DIR CONTROLLER_CONFIG
set -euo pipefail
bin=$1 generator=$2 crds=$3 config=$4
if [ ! -d "$crds" ]; then
  echo "SKIP: no CRDs at $crds"
  exit 77
fi
out=$(mktemp -d "${TMPDIR:-/tmp}/kueuepp-perf-smoke-XXXXXX")
trap 'rm -rf "$out"' EXIT
expected=40

status=0
"$bin" perf --generator "$generator" --out "$out" --timeout 45 --crds "$crds" --controller-config "$config" \
  --controller-arg --log-level --controller-arg debug >"$out/stdout" 2>"$out/stderr" || status=$?
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
if ! grep -qx "controllerConfig: \"$(realpath "$config")\"" "$out/summary.yaml"; then
  echo "FAIL: summary.yaml does not name the controller's configuration $config"
  exit 1
fi
# 120 writes in flight: QPS 1000 while each holds its slot for up to three 20 ms io batch
# intervals, twice (cmd/controller_command.cpp, writes_in_flight).
if ! grep -q "API client for .*: qps 1000, burst 2000, up to 120 connections kept open, io batch interval 20000 us" "$out/controller.log"; then
  echo "FAIL: the controller did not run with the configuration's client budget (qps 1000, burst 2000), 120 connections kept for its 120 writes in flight and the default io batch interval"
  head -n 5 "$out/controller.log"
  exit 1
fi
if ! grep -qx 'controllerArgs: \["--log-level", "debug"\]' "$out/summary.yaml"; then
  echo "FAIL: summary.yaml does not list the arguments added to the controller's command line"
  grep controllerArgs "$out/summary.yaml" || true
  exit 1
fi
# An argument the controller refuses must reach it: perf then stops with its words.
bad=0
"$bin" perf --generator "$generator" --out "$out/bad" --timeout 45 --crds "$crds" \
  --controller-arg --no-such-flag >"$out/bad.stdout" 2>"$out/bad.stderr" || bad=$?
if [ "$bad" -eq 0 ] || ! grep -q 'unknown argument "--no-such-flag"' "$out/bad.stderr"; then
  echo "FAIL: with --controller-arg --no-such-flag perf exited $bad without the controller's refusal"
  tail -n 5 "$out/bad.stderr"
  exit 1
fi
bad=0
"$bin" perf --generator "$generator" --out "$out/bad2" --timeout 45 --crds "$crds" \
  --controller-arg --io-batch-interval --controller-arg 1500 >"$out/bad2.stdout" 2>"$out/bad2.stderr" || bad=$?
if [ "$bad" -eq 0 ] || ! grep -q -- '--io-batch-interval needs a number of milliseconds from 0 to 1000' "$out/bad2.stderr"; then
  echo "FAIL: with --io-batch-interval 1500 perf exited $bad without the controller's refusal"
  tail -n 5 "$out/bad2.stderr"
  exit 1
fi
echo "PASS: $expected workloads created, admitted and finished"
