#!/usr/bin/env bash
# Kueue's visibility API through kubectl, on standalone: the controller serves
# visibility.kueue.x-k8s.io, standalone registers its Service and APIServices, and the
# embedded API server proxies the group to it as kube-aggregator does (front-proxy
# client certificate and headers), the same path as a real cluster:
#   - the APIServices are Available and discovery lists the group and its resources;
#   - one ClusterQueue, six Jobs, three admitted: the ClusterQueue endpoint gives the three
#     pending ones with positions 0, 1, 2, limit=1&offset=1 the middle one, the LocalQueue
#     endpoint the same with positionInLocalQueue, in v1beta2 and v1beta1;
#   - delegated authorization: alice, bound by a namespaced Role to
#     localqueues/pendingworkloads only, reads the LocalQueue endpoint and is refused the
#     ClusterQueue one (403);
#   - Kueue's visibility RBAC examples (kueue-examples/visibility: the Grafana readers and
#     kueue-visibility-server-api, binding ServiceAccount default/default) apply unchanged,
#     and that ServiceAccount's token then reads both endpoints and the queues.
#
# usage: visibility_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
echo 'alice-token,alice,alice-uid,"team-a"' >"$E2E_TMP/tokens.csv"
e2e_start --tls --token-auth-file "$E2E_TMP/tokens.csv"

expect_eventually 30 "both visibility APIServices are Available" \
  "k get apiservices v1beta2.visibility.kueue.x-k8s.io v1beta1.visibility.kueue.x-k8s.io -o jsonpath='{range .items[*]}{.status.conditions[?(@.type==\"Available\")].status} {end}'" \
  "True True "
expect_eq "discovery through the aggregator lists the group's resources" \
  "$(k get --raw /apis/visibility.kueue.x-k8s.io/v1beta2 | jq -r '[.resources[].name] | join(" ")')" \
  "clusterqueues clusterqueues/pendingworkloads localqueues localqueues/pendingworkloads localqueues/whatif"
expect_match "and /apis names the group" "$(k get --raw /apis | jq -r '[.groups[].name] | join(" ")')" \
  'visibility.kueue.x-k8s.io'

apply_one_queue 3
for i in 1 2 3 4 5 6; do
  job_yaml name=job-$i queue=lq sleep=300 | k create -f - >/dev/null
done
expect_eventually 30 "three of six Jobs are admitted" \
  "k get jobs -o jsonpath='{range .items[*]}{.spec.suspend} {end}' | tr ' ' '\n' | grep -c false" "3"

V2=/apis/visibility.kueue.x-k8s.io/v1beta2
summary() { k get --raw "$1" | jq -r '[.items[] | "\(.positionInClusterQueue)/\(.positionInLocalQueue)/\(.localQueueName)"] | join(" ")'; }
expect_eventually 20 "the ClusterQueue endpoint gives the three pending, positions 0, 1, 2" \
  "summary $V2/clusterqueues/cq/pendingworkloads" "0/0/lq 1/1/lq 2/2/lq"
all=$(k get --raw "$V2/clusterqueues/cq/pendingworkloads")
middle=$(jq -r '.items[1].metadata.name' <<<"$all")
expect_eq "the kind is Kueue's" "$(jq -r '.kind + " " + .apiVersion' <<<"$all")" \
  "PendingWorkloadsSummary visibility.kueue.x-k8s.io/v1beta2"
expect_eq "limit=1&offset=1 gives the middle one" \
  "$(k get --raw "$V2/clusterqueues/cq/pendingworkloads?limit=1&offset=1" | jq -r '[.items[].metadata.name] | join(" ")')" \
  "$middle"
expect_eq "the LocalQueue endpoint agrees" "$(summary $V2/namespaces/default/localqueues/lq/pendingworkloads)" \
  "0/0/lq 1/1/lq 2/2/lq"
expect_eq "v1beta1 too" "$(summary /apis/visibility.kueue.x-k8s.io/v1beta1/clusterqueues/cq/pendingworkloads)" \
  "0/0/lq 1/1/lq 2/2/lq"
expect_match "an unknown ClusterQueue is NotFound" \
  "$(k get --raw "$V2/clusterqueues/nope/pendingworkloads" 2>&1 || true)" 'NotFound|not found'

# A namespaced reader: allowed the LocalQueue endpoint only.
k apply -f - >/dev/null <<'YAML'
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: lq-pending-reader, namespace: default}
rules:
- apiGroups: [visibility.kueue.x-k8s.io]
  resources: [localqueues/pendingworkloads]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: alice-reads-pending, namespace: default}
subjects: [{kind: User, name: alice, apiGroup: rbac.authorization.k8s.io}]
roleRef: {kind: Role, name: lq-pending-reader, apiGroup: rbac.authorization.k8s.io}
YAML
alice() { kubectl --kubeconfig "$E2E_TMP/kc" --request-timeout=10s --token alice-token "$@"; }
expect_eventually 20 "alice reads her LocalQueue's pending workloads" \
  "alice get --raw $V2/namespaces/default/localqueues/lq/pendingworkloads 2>&1 | jq -r '.items | length'" "3"
expect_match "alice is refused the ClusterQueue endpoint" \
  "$(alice get --raw "$V2/clusterqueues/cq/pendingworkloads" 2>&1 || true)" 'Forbidden|forbidden'

# Kueue's own visibility RBAC examples, unchanged, for dashboards: ServiceAccount
# default/default reads both endpoints and the queues' objects.
out=$(k apply -f "$E2E_SHARED/kueue-examples/visibility/" 2>&1) || echo "$out"
expect_eq "Kueue's visibility RBAC examples apply unchanged" \
  "$(grep -c 'created\|configured\|unchanged' <<<"$out")" "6"
grafana_token=$(k create token default -n default)
grafana() { kubectl --kubeconfig "$E2E_TMP/kc" --request-timeout=10s --token "$grafana_token" "$@"; }
expect_eventually 20 "their ServiceAccount reads the ClusterQueue endpoint" \
  "grafana get --raw $V2/clusterqueues/cq/pendingworkloads 2>&1 | jq -r '.items | length'" "3"
expect_eq "and the LocalQueue endpoint" \
  "$(grafana get --raw "$V2/namespaces/default/localqueues/lq/pendingworkloads" 2>&1 | jq -r '.items | length')" "3"
expect_eq "and lists the ClusterQueues and LocalQueues" \
  "$(grafana get clusterqueues,localqueues -A -o name 2>&1 | sort | paste -sd' ' -)" \
  "clusterqueue.kueue.x-k8s.io/cq localqueue.kueue.x-k8s.io/lq"

e2e_failed_checks
e2e_pass "Kueue's visibility API answers through kubectl with the engine's positions and the cluster's authorization"
