#!/usr/bin/env bash
# kubectl against `kueuepp apiserver` (started with Kueue's CRDs), as a user drives a
# cluster, on Kueue's getting-started example: wait --for=condition (set with a status
# patch), get -w, apply --server-side (field managers, conflicts), create and delete
# --dry-run=server, and deletes (a Job, a namespace with content, delete -f). Results are
# checked from the API objects (kubectl get -o jsonpath), not from kubectl's messages.
# (kubectl_get_patch_test.sh has get, patch, label and annotate, on a server of its own.)
#
# usage: kubectl_wait_watch_delete_test.sh KUEUEPP_BINARY SHARED_DIR   (exit 77: skipped)
set -euo pipefail
bin=$1
shared=$2
if [ ! -d "$shared/kueue-crds" ] || [ ! -d "$shared/kueue-examples" ] || ! command -v kubectl >/dev/null; then
  echo "skipped: needs $shared/kueue-crds, $shared/kueue-examples and kubectl"
  exit 77
fi
examples=$shared/kueue-examples
server_args=(--crds "$shared/kueue-crds")
. "$(dirname "$0")/kubectl_lib.sh"

# Kueue's getting-started example: a ClusterQueue, its LocalQueue and a Job.
k apply -f "$examples/getting-started/quick-start-setup.yaml" >/dev/null
k apply -f "$examples/getting-started/quick-start-job.yaml" >/dev/null

# wait --for=condition, the condition set through the status subresource.
k wait --for=condition=Active cq/cluster-queue --timeout=30s >"$tmp/wait.out" 2>&1 &
wait_pid=$!
background+=("$wait_pid")
sleep 0.5  # let the wait start watching (it also works if the condition is already there)
k patch cq cluster-queue --subresource=status --type=merge -p '{"spec":{"stopPolicy":"Hold"},"status":{"conditions":[{"type":"Active","status":"True","reason":"Ready","message":"Can admit new workloads","lastTransitionTime":"2024-01-01T00:00:00Z"}]}}' >/dev/null
wait "$wait_pid" || fail "kubectl wait --for=condition=Active: $(cat "$tmp/wait.out")"
expect "True None" k get cq cluster-queue -o jsonpath='{.status.conditions[?(@.type=="Active")].status} {.spec.stopPolicy}'
refused k wait --for=condition=Active=False cq/cluster-queue --timeout=1s

# get -w prints changes made after it started.
k get lq -w --output-watch-events >"$tmp/watch.out" 2>&1 &
watch_pid=$!
background+=("$watch_pid")
eventually 20 grep -q 'ADDED *user-queue' "$tmp/watch.out"
printf 'apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata:\n  name: late-queue\nspec:\n  clusterQueue: cluster-queue\n' |
  k create -f - >/dev/null
k patch lq late-queue --type=merge -p '{"metadata":{"labels":{"seen":"yes"}}}' >/dev/null
k delete lq late-queue >/dev/null
eventually 20 grep -q 'DELETED *late-queue' "$tmp/watch.out"
grep -q 'ADDED *late-queue' "$tmp/watch.out" || fail "kubectl get -w missed the ADDED event: $(cat "$tmp/watch.out")"
grep -q 'MODIFIED *late-queue' "$tmp/watch.out" || fail "kubectl get -w missed the MODIFIED event: $(cat "$tmp/watch.out")"
kill "$watch_pid"

# Server-side apply: field managers and conflicts.
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: fast\n  level: "3"\n' >"$tmp/cm.yaml"
k apply --server-side -f "$tmp/cm.yaml" >/dev/null
sed 's/fast/slow/' "$tmp/cm.yaml" >"$tmp/cm2.yaml"
refused k apply --server-side --field-manager=other -f "$tmp/cm2.yaml"
expect "fast" k get cm settings -o jsonpath='{.data.mode}'
k apply --server-side --field-manager=other --force-conflicts -f "$tmp/cm2.yaml" >/dev/null
expect "slow 3" k get cm settings -o jsonpath='{.data.mode} {.data.level}'
expect "kubectl other" k get cm settings -o jsonpath='{.metadata.managedFields[*].manager}'

# Dry runs store nothing.
sed 's/name: sample-job$/name: dry-job/' "$examples/getting-started/quick-start-job.yaml" >"$tmp/dry-job.yaml"
expect "job.batch/dry-job" k create --dry-run=server -f "$tmp/dry-job.yaml" -o name
refused k get job dry-job
expect "namespace/dry-ns" k create namespace dry-ns --dry-run=server -o name
refused k get namespace dry-ns
k delete job sample-job --dry-run=server >/dev/null
k get job sample-job >/dev/null || fail "a dry-run delete deleted"

# Deletes: a Job, a namespace with content, and what quick-start-setup made.
k delete job sample-job >/dev/null
refused k get job sample-job
k create namespace scratch >/dev/null
k create configmap in-scratch -n scratch --from-literal=a=b >/dev/null
k delete namespace scratch --timeout=30s >/dev/null || fail "kubectl delete namespace scratch"
refused k get namespace scratch
refused k get configmap in-scratch -n scratch
k delete -f "$examples/getting-started/quick-start-setup.yaml" >/dev/null
[ -z "$(k get -f "$examples/getting-started/quick-start-setup.yaml" -o name --ignore-not-found)" ] ||
  fail "quick-start-setup objects left after kubectl delete -f"

echo "PASS: kubectl: wait, watch, server-side apply, dry run, delete"
