#!/usr/bin/env bash
# perf.smoke_jobsets: `kueuepp perf --jobsets-every 2` on the tiny generator: half of the
# 40 workloads are JobSets the controller queues; all must be created, admitted and
# finished, with the Configuration perf writes. A given Configuration that does not
# manage JobSets is refused before anything starts, naming what it lacks.
#
# usage: perf_jobsets_smoke_test.sh KUEUEPP_BINARY GENERATOR CRDS_DIR JOBSET_CRD PLAIN_CONFIG
set -euo pipefail
bin=$1 generator=$2 crds=$3 jobset_crd=$4 plain_config=$5
if [ ! -d "$crds" ] || [ ! -f "$jobset_crd" ]; then
  echo "SKIP: no CRDs at $crds or no JobSet CRD at $jobset_crd"
  exit 77
fi
out=$(mktemp -d "${TMPDIR:-/tmp}/kueuepp-perf-jobsets-XXXXXX")
trap 'rm -rf "$out"' EXIT

status=0
"$bin" perf --generator "$generator" --out "$out" --timeout 45 --crds "$crds" --crds "$jobset_crd" \
  --jobsets-every 2 >"$out/stdout" 2>"$out/stderr" || status=$?
cat "$out/stdout"
if [ "$status" -ne 0 ]; then
  echo "FAIL: kueuepp perf --jobsets-every 2 exited with $status"
  tail -n 40 "$out/stderr"
  for f in controller.log apiserver.log; do
    [ -f "$out/$f" ] && { echo "--- last lines of $f"; tail -n 20 "$out/$f"; }
  done
  exit 1
fi
for pair in created:40 admitted:40 finished:40 jobSets:20; do
  field=${pair%%:*} expected=${pair#*:}
  value=$(sed -n "s/^  $field: //p" "$out/summary.yaml")
  if [ "$value" != "$expected" ]; then
    echo "FAIL: summary.yaml counts.$field is '$value', expected $expected"
    cat "$out/summary.yaml"
    exit 1
  fi
done
grep -q "jobset.x-k8s.io/jobset" "$out/controller-config.yaml" || { echo "FAIL: perf wrote no JobSet Configuration"; exit 1; }

bad=0
"$bin" perf --generator "$generator" --out "$out/bad" --timeout 45 --crds "$crds" --crds "$jobset_crd" \
  --jobsets-every 2 --controller-config "$plain_config" >"$out/bad.stdout" 2>"$out/bad.stderr" || bad=$?
if [ "$bad" -ne 2 ] || ! grep -q "integrations.frameworks needs jobset.x-k8s.io/jobset" "$out/bad.stderr"; then
  echo "FAIL: a Configuration without JobSets was not refused (exit $bad)"
  tail -n 5 "$out/bad.stderr"
  exit 1
fi
echo "PASS: 40 workloads, 20 of them JobSets, created, admitted and finished"
