#!/usr/bin/env bash
# The secure metrics and introspection listener on standalone (--secure-listen): /metrics,
# /debug/... and the web view over HTTPS, every request authenticated by a TokenReview
# and authorized by a SubjectAccessReview on its path, both answered by the embedded API
# server with RBAC, with the ClusterRoles deploy/metrics/ ships:
#   - no token: 401; a token the cluster does not know: 401;
#   - prom, bound to kueuepp-metrics-reader: /metrics 200 with Kueue's metrics, /debug/cohorts 403;
#   - mallory, bound to nothing: 403, told who was refused what;
#   - dana, bound to kueuepp-introspection-reader: /debug/cohorts, the web view and its
#     event stream; /metrics 403;
#   - the plain probe listener still answers /healthz.
#
# usage: metrics_auth_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
command -v curl >/dev/null || { echo "skipped: needs curl"; exit 77; }
cat >"$E2E_TMP/tokens.csv" <<'CSV'
prom-token,prom,prom-uid,"monitoring"
mallory-token,mallory,mallory-uid,"outsiders"
dana-token,dana,dana-uid,"operators"
CSV
e2e_start --tls --token-auth-file "$E2E_TMP/tokens.csv" --secure-listen 127.0.0.1:0
SECURE_PORT=$(sed -n 's/.*metrics and introspection over HTTPS on .* (port \([0-9]*\)).*/\1/p' "$E2E_LOG" | tail -n 1)
[ -n "$SECURE_PORT" ] || fail "the secure listener's port is not in the log"

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
k apply -f "$ROOT/deploy/metrics/metrics_reader_role.yaml" -f "$ROOT/deploy/metrics/introspection_reader_role.yaml" >/dev/null
k apply -f - >/dev/null <<'YAML'
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: prom-reads-metrics}
subjects: [{kind: User, name: prom, apiGroup: rbac.authorization.k8s.io}]
roleRef: {kind: ClusterRole, name: kueuepp-metrics-reader, apiGroup: rbac.authorization.k8s.io}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: operators-read-introspection}
subjects: [{kind: Group, name: operators, apiGroup: rbac.authorization.k8s.io}]
roleRef: {kind: ClusterRole, name: kueuepp-introspection-reader, apiGroup: rbac.authorization.k8s.io}
YAML

# secure PATH [TOKEN]: "STATUS BODY" of a GET over HTTPS (the certificate is self-signed).
secure() {
  local auth=()
  [ -n "${2:-}" ] && auth=(-H "Authorization: Bearer $2")
  local body
  body=$(curl -ksS --max-time 10 -o "$E2E_TMP/body" -w '%{http_code}' "${auth[@]}" "https://127.0.0.1:$SECURE_PORT$1") || true
  echo "$body $(head -c 4000 "$E2E_TMP/body" 2>/dev/null)"
}
status() { secure "$@" | head -n 1 | cut -d' ' -f1; }

expect_eq "without a token /metrics is 401" "$(status /metrics)" 401
expect_match "and the answer says what is missing" "$(secure /metrics)" '^401 .*bearer token.*"reason":"Unauthorized"'
expect_eq "an unknown token is 401" "$(status /metrics not-a-token)" 401
expect_eventually 20 "prom, a metrics reader, scrapes /metrics" "status /metrics prom-token" 200
expect_match "with Kueue's metric names" "$(secure /metrics prom-token)" '^200 .*kueue_'
expect_eq "mallory, bound to nothing, is refused /metrics" "$(status /metrics mallory-token)" 403
expect_match "and told who was refused what" "$(secure /metrics mallory-token)" \
  '^403 .*user \\"mallory\\".*cannot get path \\"/metrics\\"'
expect_eq "prom may not read /debug/cohorts" "$(status /debug/cohorts prom-token)" 403
expect_eq "without a token /debug/cohorts is 401" "$(status /debug/cohorts)" 401
expect_eventually 20 "dana, an introspection reader, reads /debug/cohorts" "status /debug/cohorts dana-token" 200
expect_eq "dana may not scrape /metrics" "$(status /metrics dana-token)" 403
expect_match "dana gets the web view" "$(secure / dana-token)" '^200 .*<html'
expect_eq "mallory does not" "$(status / mallory-token)" 403
stream=$(curl -ksSN --max-time 3 -H "Authorization: Bearer dana-token" "https://127.0.0.1:$SECURE_PORT/debug/stream" 2>/dev/null || true)
expect_match "the web view's event stream runs behind the authentication" "$stream" 'event: cohorts'
expect_eq "and refuses mallory" "$(status /debug/stream mallory-token)" 403
expect_eq "the plain probe listener still answers /healthz" "$(probe /healthz)" ok

e2e_failed_checks
e2e_pass "metrics and introspection over HTTPS answer only whom the cluster's RBAC allows"
