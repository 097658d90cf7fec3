#!/usr/bin/env bash
# Every v1beta1 example of tests/kube/conversion/cases (written from Kueue's documentation
# of the older API, each paired with what Kueue's conversion makes of it in v1beta2),
# through kubectl on standalone, whose embedded API server converts through kueuepp's
# webhook as kube-apiserver does:
#   - created as v1beta1, every field written reads back as v1beta1, and the object reads
#     as v1beta2 with Kueue's mapping (the pair's v1beta2 fields);
#   - the pair's v1beta2 object, created under another name, reads back as v1beta2 exactly
#     as the v1beta1 one does (spec and labels): both versions land on the same object.
#     (Read as v1beta1 the two may differ in spelling only: the one written as v1beta1
#     keeps its own, e.g. `admissionChecks` and `Borrow`, where the other reads with the
#     v1beta2 forms v1beta1 also accepts.)
#
# usage: conversion_examples_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
e2e_start --job-time-scale 10
cases=$(cd "$(dirname "$0")/../kube/conversion/cases" && pwd)

# subset A B: every field of A is in B with the same value (arrays item by item).
subset='def sub($x; $y): if ($x | type) == "object" then ($y | type) == "object" and all($x | to_entries[]; sub(.value; $y[.key]))
  elif ($x | type) == "array" then ($y | type) == "array" and ($x | length) == ($y | length) and all(range($x | length); sub($x[.]; $y[.]))
  else $x == $y end; sub($a; $b)'
kinds="admissionchecks clusterqueues cohorts localqueues resourceflavors workloads workloadpriorityclasses"
# all_as VERSION: every object of the Kueue kinds as VERSION, keyed "Kind/name".
all_as() {
  k get "$(for p in $kinds; do printf '%s.%s.kueue.x-k8s.io,' "$p" "$1"; done | sed 's/,$//')" -A -o json |
    jq -cS '[.items[] | {key: "\(.kind)/\(.metadata.name)", value: {spec, labels: (.metadata.labels // {})}}] | from_entries'
}
key_of() { jq -r '"\(.kind)/\(.metadata.name)"' <<<"$1"; }
shape() { jq -cS '{spec, labels: (.metadata.labels // {})}' <<<"$1"; }

# Every case's v1beta1 object, then every v1beta2 twin, each set in one kubectl call
# (kubectl prints one document per object, or a List).
v1s=() v2s=() names=()
for f in "$cases"/*.yaml; do
  docs=$(k create --dry-run=client -f "$f" -o json | jq -cs 'if length == 1 and .[0].kind == "List" then .[0].items else . end')
  names+=("$(basename "$f" .yaml)")
  v1s+=("$(jq -c '.[0] | del(.status)' <<<"$docs")")
  v2s+=("$(jq -c '.[1] | del(.status)' <<<"$docs")")
done
printf '%s\n' "${v1s[@]}" | k create -f - >/dev/null
printf '%s\n' "${v2s[@]}" | jq -c '.metadata.name += "-twin"' | k create -f - >/dev/null
as_v1=$(all_as v1beta1)
as_v2=$(all_as v1beta2)
for i in "${!names[@]}"; do
  case_name=${names[$i]} v1=${v1s[$i]} v2=${v2s[$i]}
  key=$(key_of "$v1")
  expect_eq "$case_name: every v1beta1 field written reads back as v1beta1" \
    "$(jq -n --argjson a "$(shape "$v1")" --argjson b "$(jq -c --arg k "$key" '.[$k]' <<<"$as_v1")" "$subset")" true
  expect_eq "$case_name: it reads as v1beta2 with Kueue's mapping" \
    "$(jq -n --argjson a "$(shape "$v2")" --argjson b "$(jq -c --arg k "$key" '.[$k]' <<<"$as_v2")" "$subset")" true
  expect_eq "$case_name: written as v1beta2, it reads back as v1beta2 exactly the same" \
    "$(jq -c --arg k "$key-twin" '.[$k]' <<<"$as_v2")" "$(jq -c --arg k "$key" '.[$k]' <<<"$as_v2")"
done

e2e_failed_checks
e2e_pass "every v1beta1 example converts through kubectl both ways and lands on the same object"
