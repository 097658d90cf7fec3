#!/usr/bin/env bash
# kubectl against `kueuepp apiserver`, as a user drives a cluster: install Kueue's CRDs,
# apply every Kueue example made of kinds the server serves, then get, get -o yaml,
# patch (merge, json, strategic), label, annotate, delete, wait --for=condition (set
# with a status patch), get -w, apply --server-side and create --dry-run=server. Results
# are checked from the API objects (kubectl get -o jsonpath), not from kubectl's
# messages.
#
# usage: kubectl_test.sh KUEUEPP_BINARY SHARED_DIR   (exit 77: skipped)
set -euo pipefail
bin=$1
shared=$2
if [ ! -d "$shared/kueue-crds" ] || [ ! -d "$shared/kueue-examples" ] || ! command -v kubectl >/dev/null; then
  echo "skipped: needs $shared/kueue-crds, $shared/kueue-examples and kubectl"
  exit 77
fi
examples=$shared/kueue-examples
. "$(dirname "$0")/kubectl_lib.sh"

# -- Kueue's CRDs -------------------------------------------------------------------------
# One apply for all but the Workload CRD, which is 1.4 MB of YAML: client-side apply's
# last-applied-configuration annotation would exceed 256 KiB, which kube-apiserver refuses
# (422) and so must we; Kueue installs it with server-side apply.
crd_files=()
workload_crd=
for f in "$shared"/kueue-crds/*.yaml; do
  case $f in
    *_workloads.yaml) workload_crd=$f ;;
    *) crd_files+=(-f "$f") ;;
  esac
done
crd_count=$((${#crd_files[@]} / 2 + 1))
k apply "${crd_files[@]}" >/dev/null || fail "kubectl apply of the CRDs"
if out=$(k apply -f "$workload_crd" 2>&1); then fail "client-side apply of the Workload CRD was accepted"; fi
grep -q "metadata.annotations: Too long" <<<"$out" || fail "unexpected refusal of the Workload CRD: $out"
k apply --server-side -f "$workload_crd" >/dev/null || fail "server-side apply of $workload_crd"
[ "$(k get crd -o name | grep -c 'kueue.x-k8s.io$')" -eq "$crd_count" ] || fail "not all $crd_count CRDs were stored"
k wait --for=condition=Established crd --all --timeout=30s >/dev/null || fail "CRDs not Established"
# (Outputs are captured before grep -q: with pipefail, grep -q quitting early would fail
# the writer with SIGPIPE.)
resources=$(k api-resources --api-group=kueue.x-k8s.io -o name)
for r in clusterqueues localqueues resourceflavors workloads cohorts admissionchecks topologies; do
  grep -qx "$r.kueue.x-k8s.io" <<<"$resources" || fail "$r not in discovery: $resources"
done

# -- the examples ---------------------------------------------------------------------------
# Every example made only of kinds the server serves (Kueue's CRDs, Namespace, ConfigMap,
# Pod, Job, ...). Not applied, because they need kinds it does not serve:
# appwrapper/ (AppWrapper), dra/sample-dra-{capacity,counter,rct}-job.yaml
# (ResourceClaimTemplate), jobs/ray-{cluster,job,job-autoscaling,service}-sample.yaml (Ray),
# jobs/sample-cronjob.yaml (CronJob), jobs/sample-jobset*.yaml (JobSet),
# jobs/sample-{jax,mpi,paddle,pytorch,tf,xgboost}job.yaml (Kubeflow),
# jobs/sample-sparkapplication.yaml, multikueue/dev/*-kind-config.yaml and
# tas/kind-cluster.yaml (kind's cluster config), pod-based-workloads/ (Tekton, Argo,
# Sandbox), serving-workloads/ (Deployment, StatefulSet, LeaderWorkerSet), visibility/
# (RBAC) and sample-*-policy*.yaml (ValidatingAdmissionPolicy).
named=(
  admin/concurrent-admission-setup.yaml admin/minimal-cq.yaml admin/resource-flavor-empty.yaml
  admin/resource-flavor-taints.yaml admin/resource-flavor-tolerations.yaml admin/shared-quota-setup.yaml
  admin/single-clusterqueue-setup.yaml admission-fs/admission-fair-sharing-setup.yaml
  dra/sample-dra-capacity-queues.yaml dra/sample-dra-counter-queues.yaml dra/sample-dra-queues.yaml
  getting-started/quick-start-setup.yaml getting-started/quick-start-job.yaml
  jobs/ray-job-autoscaling-code-sample.yaml jobs/ray-job-code-sample.yaml jobs/sample-job-partial-admission.yaml
  jobs/sample-scalable-job.yaml multikueue/dev/sample-tas-job.yaml multikueue/multikueue-setup.yaml
  multikueue/tas/manager-setup.yaml multikueue/tas/worker-setup.yaml provisioning/provisioning-setup.yaml
  sample-admission-check.yaml tas/sample-gpu-queues.yaml tas/sample-queues.yaml
)
# Manifests with metadata.generateName: `kubectl create` (apply needs a name).
generated=(
  admin/shared-quota-sample-job.yaml admission-fs/lq-a-simple-job.yaml admission-fs/lq-b-simple-job.yaml
  dra/sample-dra-extended-resource-job.yaml jobs/sample-job.yaml pods-kueue/kueue-pod-group.yaml
  pods-kueue/kueue-pod.yaml provisioning/sample-job.yaml tas/sample-job-preferred.yaml
  tas/sample-job-required.yaml tas/sample-job-unconstrained.yaml
)
# Each is applied, re-applied (nothing may change), read back and deleted, so that
# examples reusing names (cluster-queue, default-flavor, ...) each start from nothing.
for e in "${named[@]}"; do
  f=$examples/$e
  docs=$(grep -c '^kind:' "$f")
  out=$(k apply -f "$f" 2>&1) || fail "kubectl apply -f $e: $out"
  out=$(k apply -f "$f" 2>&1) || fail "second kubectl apply -f $e: $out"
  [ "$(grep -c ' unchanged$' <<<"$out")" -eq "$docs" ] || fail "re-applying $e changed something: $out"
  # kubectl delete waits until the objects are gone (and fails when one is missing).
  out=$(k delete -f "$f" 2>&1) || fail "kubectl delete -f $e: $out"
  [ "$(grep -c ' deleted$' <<<"$out")" -eq "$docs" ] || fail "kubectl delete -f $e: $out"
done
# The generated names cannot collide: all in one go.
generated_files=()
generated_docs=0
for e in "${generated[@]}"; do
  generated_files+=(-f "$examples/$e")
  generated_docs=$((generated_docs + $(grep -c '^kind:' "$examples/$e")))
done
names=$(k create "${generated_files[@]}" -o name 2>&1) || fail "kubectl create of the generateName examples: $names"
[ "$(wc -l <<<"$names")" -eq "$generated_docs" ] || fail "kubectl create made $(wc -l <<<"$names") of $generated_docs objects: $names"
# Stored under generateName plus five characters.
# shellcheck disable=SC2086
stored=$(k get $names -o custom-columns=PREFIX:.metadata.generateName,NAME:.metadata.name --no-headers)
[ "$(wc -l <<<"$stored")" -eq "$generated_docs" ] || fail "not every created object was stored: $stored"
while read -r prefix name; do
  [[ $name == "$prefix"????? ]] || fail "$name is not $prefix plus a generated suffix"
done <<<"$stored"
# shellcheck disable=SC2086
out=$(k delete $names 2>&1) || fail "kubectl delete $names: $out"
[ "$(grep -c ' deleted$' <<<"$out")" -eq "$generated_docs" ] || fail "kubectl delete: $out"

# -- get, patch, label, annotate, wait, watch, server-side apply, dry run, delete ---------------
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

echo "PASS: kubectl: ${#named[@]} + ${#generated[@]} examples, get, patch, label, annotate, wait, watch, server-side apply, dry run, delete"
