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
. "$(dirname "$0")/job_kind_lib.sh"
e2e_init "$@"
CRDS=$E2E_SHARED/third-party-crds
require_crds "$CRDS/trainer.kubeflow.org_trainjobs.yaml" "$CRDS/jobset.x-k8s.io_jobsets.yaml"
require_files "$CRDS"/trainer.kubeflow.org_{trainingruntimes,clustertrainingruntimes}.yaml
config=$(frameworks_config "[batch/job, jobset.x-k8s.io/jobset, trainer.kubeflow.org/trainjob]")
# The trainer sleeps 100 s: 2 s here.
e2e_start --job-time-scale 50 --config "$config" "${E2E_CRD_FLAGS[@]}"

k apply --server-side -f "$CRDS/trainer.kubeflow.org_trainingruntimes.yaml" \
  -f "$CRDS/trainer.kubeflow.org_clustertrainingruntimes.yaml" >/dev/null
k wait --for=condition=Established --timeout=10s crd/trainingruntimes.trainer.kubeflow.org \
  crd/clustertrainingruntimes.trainer.kubeflow.org >/dev/null

# A default LocalQueue: the TrainJob's JobSet is left alone by the parent rule only.
on_demand_queue cpu=1 memory=4Gi default_queue=yes

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

wl=$(wait_wl_of_owner TrainJob $tj)
expect_match "named as Kueue names it" "$wl" "^trainjob-$tj-[0-9a-f]{5}\$"
wl_spec=$(wl_json "$wl" default)
expect_eq "Kueue's pod sets: the trainer's job, numNodes pods" \
  "$(jq -r '[.spec.podSets[] | "\(.name)=\(.count)"] | join(" ")' <<<"$wl_spec")" "node=2"
expect_eq "of the runtime's requests" \
  "$(jq -r '.spec.podSets[0].template.spec.containers[0].resources.requests.cpu' <<<"$wl_spec")" "1"

expect_waits_for_quota "$wl" node
expect_eq "and is still suspended" "$(jp trainjob $tj '{.spec.suspend}')" "true"
expect_eq "no JobSet yet" "$(k get jobsets -o name | wc -l | tr -d ' ')" "0"

on_demand_queue cpu=2 memory=4Gi default_queue=yes
expect_resumed trainjob $tj
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
expect_quota_released

# A TrainJob before its runtime.
trainjob_yaml late TrainingRuntime late-runtime | k create -f - >/dev/null
expect_eventually 15 "without its runtime it says why" \
  "k get events --field-selector involvedObject.name=late,reason=ErrWorkloadCompose -o jsonpath='{.items[0].message}' | grep -o \"runtime 'late-runtime' not found: TrainingRuntime late-runtime in namespace default does not exist\"" \
  "runtime 'late-runtime' not found: TrainingRuntime late-runtime in namespace default does not exist"
expect_eq "and has no Workload" "$(wl_of_owner TrainJob late)" ""
runtime_yaml TrainingRuntime late-runtime | k apply -f - >/dev/null
late_wl=$(wait_wl_of_owner TrainJob late)
expect_eq "the runtime created, its Workload has the runtime's pod sets" "$(jp workload "$late_wl" '{range .spec.podSets[*]}{.name}={.count} {end}')" "node=2 "

e2e_failed_checks
e2e_pass "a TrainJob queued as one Workload from its runtime, held, resumed with its flavor, run and finished"
