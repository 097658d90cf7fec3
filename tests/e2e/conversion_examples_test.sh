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
read_as() { # VERSION JSON(kind, name, namespace)
  local plural ns
  plural=$(jq -r '.kind | ascii_downcase | if endswith("s") then . + "es" else . + "s" end' <<<"$2")
  ns=$(jq -r '.metadata.namespace // ""' <<<"$2")
  k get "$plural.$1.kueue.x-k8s.io" "$(jq -r .metadata.name <<<"$2")" ${ns:+-n "$ns"} -o json |
    jq -cS '{spec, labels: (.metadata.labels // {})}'
}

for f in "$cases"/*.yaml; do
  case_name=$(basename "$f" .yaml)
  # kubectl prints one document per object, or a List.
  docs=$(k create --dry-run=client -f "$f" -o json | jq -cs 'if length == 1 and .[0].kind == "List" then .[0].items else . end')
  v1=$(jq -c '.[0] | del(.status)' <<<"$docs")
  v2=$(jq -c '.[1] | del(.status)' <<<"$docs")
  twin=$(jq -c '.metadata.name += "-twin"' <<<"$v2")
  k create -f - <<<"$v1" >/dev/null
  k create -f - <<<"$twin" >/dev/null
  as_v1=$(read_as v1beta1 "$v1")
  as_v2=$(read_as v1beta2 "$v1")
  expect_eq "$case_name: every v1beta1 field written reads back as v1beta1" \
    "$(jq -n --argjson a "$(jq -cS '{spec, labels: (.metadata.labels // {})}' <<<"$v1")" --argjson b "$as_v1" "$subset")" true
  expect_eq "$case_name: it reads as v1beta2 with Kueue's mapping" \
    "$(jq -n --argjson a "$(jq -cS '{spec, labels: (.metadata.labels // {})}' <<<"$v2")" --argjson b "$as_v2" "$subset")" true
  expect_eq "$case_name: written as v1beta2, it reads back as v1beta2 exactly the same" "$(read_as v1beta2 "$twin")" "$as_v2"
done

e2e_failed_checks
e2e_pass "every v1beta1 example converts through kubectl both ways and lands on the same object"
