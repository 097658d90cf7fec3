#!/usr/bin/env bash
# kueue.x-k8s.io/v1beta1 served beside v1beta2 through kueuepp's conversion webhook,
# end to end through kubectl: standalone registers /convert by URL in its embedded API
# server's CRDs (the path a real cluster takes with a Service), which calls it as
# kube-apiserver does:
#   - every Kueue CRD points its conversion webhook at standalone's webhook server;
#   - a v1beta1 ClusterQueue written with `cohort:` and the deprecated `Borrow` reads back
#     as v1beta2 with `cohortName` and `MayStopSearch`, and as v1beta1 exactly as written;
#   - objects are stored as v1beta2 (status.storedVersions);
#   - a Job is admitted through the v1beta1-authored queues, and its Workload, read as
#     v1beta1, shows the admission;
#   - a watch on v1beta1 sees a ClusterQueue written as v1beta2, converted.
#
# usage: conversion_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
e2e_start --job-time-scale 10

for crd in resourceflavors clusterqueues localqueues cohorts workloadpriorityclasses admissionchecks workloads; do
  expect_eventually 20 "the $crd CRD converts through standalone's webhook server" \
    "k get crd $crd.kueue.x-k8s.io -o jsonpath='{.spec.conversion.strategy} {.spec.conversion.webhook.clientConfig.url}' | sed -E 's#:[0-9]+/#:PORT/#'" \
    "Webhook https://127.0.0.1:PORT/convert"
done

k apply -f - >/dev/null <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq}
spec:
  cohort: team
  namespaceSelector: {}
  flavorFungibility:
    whenCanBorrow: Borrow
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources: [{name: cpu, nominalQuota: 2}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: lq, namespace: default}
spec: {clusterQueue: cq}
YAML

got=$(k get clusterqueues.v1beta2.kueue.x-k8s.io cq -o jsonpath='{.apiVersion} {.spec.cohortName} {.spec.flavorFungibility.whenCanBorrow} {.spec.cohort}')
expect_eq "the v1beta1 ClusterQueue reads as v1beta2 with Kueue's mapping" "$got" "kueue.x-k8s.io/v1beta2 team MayStopSearch "
got=$(k get clusterqueues.v1beta1.kueue.x-k8s.io cq -o jsonpath='{.apiVersion} {.spec.cohort} {.spec.flavorFungibility.whenCanBorrow} {.spec.cohortName}')
expect_eq "and as v1beta1 as it was written" "$got" "kueue.x-k8s.io/v1beta1 team Borrow "
got=$(k get clusterqueues.v1beta1.kueue.x-k8s.io cq -o json | jq -cS '.spec | del(.preemption, .queueingStrategy, .stopPolicy, .flavorFungibility.whenCanPreempt, .flavorFungibility.preference) | .resourceGroups[0].flavors[0].resources[0] |= {name, nominalQuota}')
expect_eq "the v1beta1 spec round-trips (defaults aside)" "$got" \
  '{"cohort":"team","flavorFungibility":{"whenCanBorrow":"Borrow"},"namespaceSelector":{},"resourceGroups":[{"coveredResources":["cpu"],"flavors":[{"name":"default","resources":[{"name":"cpu","nominalQuota":2}]}]}]}'
got=$(k get crd clusterqueues.kueue.x-k8s.io -o jsonpath='{.status.storedVersions}')
expect_eq "objects are stored as v1beta2" "$got" '["v1beta2"]'

job_yaml name=through-v1beta1 queue=lq sleep=100 | k create -f - >/dev/null
expect_eventually 20 "a Job is admitted through the v1beta1-authored queues" \
  "k get job through-v1beta1 -o jsonpath='{.spec.suspend}'" "false"
wl=$(wait_wl_of_job through-v1beta1)
got=$(k get workloads.v1beta1.kueue.x-k8s.io -n default "$wl" -o jsonpath='{.apiVersion} {.status.admission.clusterQueue} {.status.admission.podSetAssignments[0].flavors.cpu}')
expect_eq "its Workload read as v1beta1 shows the admission" "$got" "kueue.x-k8s.io/v1beta1 cq default"
got=$(k get workloads.v1beta1.kueue.x-k8s.io -n default -o name | grep -c "$wl" || true)
expect_eq "and v1beta1 lists it" "$got" "1"

# A watch on v1beta1 sees what is written as v1beta2, converted.
k get clusterqueues.v1beta1.kueue.x-k8s.io --watch \
  -o jsonpath='{.apiVersion} {.metadata.name} {.spec.cohort}{"\n"}' >"$E2E_TMP/watch" 2>&1 &
watch_pid=$!
k apply -f - >/dev/null <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: watched}
spec: {cohortName: other, namespaceSelector: {}}
YAML
expect_eventually 10 "a watch on v1beta1 sees a ClusterQueue written as v1beta2, converted" \
  "grep -c '^kueue.x-k8s.io/v1beta1 watched other\$' '$E2E_TMP/watch'" "1"
kill "$watch_pid" 2>/dev/null || true

e2e_failed_checks
e2e_pass "v1beta1 and v1beta2 served through kueuepp's conversion webhook; a Job admitted through v1beta1-authored queues"
