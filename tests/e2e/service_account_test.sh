#!/usr/bin/env bash
# The controller as it runs in a cluster: on the ServiceAccount token of deploy/rbac/,
# against `kueuepp apiserver` with authentication and RBAC on.
#   1. deploy/rbac/ and deploy/webhook/ applied, `kubectl create token kueuepp -n
#      kueuepp-system`, a kubeconfig with that token, `kueuepp controller` on it, its
#      webhooks registered by URL (--webhook-url-base) over deploy's Service references
#      with no more than the verbs deploy/rbac grants.
#   2. Kueue's getting-started, with a preemption: a low-priority Job of 3 CPU is admitted
#      and started, a high-priority one preempts it, the high one finishes (its Job status
#      set as the Job controller would), the low one is admitted again and finishes. The
#      API server refused none of the controller's requests (its audit log holds no 403)
#      and the controller logged nothing forbidden.
#   3. With one rule removed from the ClusterRole (events create), the next admission's
#      Event is refused: the controller says so at error level, naming the request, the
#      verb, the resource and its ServiceAccount.
#
# usage: service_account_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
. "$(dirname "$0")/replicas.sh"
REPO=$(cd "$(dirname "$0")/../.." && pwd)

# 1. The API server with authentication on (its own token is the administrator's).
rep_start_apiserver --tls --token "admin-$RANDOM$RANDOM" --audit-log "$E2E_TMP/audit.jsonl"
k apply -f "$REPO/deploy/rbac/" >/dev/null
k apply -f "$REPO/deploy/webhook/" >/dev/null
token=$(k create token kueuepp -n kueuepp-system --duration 1h)
[ -n "$token" ] || fail "kubectl create token gave no token"
cp "$E2E_TMP/kc" "$E2E_TMP/sa.kc"
user=$(kubectl --kubeconfig "$E2E_TMP/sa.kc" config view -o jsonpath='{.contexts[0].context.user}')
kubectl --kubeconfig "$E2E_TMP/sa.kc" config set-credentials "$user" --token="$token" >/dev/null
sa() { kubectl --kubeconfig "$E2E_TMP/sa.kc" --request-timeout=10s "$@"; }
expect_eq "the token's user" "$(sa auth whoami -o jsonpath='{.status.userInfo.username}')" \
  "system:serviceaccount:kueuepp-system:kueuepp"
expect_eq "the ServiceAccount may patch workloads/status" \
  "$(sa auth can-i patch workloads.kueue.x-k8s.io --subresource=status -A)" yes

cat >"$E2E_TMP/config.yaml" <<'CONFIG'
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
namespace: kueuepp-system
CONFIG
webhook_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$E2E_BIN" controller --kubeconfig "$E2E_TMP/sa.kc" --config "$E2E_TMP/config.yaml" --probe-listen 127.0.0.1:0 \
  --webhook-url-base "https://127.0.0.1:$webhook_port" \
  > >(sed -u "s/^/[controller] /" >>"$E2E_LOG") 2>&1 &
REP_PID[controller]=$!
# Until the controller registered its webhooks by URL, deploy/webhook's configurations
# name a Service that `kueuepp apiserver` cannot reach, and every Kueue object is refused.
wait_until 60 "the controller's webhooks registered by URL" \
  '[ -z "$(k get validatingwebhookconfiguration kueuepp-validating-webhook-configuration -o jsonpath="{..clientConfig.service.name}")" ] &&
   [ -z "$(k get mutatingwebhookconfiguration kueuepp-mutating-webhook-configuration -o jsonpath="{..clientConfig.service.name}")" ]'

# 2. Getting-started, with priorities.
k apply -f - >/dev/null <<'QUEUES'
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cluster-queue}
spec:
  namespaceSelector: {}
  preemption: {withinClusterQueue: LowerPriority}
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: default-flavor
      resources: [{name: cpu, nominalQuota: 4}, {name: memory, nominalQuota: 36Gi}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {namespace: default, name: user-queue}
spec: {clusterQueue: cluster-queue}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: low}
value: 100
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: WorkloadPriorityClass
metadata: {name: high}
value: 1000
QUEUES

