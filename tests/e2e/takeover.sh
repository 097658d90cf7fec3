# A cluster as Kueue leaves it, for the takeover tests: `kueuepp apiserver` with Kueue's
# CRDs (copies under fixtures/), Kueue's controller Deployment and webhook
# configurations, a ClusterQueue of 3 CPUs, three Jobs running under Workloads Kueue
# admitted and one Job waiting under a pending Workload, all written as Kueue writes them.
# Source it after lib.sh and replicas.sh and e2e_init.
#
#   tk_setup_kueue CRDS_DIR VERSION  the cluster; objects written as VERSION (v1beta1 for
#                                    Kueue v0.14, v1beta2 for later Kueue)
#   tk_start_kueuepp                 `kueuepp controller` with its webhook server by URL
#                                    (what the takeover requires first), waits for its caBundle
#   tk_curl METHOD PATH [BODY], tk_put PATH <BODY
#                                    straight to the API server
#   tk_takeover [ARGS...]            `kueuepp takeover` against the cluster (prints its output)
#   tk_expect_kept                   the checks after the takeover (see below)

TK_FIXTURES=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/fixtures

tk_curl() { # METHOD PATH [BODY]: straight to the API server, JSON in and out
  curl -fsS --max-time 10 -X "$1" -H 'Content-Type: application/json' "$REP_API_URL$2" ${3:+--data-binary "$3"}
}
tk_put() { # PATH: PUT of the JSON on stdin (which may be larger than an argument)
  curl -fsS --max-time 10 -X PUT -H 'Content-Type: application/json' "$REP_API_URL$1" --data-binary @-
}

# tk_workload JOB VERSION ADMITTED: the Workload Kueue made for the stored Job (its pod
# template as stored), created, and when ADMITTED is 1 given Kueue's admission.
tk_workload() {
  local job=$1 ver=$2 admitted=$3 wl="job-$1-kueue" body
  k get job "$job" -o json | jq -c --arg ver "kueue.x-k8s.io/$ver" --arg wl "$wl" '{
      apiVersion: $ver, kind: "Workload",
      metadata: {name: $wl, namespace: .metadata.namespace,
        labels: {"kueue.x-k8s.io/job-uid": .metadata.uid},
        finalizers: ["kueue.x-k8s.io/resource-in-use"],
        ownerReferences: [{apiVersion: "batch/v1", kind: "Job", name: .metadata.name, uid: .metadata.uid,
                           controller: true, blockOwnerDeletion: true}]},
      spec: {queueName: "lq", priority: 0,
             podSets: [{name: "main", count: .spec.parallelism, template: (.spec.template | del(.metadata.creationTimestamp))}]}}' |
    k create -f - >/dev/null
  [ "$admitted" = 1 ] || return 0
  local now
  now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  body=$(tk_curl GET "/apis/kueue.x-k8s.io/$ver/namespaces/default/workloads/$wl" | jq -c --arg now "$now" '.status = {
      admission: {clusterQueue: "cq",
        podSetAssignments: [{name: "main", count: 1, flavors: {cpu: "default"}, resourceUsage: {cpu: "1"}}]},
      conditions: [
        {type: "QuotaReserved", status: "True", reason: "QuotaReserved", message: "Quota reserved in ClusterQueue cq",
         lastTransitionTime: $now},
        {type: "Admitted", status: "True", reason: "Admitted", message: "The workload is admitted",
         lastTransitionTime: $now}]}')
  tk_curl PUT "/apis/kueue.x-k8s.io/$ver/namespaces/default/workloads/$wl/status" "$body" >/dev/null
}

tk_setup_kueue() {
  local crds=$1 ver=$2 cohort
  E2E_CRDS=$crds rep_start_apiserver
  [ "$ver" = v1beta1 ] && cohort="cohort: team" || cohort="cohortName: team"
  k create namespace kueue-system >/dev/null
  k apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: kueue-controller-manager, namespace: kueue-system}
spec:
  replicas: 1
  selector: {matchLabels: {control-plane: controller-manager}}
  template:
    metadata: {labels: {control-plane: controller-manager}}
    spec: {containers: [{name: manager, image: registry.k8s.io/kueue/kueue:v0.14.8}]}
---
# Kueue's webhooks, inert here (no Kueue pod answers; nothing reaches them).
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: kueue-mutating-webhook-configuration}
webhooks:
- name: mtopology.kb.io
  admissionReviewVersions: [v1]
  clientConfig: {url: "https://127.0.0.1:1/mutate-kueue-x-k8s-io-v1beta1-topology"}
  failurePolicy: Ignore
  sideEffects: None
  rules: [{apiGroups: [kueue.x-k8s.io], apiVersions: [v1beta1], operations: [CREATE], resources: [topologies]}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: kueue-validating-webhook-configuration}
webhooks:
- name: vtopology.kb.io
  admissionReviewVersions: [v1]
  clientConfig: {url: "https://127.0.0.1:1/validate-kueue-x-k8s-io-v1beta1-topology"}
  failurePolicy: Ignore
  sideEffects: None
  rules: [{apiGroups: [kueue.x-k8s.io], apiVersions: [v1beta1], operations: [CREATE], resources: [topologies]}]
