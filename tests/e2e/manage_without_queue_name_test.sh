#!/usr/bin/env bash
# manageJobsWithoutQueueName with managedJobsNamespaceSelector, end to end through kubectl,
# with the controller apart from the API server (as in a cluster), so that it can stop:
#   - an unlabelled Job in a managed namespace is stored suspended and stays so, since it
#     names no queue and its namespace has no "default" LocalQueue (Kueue's rule);
#     labelled, it is admitted and started;
#   - an unlabelled Job in an unmanaged namespace is stored as sent and gets no Workload;
#   - with the controller stopped: Jobs that did not ask for Kueue are still created (the
#     unlabelled webhook fails open), a labelled Job is refused (it fails closed, so no Job
#     that asked for a queue slips through unheld), and an unlabelled Job created in a
#     managed namespace meanwhile is suspended by the controller once it is back.
#
# usage: manage_without_queue_name_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
. "$(dirname "$0")/replicas.sh"

rep_start_apiserver
cat >"$E2E_TMP/config.yaml" <<EOF
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
namespace: $REP_NS
leaderElection: {leaderElect: false}
manageJobsWithoutQueueName: true
managedJobsNamespaceSelector:
  matchLabels: {kueue-managed: "true"}
EOF
REP_CONFIG=$E2E_TMP/config.yaml
webhook_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
start_controller() { rep_start "$1" --webhook-url-base "https://127.0.0.1:$webhook_port"; }

workloads_of() { k get workloads -n "$2" -o json | jq -r --arg j "$1" '[.items[] | select(any(.metadata.ownerReferences[]?; .name == $j))] | length'; }

k create namespace managed >/dev/null
k label namespace managed kueue-managed=true >/dev/null
k create namespace free >/dev/null
apply_one_queue 2
start_controller first
# Ready when the mutating webhook holds a Job in a managed namespace (a server dry run).
wait_until 30 "the controller's webhooks" \
  '[ "$(unlabelled_job_yaml probe managed | k create --dry-run=server -f - -o jsonpath="{.spec.suspend}" 2>/dev/null)" = true ]'

got=$(unlabelled_job_yaml held managed | k create -f - -o jsonpath='{.spec.suspend}')
expect_eq "an unlabelled Job in a managed namespace is stored suspended" "$got" "true"
got=$(unlabelled_job_yaml free-run free | k create -f - -o jsonpath='{.spec.suspend}')
expect_eq "an unlabelled Job in an unmanaged namespace is stored as sent" "$got" "false"
sleep 2
expect_eq "the held Job is still suspended: it names no queue and there is no default one" \
  "$(jp job held '{.spec.suspend}' managed)" "true"
expect_eq "the unmanaged Job gets no Workload" "$(workloads_of free-run free)" "0"
expect_eq "the unmanaged Job is still unsuspended" "$(jp job free-run '{.spec.suspend}' free)" "false"

k apply -f - >/dev/null <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: managed}
spec: {clusterQueue: cq}
YAML
k label job held -n managed kueue.x-k8s.io/queue-name=lq >/dev/null
expect_eventually 20 "labelled, the held Job is admitted and started" \
  "k get job held -n managed -o jsonpath='{.spec.suspend}'" "false"

# The controller stops: nothing serves the webhooks.
rep_signal first TERM
got=$(unlabelled_job_yaml while-down free | k create -f - -o jsonpath='{.spec.suspend}' 2>&1)
expect_eq "with the controller stopped, an unlabelled Job in an unmanaged namespace is created" "$got" "false"
out=$(job_yaml name=refused queue=lq | k create -f - 2>&1) && status=0 || status=$?
expect_eq "with the controller stopped, a labelled Job is refused" "$status" "1"
expect_match "by the webhook call that failed" "$out" 'failed calling webhook "mjob.kb.io"'
got=$(unlabelled_job_yaml caught-later managed | k create -f - -o jsonpath='{.spec.suspend}' 2>&1)
expect_eq "an unlabelled Job in a managed namespace is created unheld while the controller is down" "$got" "false"

start_controller second
expect_eventually 20 "once the controller is back, it suspends that Job" \
  "k get job caught-later -n managed -o jsonpath='{.spec.suspend}'" "true"
expect_eq "and leaves the unmanaged one alone" "$(jp job while-down '{.spec.suspend}' free)" "false"
expect_eq "the admitted Job stays started across the restart" "$(jp job held '{.spec.suspend}' managed)" "false"

e2e_failed_checks
e2e_pass "managed namespaces held, unmanaged ones left alone, with and without the controller"