submit() {  # submit NAME PRIORITY-CLASS: Kueue's sample Job, 3 pods of 1 CPU
  k create -f - >/dev/null <<JOB
apiVersion: batch/v1
kind: Job
metadata:
  name: $1
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: user-queue, kueue.x-k8s.io/priority-class: $2}
spec:
  parallelism: 3
  completions: 3
  suspend: true
  template:
    spec:
      containers:
      - name: dummy-job
        image: registry.k8s.io/e2e-test-images/agnhost:2.53
        command: ["/bin/sh", "-c", "sleep 30"]
        resources: {requests: {cpu: "1", memory: 200Mi}}
      restartPolicy: Never
JOB
}
running() { [ "$(jp job "$1" '{.spec.suspend}')" = false ]; }
# What the Job controller writes when the pods have succeeded.
complete() {
  local now
  now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  k patch job "$1" --subresource=status --type=merge -p "{\"status\": {\"startTime\": \"$now\",
    \"completionTime\": \"$now\", \"succeeded\": 3, \"conditions\": [
    {\"type\": \"SuccessCriteriaMet\", \"status\": \"True\", \"lastTransitionTime\": \"$now\"},
    {\"type\": \"Complete\", \"status\": \"True\", \"lastTransitionTime\": \"$now\"}]}}" >/dev/null
}

# Jobs go through the controller's webhooks (failurePolicy Fail) once it registered them.
wait_until 30 "the controller's webhooks to be registered by URL and to answer" \
  '[ "$(job_yaml name=probe queue=user-queue | k create --dry-run=server -f - -o jsonpath="{.spec.suspend}" 2>/dev/null)" = true ]'
submit low-job low
wait_until 20 "low-job to start" 'running low-job'
low_wl=$(wait_wl_of_job low-job)
submit high-job high
wait_until 20 "high-job to preempt low-job and start" \
  'running high-job && [ "$(jp job low-job "{.spec.suspend}")" = true ]'
expect_eq "low-job's workload is preempted" "$(wl_cond "$low_wl" Preempted reason)" InClusterQueue
complete high-job
wait_until 20 "low-job to start again" 'running low-job'
complete low-job
wait_until 20 "both workloads to finish" \
  '[ "$(wl_cond "$low_wl" Finished)" = True ] && [ "$(wl_cond "$(wl_of_job high-job)" Finished)" = True ]'

expect_eq "the webhooks are registered by URL, with the ServiceAccount's verbs" \
  "$(k get mutatingwebhookconfiguration kueuepp-mutating-webhook-configuration -o jsonpath='{.webhooks[0].clientConfig.url}')" \
  "https://127.0.0.1:$webhook_port/mutate-batch-v1-job"
expect_eq "requests the API server forbade" "$(jq -c 'select(.status == 403)' "$E2E_TMP/audit.jsonl")" ""
expect_eq "forbidden requests in the controller's log" "$(grep -c 'forbade' "$E2E_LOG" || true)" 0

# 3. One rule less: the ClusterRole no longer lets the controller create Events.
k get clusterrole kueuepp -o json |
  jq '.rules |= map(if .resources == ["events"] then .verbs -= ["create"] else . end)' | k replace -f - >/dev/null
expect_eq "events create is gone" "$(sa auth can-i create events -n default 2>/dev/null || true)" no
submit third-job low
wait_until 20 "third-job to start" 'running third-job'
wait_until 20 "the controller to say which request was forbidden" \
  'grep -q " error the API server forbade POST /api/v1/namespaces/default/events" "$E2E_LOG"'
line=$(grep " error the API server forbade POST /api/v1/namespaces/default/events" "$E2E_LOG" | head -1)
expect_match "the error names the user, the verb and the resource" "$line" \
  'User "system:serviceaccount:kueuepp-system:kueuepp" cannot create resource "events" in API group "" in the namespace "default"'
expect_eq "the API server's audit log has the 403s" \
  "$(jq -r 'select(.status == 403) | "\(.verb) \(.resource)"' "$E2E_TMP/audit.jsonl" | sort -u | xargs)" "create events"

e2e_pass "the controller ran on deploy/rbac's ServiceAccount token with nothing forbidden; with events create removed, the refused request was named at error level"
