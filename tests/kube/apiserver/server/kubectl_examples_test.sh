#!/usr/bin/env bash
# kubectl against `kueuepp apiserver` (started with Kueue's CRDs), as a user drives a
# cluster: every Kueue example made of kinds the server serves is applied, re-applied
# (nothing changes) and deleted; the examples with generateName are created, stored
# under generated names and deleted. The examples are spread over PARTS runs (ctest
# entries), each with its own server: part PART of PARTS applies every PARTS-th named
# example from the PART-th on, and the last part also the generateName ones.
#
# usage: kubectl_examples_test.sh KUEUEPP_BINARY SHARED_DIR PART PARTS   (exit 77: skipped)
set -euo pipefail
bin=$1
shared=$2
part=$3
parts=$4
if [ ! -d "$shared/kueue-crds" ] || [ ! -d "$shared/kueue-examples" ] || ! command -v kubectl >/dev/null; then
  echo "skipped: needs $shared/kueue-crds, $shared/kueue-examples and kubectl"
  exit 77
fi
examples=$shared/kueue-examples
server_args=(--crds "$shared/kueue-crds")
. "$(dirname "$0")/kubectl_lib.sh"

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
# Part P of N takes every N-th of them, from the P-th on.
applied=0
for i in "${!named[@]}"; do
  [ $((i % parts)) -eq $((part - 1)) ] || continue
  e=${named[$i]}
  applied=$((applied + 1))
  f=$examples/$e
  docs=$(grep -c '^kind:' "$f")
  out=$(k apply -f "$f" 2>&1) || fail "kubectl apply -f $e: $out"
  out=$(k apply -f "$f" 2>&1) || fail "second kubectl apply -f $e: $out"
  [ "$(grep -c ' unchanged$' <<<"$out")" -eq "$docs" ] || fail "re-applying $e changed something: $out"
  # kubectl delete waits until the objects are gone (and fails when one is missing).
  out=$(k delete -f "$f" 2>&1) || fail "kubectl delete -f $e: $out"
  [ "$(grep -c ' deleted$' <<<"$out")" -eq "$docs" ] || fail "kubectl delete -f $e: $out"
done
# The generated names cannot collide: all in one go, in the last part.
if [ "$part" -eq "$parts" ]; then
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
fi
[ "$applied" -gt 0 ] || fail "part $part of $parts applied no example"

echo "PASS: kubectl: part $part of $parts: $applied of ${#named[@]} examples applied, re-applied and deleted$([ "$part" -eq "$parts" ] && echo ", ${#generated[@]} generateName examples created and deleted")"
