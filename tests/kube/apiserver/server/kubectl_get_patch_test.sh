#!/usr/bin/env bash
# kubectl against `kueuepp apiserver` (started with Kueue's CRDs), as a user drives a
# cluster, on Kueue's getting-started example: get (tables, -o wide, -o yaml, jsonpath,
# label and field selectors), patch (merge, json with tests, strategic on a Job and a
# Pod), label and annotate. Results are checked from the API objects (kubectl get -o
# jsonpath), not from kubectl's messages. (kubectl_wait_watch_delete_test.sh has the
# other verbs, on a server of its own.)
#
# usage: kubectl_get_patch_test.sh KUEUEPP_BINARY SHARED_DIR   (exit 77: skipped)
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

out=$(k get clusterqueues)
grep -q '^cluster-queue ' <<<"$out" || fail "kubectl get clusterqueues does not list cluster-queue: $out"
out=$(k get jobs -o wide)
grep -q '^NAME .*IMAGES' <<<"$out" || fail "kubectl get jobs -o wide has no IMAGES column: $out"
grep -q '^sample-job .*agnhost' <<<"$out" || fail "kubectl get jobs -o wide does not show sample-job's image: $out"
out=$(k get cq cluster-queue -o yaml)
grep -qx 'kind: ClusterQueue' <<<"$out" || fail "kubectl get cq -o yaml: $out"
grep -q 'nominalQuota: 9$' <<<"$out" || fail "kubectl get cq -o yaml: $out"
out=$(k get job sample-job -o yaml)
grep -qx '  parallelism: 3' <<<"$out" || fail "kubectl get job -o yaml: $out"
expect "cluster-queue" k get lq user-queue -o jsonpath='{.spec.clusterQueue}'
expect "job.batch/sample-job" k get jobs -l kueue.x-k8s.io/queue-name=user-queue -o name
expect "job.batch/sample-job" k get jobs --field-selector metadata.name=sample-job -o name
expect "" k get jobs --field-selector metadata.name=nothing -o name

# Merge patch (suspend, so that the template's scheduling directives may change).
k patch job sample-job --type=merge -p '{"spec":{"suspend":true}}' >/dev/null
expect "true" k get job sample-job -o jsonpath='{.spec.suspend}'
# JSON patch, with a test that holds and one that does not.
k patch job sample-job --type=json -p '[{"op":"test","path":"/spec/parallelism","value":3},{"op":"replace","path":"/spec/parallelism","value":2}]' >/dev/null
expect "2" k get job sample-job -o jsonpath='{.spec.parallelism}'
refused k patch job sample-job --type=json -p '[{"op":"test","path":"/spec/parallelism","value":9},{"op":"replace","path":"/spec/parallelism","value":1}]'
expect "2" k get job sample-job -o jsonpath='{.spec.parallelism}'
# Strategic merge patch: nodeSelector merges, tolerations are replaced.
k patch job sample-job -p '{"spec":{"template":{"spec":{"nodeSelector":{"pool":"a"},"tolerations":[{"key":"k1","operator":"Exists"}]}}}}' >/dev/null
k patch job sample-job -p '{"spec":{"template":{"spec":{"nodeSelector":{"zone":"z"},"tolerations":[{"key":"k2","operator":"Exists"}]}}}}' >/dev/null
expect "a z" k get job sample-job -o jsonpath='{.spec.template.spec.nodeSelector.pool} {.spec.template.spec.nodeSelector.zone}'
expect "k2" k get job sample-job -o jsonpath='{.spec.template.spec.tolerations[*].key}'
# The rest of a Job's pod template is immutable.
refused k patch job sample-job -p '{"spec":{"template":{"spec":{"containers":[{"name":"dummy-job","image":"busybox"}]}}}}'
expect "registry.k8s.io/e2e-test-images/agnhost:2.53" k get job sample-job -o jsonpath='{.spec.template.spec.containers[0].image}'
# Strategic merge patch on a Pod: containers merge by name.
pod=$(k create -f "$examples/pods-kueue/kueue-pod.yaml" -o name)
k patch "$pod" -p '{"spec":{"containers":[{"name":"sleep","image":"busybox:1.36"}]}}' >/dev/null
expect "busybox:1.36 sleep 3s" k get "$pod" -o jsonpath='{.spec.containers[0].image} {.spec.containers[0].command[0]} {.spec.containers[0].args[0]}'
k delete "$pod" >/dev/null

# Labels and annotations.
k label job sample-job tier=gold >/dev/null
expect "gold" k get job sample-job -o jsonpath='{.metadata.labels.tier}'
refused k label job sample-job tier=silver
k label job sample-job tier=silver --overwrite >/dev/null
expect "job.batch/sample-job" k get jobs -l tier=silver -o name
k label job sample-job tier- >/dev/null
expect "" k get job sample-job -o jsonpath='{.metadata.labels.tier}'
k annotate cq cluster-queue example.com/note=hello >/dev/null
expect "hello" k get cq cluster-queue -o jsonpath='{.metadata.annotations.example\.com/note}'
expect "1" k get cq cluster-queue -o jsonpath='{.metadata.generation}'  # metadata changes keep generation

echo "PASS: kubectl: get, patch (merge, json, strategic), label, annotate"
