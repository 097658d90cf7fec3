#!/usr/bin/env bash
# TrainJob (Kubeflow Trainer v2, trainer.kubeflow.org/v1alpha1) end to end through kubectl,
# on standalone serving the TrainJob and JobSet CRDs (--crds), the two training runtime CRDs
# installed with kubectl apply --server-side once it runs, and a Configuration that enables
# the TrainJob and JobSet integrations:
#   - a ClusterTrainingRuntime (one trainer job "node", mlPolicy.numNodes 1) and a TrainJob
#     asking numNodes 2: stored suspended with Kueue's runtime patch (mtrainjob), one Workload
#     owned by it, named as Kueue names it, with the pod set node of 2 pods of 1 cpu;
#   - while the quota is short it waits with Kueue's pending message;
#   - once quota frees it is resumed with the flavor's node selector in Kueue's runtime patch,
#     the runtime untouched; the runner's JobSet (owned by it) carries it and is not queued;
#   - it completes when its JobSet does, its Workload finishes, the quota is released;
#   - a TrainJob whose namespaced TrainingRuntime does not exist yet gets no Workload and an
#     ErrWorkloadCompose Event naming the runtime, and is queued once the runtime is created.
#
# usage: trainjob_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
CRDS=$E2E_SHARED/third-party-crds
TRAINJOB_CRD=$CRDS/trainer.kubeflow.org_trainjobs.yaml
JOBSET_CRD=$CRDS/jobset.x-k8s.io_jobsets.yaml
for f in "$TRAINJOB_CRD" "$JOBSET_CRD" "$CRDS/trainer.kubeflow.org_trainingruntimes.yaml" \
  "$CRDS/trainer.kubeflow.org_clustertrainingruntimes.yaml"; do
  if [ ! -f "$f" ]; then
    echo "skipped: needs $f"
    exit 77
  fi
done
cat >"$E2E_TMP/config.yaml" <<'YAML'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
integrations:
  frameworks: [batch/job, jobset.x-k8s.io/jobset, trainer.kubeflow.org/trainjob]
YAML
# The trainer sleeps 100 s: 2 s here.
e2e_start --job-time-scale 50 --config "$E2E_TMP/config.yaml" --crds "$TRAINJOB_CRD" --crds "$JOBSET_CRD"

k apply --server-side -f "$CRDS/trainer.kubeflow.org_trainingruntimes.yaml" \
  -f "$CRDS/trainer.kubeflow.org_clustertrainingruntimes.yaml" >/dev/null
k wait --for=condition=Established --timeout=10s crd/trainingruntimes.trainer.kubeflow.org \
  crd/clustertrainingruntimes.trainer.kubeflow.org >/dev/null

cluster_queue() {
  k apply -f - >/dev/null <<YAML
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: on-demand}
spec: {nodeLabels: {instance-type: on-demand}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cluster-queue}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: on-demand
      resources: [{name: cpu, nominalQuota: $1}, {name: memory, nominalQuota: 4Gi}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: user-queue, namespace: default}
spec: {clusterQueue: cluster-queue}
---
# A default LocalQueue: the TrainJob's JobSet is left alone by the parent rule only.
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: default, namespace: default}
spec: {clusterQueue: cluster-queue}
YAML
}
cluster_queue 1

runtime_yaml() { # KIND NAME
  cat <<YAML
apiVersion: trainer.kubeflow.org/v1alpha1
kind: $1
metadata: {name: $2}
spec:
  mlPolicy:
    numNodes: 1
    torch: {}
  template:
    spec:
      replicatedJobs:
      - name: node
        template:
          metadata:
            labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
          spec:
            template:
              spec:
                containers:
                - name: node
                  image: pytorch/pytorch
                  command: [sleep, "100"]
                  resources:
                    requests: {cpu: "1", memory: 100Mi}
YAML
}
trainjob_yaml() { # NAME RUNTIME_KIND RUNTIME_NAME
  cat <<YAML
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: $1
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  runtimeRef: {kind: $2, name: $3}
  trainer: {numNodes: 2}
YAML
}
runtime_yaml ClusterTrainingRuntime torch-distributed | k apply -f - >/dev/null
trainjob_yaml pytorch-simple ClusterTrainingRuntime torch-distributed | k create -f - >/dev/null
tj=pytorch-simple
stored=$(k get trainjob $tj -o json)
expect_eq "the TrainJob is stored suspended" "$(jq -r .spec.suspend <<<"$stored")" "true"
expect_eq "with Kueue's runtime patch" "$(jq -r '.spec.runtimePatches[].manager' <<<"$stored")" "kueue.x-k8s.io/manager"

