#!/usr/bin/env bash
# kubectl against `kueuepp apiserver` with an admission webhook that cannot be reached:
# the ValidatingWebhookConfiguration is applied, listed and validated as kube-apiserver
# does, a create it selects gets kube-apiserver's answer under failurePolicy Fail, and
# goes through once the policy is Ignore; objects it does not select are never held up.
#
# usage: kubectl_webhooks_test.sh KUEUEPP_BINARY   (exit 77: skipped)
set -euo pipefail
bin=$1
if ! command -v kubectl >/dev/null; then
  echo "skipped: needs kubectl"
  exit 77
fi
. "$(dirname "$0")/kubectl_lib.sh"

# Port 1 on the loopback: nothing listens there, the connection is refused.
cat >"$tmp/vwc.yaml" <<'EOF'
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: unreachable
webhooks:
- name: unreachable.example.com
  clientConfig:
    url: https://127.0.0.1:1/validate
  rules:
  - operations: [CREATE]
    apiGroups: [""]
    apiVersions: [v1]
    resources: [configmaps]
  sideEffects: None
  admissionReviewVersions: [v1]
EOF
k apply -f "$tmp/vwc.yaml" >/dev/null || fail "the webhook configuration was not applied"
expect "Fail Equivalent 10" k get validatingwebhookconfiguration unreachable \
  -o jsonpath='{.webhooks[0].failurePolicy} {.webhooks[0].matchPolicy} {.webhooks[0].timeoutSeconds}'
k get validatingwebhookconfigurations | grep -q '^unreachable ' || fail "kubectl get does not list it"

refused_with 'failed calling webhook "unreachable.example.com": failed to call webhook: Post "https://127.0.0.1:1/validate?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused' \
  k create configmap held -n default --from-literal=a=b
refused k get configmap held -n default
# Not selected: a Secret is created as always.
k create secret generic free -n default --from-literal=a=b >/dev/null || fail "a Secret was held up"

k patch validatingwebhookconfiguration unreachable --type=json \
  -p '[{"op":"replace","path":"/webhooks/0/failurePolicy","value":"Ignore"}]' >/dev/null || fail "patch failed"
k create configmap passes -n default --from-literal=a=b >/dev/null || fail "failurePolicy Ignore did not let it through"

sed 's#url: https://#url: http://#; s#name: unreachable$#name: plain-http#' "$tmp/vwc.yaml" >"$tmp/http.yaml"
refused_with "'https' is the only allowed URL scheme" k apply -f "$tmp/http.yaml"

k delete validatingwebhookconfiguration unreachable >/dev/null || fail "delete failed"
k create configmap after -n default --from-literal=a=b >/dev/null || fail "still held after the configuration went"
echo "ok"
