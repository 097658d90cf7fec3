#!/usr/bin/env bash
# The Kubeflow training jobs and MPIJob end to end through kubectl: Kueue's own
# examples/jobs/sample-{pytorch,tf,paddle,jax,mpi}job.yaml applied unchanged to standalone
# serving the six CRDs (--crds each) with a Configuration that enables their integrations:
#   - sample-xgboostjob.yaml is refused by the API server, as kube-apiserver refuses it
#     (its `cpu: 0.5` is a JSON number where the CRD asks for an int-or-string);
#   - each of the others is stored suspended (spec.runPolicy.suspend, by its mutating
#     webhook) and gets one Workload, owned by it, named with Kueue's prefix and hash, with
#     one pod set per replica type as Kueue names, orders and counts them;
#   - while the quota is short they wait with Kueue's pending message;
#   - once quota frees each is resumed with the flavor's node selector in every replica's
#     template, runs (the runner plays the operator) and succeeds; its Workload finishes
#     and the quota is released.
# Priority and preemption: kubeflow_preemption_test.sh.
#
# usage: kubeflow_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/job_kind_lib.sh"
e2e_init "$@"
CRDS=$E2E_SHARED/third-party-crds
SAMPLES=$E2E_SHARED/kueue-examples/jobs
require_crds "$CRDS"/kubeflow.org_{pytorchjobs,tfjobs,xgboostjobs,paddlejobs,jaxjobs,mpijobs}.yaml
require_files "$SAMPLES"/sample-{pytorchjob,tfjob,xgboostjob,paddlejob,jaxjob,mpijob}.yaml
config=$(frameworks_config "[batch/job, kubeflow.org/pytorchjob, kubeflow.org/tfjob, kubeflow.org/xgboostjob,
               kubeflow.org/paddlejob, kubeflow.org/jaxjob, kubeflow.org/mpijob]")
# The samples run their images' programs (no `sleep`): the default 10 s, 4 s here.
e2e_start --job-time-scale 2.5 --config "$config" "${E2E_CRD_FLAGS[@]}"

on_demand_queue cpu=0 memory=16Gi

refused=$(k create -f "$SAMPLES/sample-xgboostjob.yaml" 2>&1 || true)
expect_match "sample-xgboostjob.yaml is refused as kube-apiserver refuses it" "$refused" \
  'xgbReplicaSpecs.Master.template.spec.containers\[0\].resources.requests.cpu in body must be of type integer,string: "number"'

KINDS="PyTorchJob TFJob PaddleJob JAXJob MPIJob"
ALL=pytorchjobs,tfjobs,paddlejobs,jaxjobs,mpijobs
k create -f "$SAMPLES/sample-pytorchjob.yaml" -f "$SAMPLES/sample-tfjob.yaml" -f "$SAMPLES/sample-paddlejob.yaml" \
  -f "$SAMPLES/sample-jaxjob.yaml" -f "$SAMPLES/sample-mpijob.yaml" >/dev/null

# One line per job, in KINDS' order: KIND=<what the jq filter $1 says of it>.
jobs_say() {
  k get "$ALL" -o json | jq -r --arg kinds "$KINDS" '[.items[] | {kind, v: ('"$1"')}] as $all
    | [($kinds | split(" "))[] as $k | $all[] | select(.kind == $k) | "\(.kind)=\(.v)"] | join(" ")'
}
# The same for their Workloads, found by owner.
workloads_say() {
  k get workloads -o json | jq -r --arg kinds "$KINDS" '[.items[] | {kind: .metadata.ownerReferences[0].kind, v: ('"$1"')}] as $all
    | [($kinds | split(" "))[] as $k | $all[] | select(.kind == $k) | "\(.kind)=\(.v)"] | join(" ")'
}
pending_messages() {
  workloads_say '[.status.conditions[]? | select(.type == "QuotaReserved") | .message
    | test("^couldn.t assign flavors to pod set (master|ps|worker|launcher): insufficient quota for cpu in flavor on-demand")] | any'
}
suspended() { jobs_say .spec.runPolicy.suspend; }
finished_reasons() { workloads_say '[.status.conditions[]? | select(.type == "Finished") | .reason] | join("")'; }
expect_eq "each sample is stored suspended (spec.runPolicy.suspend, by its webhook)" \
  "$(jobs_say .spec.runPolicy.suspend)" "PyTorchJob=true TFJob=true PaddleJob=true JAXJob=true MPIJob=true"
expect_eventually 15 "one Workload per job" "k get workloads -o name | wc -l | tr -d ' '" "5"
expect_eq "one pod set per replica type, with Kueue's names, order and counts" \
  "$(workloads_say '[.spec.podSets[] | "\(.name):\(.count)"] | join(",")')" \
  "PyTorchJob=master:1,worker:1 TFJob=ps:1,worker:2 PaddleJob=worker:2 JAXJob=worker:2 MPIJob=launcher:1,worker:2"
expect_eq "named with Kueue's prefix and hash" \
  "$(workloads_say '.metadata.name | test("^(pytorchjob-pytorch-simple|tfjob-tensorflow-dist-mnist|paddlejob-paddle-simple-cpu|jaxjob-jax-simple|mpijob-pi)-[0-9a-f]{5}$")')" \
  "PyTorchJob=true TFJob=true PaddleJob=true JAXJob=true MPIJob=true"
expect_eventually 15 "they wait with Kueue's pending message" pending_messages \
  "PyTorchJob=true TFJob=true PaddleJob=true JAXJob=true MPIJob=true"

# 2 + 3 + 2 + 2 + 3 cpu (the MPIJob's from its limits).
on_demand_queue cpu=12 memory=16Gi
expect_eventually 20 "quota freed: each is resumed" suspended \
  "PyTorchJob=false TFJob=false PaddleJob=false JAXJob=false MPIJob=false"
expect_eq "with the flavor's node selector in every replica's template" \
  "$(jobs_say '[.spec | to_entries[] | select(.key | endswith("ReplicaSpecs")) | .value[] | .template.spec.nodeSelector["instance-type"] // "none"] | unique | join(",")')" \
  "PyTorchJob=on-demand TFJob=on-demand PaddleJob=on-demand JAXJob=on-demand MPIJob=on-demand"
expect_eventually 25 "each succeeds (the runner plays its operator) and its Workload finishes" finished_reasons \
  "PyTorchJob=Succeeded TFJob=Succeeded PaddleJob=Succeeded JAXJob=Succeeded MPIJob=Succeeded"
expect_eq "as their Succeeded conditions say" \
  "$(jobs_say '[.status.conditions[]? | select(.type == "Succeeded") | .status] | join("")')" \
  "PyTorchJob=True TFJob=True PaddleJob=True JAXJob=True MPIJob=True"
expect_quota_released

e2e_failed_checks
e2e_pass "Kueue's Kubeflow v1 and MPI samples queued with Kueue's pod sets, held, resumed on the flavor, run and finished"