---
apiVersion: kueue.x-k8s.io/$ver
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/$ver
kind: ClusterQueue
metadata: {name: cq}
spec:
  $cohort
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources: [{name: cpu, nominalQuota: 3}]
---
apiVersion: kueue.x-k8s.io/$ver
kind: LocalQueue
metadata: {name: lq, namespace: default}
spec: {clusterQueue: cq}
YAML
  local j
  for j in run-1 run-2 run-3; do
    job_yaml name=$j queue=lq sleep=100 | sed 's/^spec:$/spec:\n  suspend: false/' | k create -f - >/dev/null
    tk_workload "$j" "$ver" 1
  done
  job_yaml name=wait-1 queue=lq sleep=100 | sed 's/^spec:$/spec:\n  suspend: true/' | k create -f - >/dev/null
  tk_workload wait-1 "$ver" 0
}

tk_start_kueuepp() {
  local port
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  rep_config 15s 10s 2s
  rep_start kueuepp-0 --namespace "$REP_NS" --webhook-listen "127.0.0.1:$port" \
    --webhook-url-base "https://127.0.0.1:$port"
  wait_until 30 "kueuepp's webhook configuration with its caBundle" \
    "[ -n \"\$(k get mutatingwebhookconfiguration kueuepp-mutating-webhook-configuration \
      -o jsonpath='{.webhooks[0].clientConfig.caBundle}' 2>/dev/null)\" ]"
}

tk_takeover() {
  "$E2E_BIN" takeover --kubeconfig "$E2E_TMP/kc" --crds "$(dirname "$TK_FIXTURES")/../../deploy/crds" \
    --timeout 20 "$@" 2>&1
}

# After the takeover, with kueuepp running: the CRDs are kueuepp's and store v1beta2 only;
# Kueue is scaled to zero and its webhooks gone; every admitted Workload keeps its
# admission, no Job is suspended; the pending one is admitted once a running Job ends.
tk_expect_kept() {
  local crd wl j got
  for crd in resourceflavors clusterqueues localqueues cohorts workloadpriorityclasses admissionchecks workloads; do
    got=$(k get crd "$crd.kueue.x-k8s.io" -o jsonpath='{.spec.conversion.strategy} {.status.storedVersions}')
    expect_eq "$crd: converted by kueuepp's webhook, stored as v1beta2 only" "$got" 'Webhook ["v1beta2"]'
  done
  got=$(k get deployment -n kueue-system kueue-controller-manager -o jsonpath='{.spec.replicas}')
  expect_eq "Kueue's controller is scaled to zero" "$got" 0
  got=$(k get mutatingwebhookconfigurations,validatingwebhookconfigurations -o name | grep -c 'kueue-' || true)
  expect_eq "Kueue's webhook configurations are gone" "$got" 0
  got=$(k get clusterqueues.v1beta2.kueue.x-k8s.io cq -o jsonpath='{.spec.cohortName}')
  expect_eq "the ClusterQueue reads as v1beta2 with Kueue's mapping" "$got" team
  got=$(k get clusterqueues.v1beta1.kueue.x-k8s.io cq -o jsonpath='{.spec.cohort}')
  expect_eq "and as v1beta1" "$got" team
  # Given the controller time to look at every Workload (it admits nothing while full).
  wait_until 20 "the ClusterQueue's status from kueuepp" \
    "[ \"\$(k get clusterqueue cq -o jsonpath='{.status.admittedWorkloads}')\" = 3 ]"
  for j in run-1 run-2 run-3; do
    wl=job-$j-kueue
    got=$(k get workload "$wl" -o json | jq -r '[.status.admission.clusterQueue,
      (.status.conditions[] | select(.type == "QuotaReserved" or .type == "Admitted" or .type == "Evicted"
        or .type == "Requeued") | "\(.type)=\(.status)")] | join(" ")')
    expect_eq "$wl keeps its admission" "$got" "cq QuotaReserved=True Admitted=True"
    got=$(k get job "$j" -o jsonpath='{.spec.suspend}')
    expect_eq "$j is not suspended" "$got" false
  done
  got=$(k get workloads -o name | wc -l)
  expect_eq "no Workload was added or lost" "$got" 4
  got=$(k get job wait-1 -o jsonpath='{.spec.suspend}')
  expect_eq "the waiting Job still waits (no quota)" "$got" true
  local stamp
  stamp=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  k patch job run-1 --subresource=status --type=merge -p "{\"status\": {\"startTime\": \"$stamp\",
    \"completionTime\": \"$stamp\", \"succeeded\": 1, \"active\": 0, \"ready\": 0, \"conditions\": [
    {\"type\": \"SuccessCriteriaMet\", \"status\": \"True\", \"reason\": \"CompletionsReached\", \"lastTransitionTime\": \"$stamp\"},
    {\"type\": \"Complete\", \"status\": \"True\", \"reason\": \"CompletionsReached\", \"lastTransitionTime\": \"$stamp\"}]}}" \
    >/dev/null
  expect_eventually 20 "the waiting Job is admitted once run-1 completes" \
    "k get job wait-1 -o jsonpath='{.spec.suspend}'" false
  for j in run-2 run-3; do
    got=$(k get workload "job-$j-kueue" -o jsonpath='{.status.admission.clusterQueue}')
    expect_eq "job-$j-kueue still admitted" "$got" cq
  done
}
