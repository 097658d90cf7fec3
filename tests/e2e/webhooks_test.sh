#!/usr/bin/env bash
# Kueue's admission webhooks, end to end through kubectl: standalone's controller serves
# them and registers them by URL in its embedded API server, which calls them as
# kube-apiserver does (the same path as a real cluster):
#   - both webhook configurations are registered;
#   - a Job created with the queue-name label and without `suspend` is stored suspended;
#   - an unlabelled Job in a namespace with a LocalQueue named "default" gets the label
#     (LocalQueue defaulting) and is stored suspended;
#   - an unlabelled Job where there is no "default" LocalQueue is stored as sent and left
#     alone (not managed);
#   - the queue name of a running Job cannot change (vjob), with Kueue's words.
#
# usage: webhooks_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
e2e_start --job-time-scale 10

names=$(k get mutatingwebhookconfigurations,validatingwebhookconfigurations -o name | sort | tr '\n' ' ')
expect_eq "both webhook configurations are registered" "$names" \
  "mutatingwebhookconfiguration.admissionregistration.k8s.io/kueuepp-mutating-webhook-configuration validatingwebhookconfiguration.admissionregistration.k8s.io/kueuepp-validating-webhook-configuration "

apply_one_queue 2

# A labelled Job without suspend: held from its first moment.
got=$(job_yaml name=held queue=lq sleep=100 | k create -f - -o jsonpath='{.spec.suspend}')
expect_eq "a labelled Job created without suspend is stored suspended" "$got" "true"

# LocalQueue defaulting: a namespace with a LocalQueue named "default".
k create namespace team >/dev/null
k apply -f - >/dev/null <<'YAML'
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: default, namespace: team}
spec: {clusterQueue: cq}
YAML
got=$(unlabelled_job_yaml defaulted team | k create -f - -o jsonpath='{.metadata.labels.kueue\.x-k8s\.io/queue-name} {.spec.suspend}')
expect_eq "an unlabelled Job beside a default LocalQueue gets its label and is stored suspended" "$got" "default true"
expect_eventually 20 "the defaulted Job runs through its queue" \
  "k get job -n team defaulted -o jsonpath='{.status.succeeded}'" "1"

# No default LocalQueue in "default": an unlabelled Job is not Kueue's.
got=$(unlabelled_job_yaml free default | k create -f - -o jsonpath='{.spec.suspend}')
expect_eq "an unlabelled Job without a default LocalQueue is stored as sent" "$got" "false"
sleep 1
expect_eq "and gets no Workload" "$(k get workloads -n default -o name | grep -c free || true)" "0"

# The running Job's queue name is frozen.
expect_eventually 20 "the held Job is admitted and started" "k get job held -o jsonpath='{.spec.suspend}'" "false"
out=$(k label job held kueue.x-k8s.io/queue-name=other --overwrite 2>&1) && status=0 || status=$?
expect_eq "relabelling a running Job is refused" "$status" "1"
expect_match "by the Job webhook, naming the field" "$out" 'admission webhook "vjob.kb.io" denied the request: .*queue-name'

e2e_failed_checks
e2e_pass "webhooks registered; Jobs held from creation, defaulted, left alone or refused as Kueue does"
