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
# template as stored), created, and when ADMITTED is 1 given Kueue's admission. (curl
# rather than kubectl: a kubectl command costs about a second on a busy machine.)
tk_workload() {
  local job=$1 ver=$2 admitted=$3 wl="job-$1-kueue" base="/apis/kueue.x-k8s.io/$2/namespaces/default/workloads"
  tk_curl GET "/apis/batch/v1/namespaces/default/jobs/$job" | jq -c --arg ver "kueue.x-k8s.io/$ver" --arg wl "$wl" '{
      apiVersion: $ver, kind: "Workload",
      metadata: {name: $wl, namespace: .metadata.namespace,
        labels: {"kueue.x-k8s.io/job-uid": .metadata.uid},
        finalizers: ["kueue.x-k8s.io/resource-in-use"],
        ownerReferences: [{apiVersion: "batch/v1", kind: "Job", name: .metadata.name, uid: .metadata.uid,
                           controller: true, blockOwnerDeletion: true}]},
      spec: {queueName: "lq", priority: 0,
             podSets: [{name: "main", count: .spec.parallelism,
                        template: (.spec.template | del(.metadata.creationTimestamp))}]}}' |
    curl -fsS --max-time 10 -X POST -H 'Content-Type: application/json' "$REP_API_URL$base" --data-binary @- >/dev/null
  [ "$admitted" = 1 ] || return 0
  local now
  now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  tk_curl GET "$base/$wl" | jq -c --arg now "$now" '.status = {
      admission: {clusterQueue: "cq",
        podSetAssignments: [{name: "main", count: 1, flavors: {cpu: "default"}, resourceUsage: {cpu: "1"}}]},
      conditions: [
        {type: "QuotaReserved", status: "True", reason: "QuotaReserved", message: "Quota reserved in ClusterQueue cq",
         lastTransitionTime: $now},
        {type: "Admitted", status: "True", reason: "Admitted", message: "The workload is admitted",
         lastTransitionTime: $now}]}' | tk_put "$base/$wl/status" >/dev/null
}

tk_setup_kueue() {
  local crds=$1 ver=$2 cohort
  E2E_CRDS=$crds rep_start_apiserver
  [ "$ver" = v1beta1 ] && cohort="cohort: team" || cohort="cohortName: team"
  {
    cat <<YAML
apiVersion: v1
kind: Namespace
metadata: {name: kueue-system}
---
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
      echo ---
      job_yaml name=$j queue=lq sleep=100 | sed 's/^spec:$/spec:\n  suspend: false/'
    done
    echo ---
    job_yaml name=wait-1 queue=lq sleep=100 | sed 's/^spec:$/spec:\n  suspend: true/'
  } | k apply -f - >/dev/null
  for j in run-1 run-2 run-3; do tk_workload "$j" "$ver" 1; done
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
  local wl j got
  got=$(tk_curl GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions | jq -r '[.items[]
    | select(.metadata.name | split(".")[0] | IN("admissionchecks", "clusterqueues", "cohorts", "localqueues",
        "resourceflavors", "workloadpriorityclasses", "workloads"))
    | "\(.metadata.name | split(".")[0])=\(.spec.conversion.strategy)\(.status.storedVersions)"] | sort | join(" ")')
  expect_eq "every Kueue CRD kueuepp serves converts by webhook and stores v1beta2 only" "$got" \
    "$(for c in admissionchecks clusterqueues cohorts localqueues resourceflavors workloadpriorityclasses workloads; do
         printf '%s=Webhook["v1beta2"] ' "$c"; done | sed 's/ $//')"
  got=$(tk_curl GET /apis/apps/v1/namespaces/kueue-system/deployments/kueue-controller-manager | jq -r .spec.replicas)
  expect_eq "Kueue's controller is scaled to zero" "$got" 0
  got=$( (tk_curl GET /apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations
          tk_curl GET /apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations) |
    jq -r '.items[].metadata.name' | grep -c '^kueue-' || true)
  expect_eq "Kueue's webhook configurations are gone" "$got" 0
  got=$(tk_curl GET /apis/kueue.x-k8s.io/v1beta2/clusterqueues/cq | jq -r .spec.cohortName)
  expect_eq "the ClusterQueue reads as v1beta2 with Kueue's mapping" "$got" team
  got=$(tk_curl GET /apis/kueue.x-k8s.io/v1beta1/clusterqueues/cq | jq -r .spec.cohort)
  expect_eq "and as v1beta1" "$got" team
  # The controller has looked at every Workload once it reports them (it admits nothing
  # while the queue is full).
  wait_until 20 "the ClusterQueue's status from kueuepp" \
    "[ \"\$(tk_curl GET /apis/kueue.x-k8s.io/v1beta2/clusterqueues/cq | jq -r .status.admittedWorkloads)\" = 3 ]"
  local workloads jobs
  workloads=$(tk_curl GET /apis/kueue.x-k8s.io/v1beta2/namespaces/default/workloads)
  jobs=$(tk_curl GET /apis/batch/v1/namespaces/default/jobs)
  for j in run-1 run-2 run-3; do
    wl=job-$j-kueue
    got=$(jq -r --arg wl "$wl" '.items[] | select(.metadata.name == $wl) | [.status.admission.clusterQueue,
      (.status.conditions[] | select(.type == "QuotaReserved" or .type == "Admitted" or .type == "Evicted"
        or .type == "Requeued") | "\(.type)=\(.status)")] | join(" ")' <<<"$workloads")
    expect_eq "$wl keeps its admission" "$got" "cq QuotaReserved=True Admitted=True"
    got=$(jq -r --arg j "$j" '.items[] | select(.metadata.name == $j) | .spec.suspend' <<<"$jobs")
    expect_eq "$j is not suspended" "$got" false
  done
  got=$(jq '.items | length' <<<"$workloads")
  expect_eq "no Workload was added or lost" "$got" 4
  got=$(jq -r '.items[] | select(.metadata.name == "wait-1") | .spec.suspend' <<<"$jobs")
  expect_eq "the waiting Job still waits (no quota)" "$got" true
  local stamp
  stamp=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  curl -fsS --max-time 10 -X PATCH -H 'Content-Type: application/merge-patch+json' \
    "$REP_API_URL/apis/batch/v1/namespaces/default/jobs/run-1/status" --data-binary "{\"status\": {
    \"startTime\": \"$stamp\", \"completionTime\": \"$stamp\", \"succeeded\": 1, \"active\": 0, \"ready\": 0, \"conditions\": [
    {\"type\": \"SuccessCriteriaMet\", \"status\": \"True\", \"reason\": \"CompletionsReached\", \"lastTransitionTime\": \"$stamp\"},
    {\"type\": \"Complete\", \"status\": \"True\", \"reason\": \"CompletionsReached\", \"lastTransitionTime\": \"$stamp\"}]}}" \
    >/dev/null
  expect_eventually 20 "the waiting Job is admitted once run-1 completes" \
    "tk_curl GET /apis/batch/v1/namespaces/default/jobs/wait-1 | jq -r .spec.suspend" false
  workloads=$(tk_curl GET /apis/kueue.x-k8s.io/v1beta2/namespaces/default/workloads)
  for j in run-2 run-3; do
    got=$(jq -r --arg wl "job-$j-kueue" '.items[] | select(.metadata.name == $wl) | .status.admission.clusterQueue' <<<"$workloads")
    expect_eq "job-$j-kueue still admitted" "$got" cq
  done
}