wl_of() {
  k get workloads -o json |
    jq -r --arg tj "$1" '[.items[] | select(.metadata.ownerReferences[]? | .kind == "TrainJob" and .name == $tj and .controller)][].metadata.name'
}
wait_until 15 "the TrainJob's Workload" '[ -n "$(wl_of $tj)" ]'
wl=$(wl_of $tj)
expect_match "named as Kueue names it" "$wl" "^trainjob-$tj-[0-9a-f]{5}\$"
wl_spec=$(wl_json "$wl" default)
expect_eq "Kueue's pod sets: the trainer's job, numNodes pods" \
  "$(jq -r '[.spec.podSets[] | "\(.name)=\(.count)"] | join(" ")' <<<"$wl_spec")" "node=2"
expect_eq "of the runtime's requests" \
  "$(jq -r '.spec.podSets[0].template.spec.containers[0].resources.requests.cpu' <<<"$wl_spec")" "1"

expect_eventually 15 "it waits with Kueue's pending message while the quota is short" \
  "wl_cond $wl QuotaReserved message | grep -o \"couldn't assign flavors to pod set node: insufficient quota for cpu in flavor on-demand\" | head -1" \
  "couldn't assign flavors to pod set node: insufficient quota for cpu in flavor on-demand"
expect_eq "and is still suspended" "$(jp trainjob $tj '{.spec.suspend}')" "true"
expect_eq "no JobSet yet" "$(k get jobsets -o name | wc -l | tr -d ' ')" "0"

cluster_queue 2
expect_eventually 20 "quota freed: the TrainJob is resumed" "jp trainjob $tj '{.spec.suspend}'" "false"
tj_json=$(k get trainjob $tj -o json)
expect_eq "the flavor's node selector is in Kueue's runtime patch" \
  "$(jq -r '.spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0].template.spec.template.spec.nodeSelector["instance-type"]' <<<"$tj_json")" \
  "on-demand"
expect_eq "the runtime is untouched" \
  "$(jp clustertrainingruntime torch-distributed '{.spec.template.spec.replicatedJobs[0].template.spec.template.spec.nodeSelector}')" ""

expect_eventually 15 "the runner creates its JobSet" "k get jobsets -o jsonpath='{.items[*].metadata.name}'" "$tj"
js_json=$(k get jobset $tj -o json)
expect_eq "owned by the TrainJob" "$(jq -r '.metadata.ownerReferences[0].kind' <<<"$js_json")" "TrainJob"
expect_eq "with the flavor in its pod template" \
  "$(jq -r '.spec.replicatedJobs[0].template.spec.template.spec.nodeSelector["instance-type"]' <<<"$js_json")" "on-demand"
expect_eq "and numNodes pods" "$(jq -r '.spec.replicatedJobs[0].template.spec.parallelism' <<<"$js_json")" "2"
expect_eq "the JobSet is not queued itself" "$(k get workloads -o name | wc -l | tr -d ' ')" "1"

expect_eventually 25 "the TrainJob completes with its JobSet" \
  "k get trainjob $tj -o jsonpath='{.status.conditions[?(@.type==\"Complete\")].status}'" "True"
expect_eventually 15 "its Workload finishes" "wl_cond $wl Finished" "True"
expect_eventually 15 "and the quota is released" \
  "k get clusterqueue cluster-queue -o jsonpath='{.status.admittedWorkloads}'" "0"

# A TrainJob before its runtime.
trainjob_yaml late TrainingRuntime late-runtime | k create -f - >/dev/null
expect_eventually 15 "without its runtime it says why" \
  "k get events --field-selector involvedObject.name=late,reason=ErrWorkloadCompose -o jsonpath='{.items[0].message}' | grep -o \"runtime 'late-runtime' not found: TrainingRuntime late-runtime in namespace default does not exist\"" \
  "runtime 'late-runtime' not found: TrainingRuntime late-runtime in namespace default does not exist"
expect_eq "and has no Workload" "$(wl_of late)" ""
runtime_yaml TrainingRuntime late-runtime | k apply -f - >/dev/null
wait_until 15 "the runtime created, its Workload" '[ -n "$(wl_of late)" ]'
expect_eq "with the runtime's pod sets" "$(jp workload "$(wl_of late)" '{range .spec.podSets[*]}{.name}={.count} {end}')" "node=2 "

e2e_failed_checks
e2e_pass "a TrainJob queued as one Workload from its runtime, held, resumed with its flavor, run and finished"
