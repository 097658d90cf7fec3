#!/usr/bin/env bash
# AppWrapper end to end through kubectl: Kueue's own examples/appwrapper/pytorch-sample.yaml
# applied unchanged to standalone serving the AppWrapper and PyTorchJob CRDs (--crds) with
# a Configuration that enables workload.codeflare.dev/appwrapper and kubeflow.org/pytorchjob
# and manages jobs without a queue name (so that only the parent rule keeps the wrapped
# PyTorchJob from being queued on its own):
#   - it is stored suspended (spec.suspend, by mappwrapper) and gets one Workload, owned by
#     it, named with Kueue's prefix and hash, with Kueue's pod sets inferred from the
#     wrapped PyTorchJob: <appwrapper>-0 (Master) and <appwrapper>-1 (Worker), 1 pod of
#     1 cpu each; deployment-sample.yaml gets its declared pod set (3 pods);
#   - while the quota is short it waits with Kueue's pending message;
#   - once quota frees it is resumed with the flavor's node selector in both pod sets'
#     spec.components[0].podSetInfos; the runner (playing the AppWrapper controller)
#     creates the PyTorchJob, owned by it, with the node selector in both replicas'
#     templates, which is not queued itself; the Kubeflow runner runs it;
#   - it succeeds with its PyTorchJob, its Workload finishes and the quota is released.
#
# usage: appwrapper_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/job_kind_lib.sh"
e2e_init "$@"
SAMPLES=$E2E_SHARED/kueue-examples/appwrapper
require_crds "$E2E_SHARED"/third-party-crds/{workload.codeflare.dev_appwrappers,kubeflow.org_pytorchjobs}.yaml
require_files "$SAMPLES"/{pytorch-sample,deployment-sample}.yaml
config=$(frameworks_config "[batch/job, kubeflow.org/pytorchjob, workload.codeflare.dev/appwrapper]" \
  "manageJobsWithoutQueueName: true")
# The PyTorchJob runs its image's program (no `sleep`): the default 10 s, 8 s here (the
# checks of the running AppWrapper rely on it).
e2e_start --job-time-scale 1.25 --config "$config" "${E2E_CRD_FLAGS[@]}"

on_demand_queue cpu=0

AW=sample-appwrapper-pytorch-job
k create -f "$SAMPLES/pytorch-sample.yaml" >/dev/null
k create -f "$SAMPLES/deployment-sample.yaml" >/dev/null
appwrapper() { k get appwrapper "$AW" -o json | jq -r "$1"; }
workload() {
  k get workloads -o json |
    jq -r ".items[] | select(.metadata.ownerReferences[0].kind == \"AppWrapper\" and .metadata.ownerReferences[0].name == \"$1\") | $2"
}

expect_eq "the sample is stored suspended (spec.suspend, by mappwrapper)" "$(appwrapper .spec.suspend)" "true"
expect_eventually 15 "one Workload for each AppWrapper" "k get workloads -o name | wc -l | tr -d ' '" "2"
expect_eq "with Kueue's pod sets inferred from the PyTorchJob: Master, Worker" \
  "$(workload $AW '[.spec.podSets[] | "\(.name):\(.count):\(.template.spec.containers[0].resources.requests.cpu)"] | join(",")')" \
  "$AW-0:1:1,$AW-1:1:1"
expect_match "named with Kueue's prefix and hash" "$(workload $AW .metadata.name)" "^appwrapper-$AW-[0-9a-f]{5}\$"
expect_eq "the Deployment sample gets its declared pod set" \
  "$(workload sample-appwrapper-deployment '[.spec.podSets[] | "\(.name):\(.count)"] | join(",")')" \
  "sample-appwrapper-deployment-0:3"
k delete appwrapper sample-appwrapper-deployment >/dev/null
expect_waits_for_quota "$(wl_of_owner AppWrapper $AW)" $AW-0

on_demand_queue cpu=2
expect_eventually 20 "quota freed: it is resumed, and Running (the runner plays the AppWrapper controller)" \
  "appwrapper '\"\\(.spec.suspend) \\(.status.phase)\"'" "false Running"
expect_eq "with the flavor's node selector in both pod sets' podSetInfos" \
  "$(appwrapper '[.spec.components[0].podSetInfos[] | .nodeSelector["instance-type"] // "none"] | join(",")')" \
  "on-demand,on-demand"
expect_eventually 10 "its PyTorchJob was created, owned by it" \
  "k get pytorchjob pytorch-simple -o jsonpath='{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}' 2>/dev/null" \
  "AppWrapper/$AW"
expect_eq "with the node selector in both replicas' templates" \
  "$(instance_types pytorchjob pytorch-simple '.spec.pytorchReplicaSpecs.Master.template, .spec.pytorchReplicaSpecs.Worker.template')" \
  "on-demand,on-demand"
expect_eq "not suspended and not queued itself (its parent's Workload holds the quota)" \
  "$(k get pytorchjob pytorch-simple -o json | jq -r '.spec.runPolicy.suspend // false') $(k get workloads -o json | jq '[.items[] | select(.metadata.ownerReferences[0].kind == "PyTorchJob")] | length')" \
  "false 0"
expect_eventually 25 "it succeeds with its PyTorchJob and its Workload finishes" \
  "workload $AW '[.status.conditions[]? | select(.type == \"Finished\") | .reason] | join(\"\")'" "Succeeded"
expect_eq "as its status says" "$(appwrapper .status.phase)" "Succeeded"
expect_quota_released

e2e_failed_checks
e2e_pass "Kueue's AppWrapper sample queued with Kueue's pod sets, held, resumed on the flavor, its PyTorchJob run, finished"
