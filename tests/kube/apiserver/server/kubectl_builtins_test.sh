#!/usr/bin/env bash
# kubectl against `kueuepp apiserver` with the built-in kinds an in-cluster install is
# made of (what `kubectl apply -k deploy/` sends): Namespace, ServiceAccount, Secret,
# ClusterRole, ClusterRoleBinding, Role, RoleBinding, Deployment, Services and a
# PodDisruptionBudget in one multi-document manifest. It is applied with
# --dry-run=server (nothing stored), applied, listed with `kubectl get`, re-applied
# (nothing changes), applied server-side, checked for kube-apiserver's defaults and
# refusals, and deleted. Results are checked from the API objects, not from kubectl's
# wording, except where the wording is the point ("unchanged").
#
# usage: kubectl_builtins_test.sh KUEUEPP_BINARY   (exit 77: skipped)
set -euo pipefail
bin=$1
if ! command -v kubectl >/dev/null; then
  echo "skipped: needs kubectl"
  exit 77
fi
. "$(dirname "$0")/kubectl_lib.sh"
# count PATTERN TEXT: how many lines of TEXT match the extended regular expression.
count() { grep -cE -- "$1" <<<"$2" || true; }

# The namespace is applied on its own first: a server-side dry run cannot create into a
# namespace that does not exist (kube-apiserver's NamespaceLifecycle admission refuses it).
cat >"$tmp/ns.yaml" <<'EOF'
apiVersion: v1
kind: Namespace
metadata:
  name: demo
EOF
cat >"$tmp/app.yaml" <<'EOF'
apiVersion: v1
kind: ServiceAccount
metadata:
  name: app
  namespace: demo
---
apiVersion: v1
kind: Secret
metadata:
  name: app-credentials
  namespace: demo
data:
  user: YWRtaW4=
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: demo-reader
rules:
- apiGroups: [""]
  resources: [pods, services]
  verbs: [get, list, watch]
- nonResourceURLs: [/healthz]
  verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: demo-reader
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: demo-reader
subjects:
- kind: ServiceAccount
  name: app
  namespace: demo
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: leases
  namespace: demo
rules:
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  verbs: [get, create, update]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: leases
  namespace: demo
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: leases
subjects:
- kind: ServiceAccount
  name: app
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: demo
  labels:
    app: web
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      serviceAccountName: app
      containers:
      - name: web
        image: nginx:1.25
        ports:
        - name: http
          containerPort: 8080
        env:
        - name: POD_NAME
          valueFrom:
            fieldRef:
              fieldPath: metadata.name
        readinessProbe:
          httpGet:
            path: /readyz
            port: http
        resources:
          requests:
            cpu: 250m
          limits:
            cpu: "2"
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: demo
spec:
  selector:
    app: web
  ports:
  - name: http
    port: 80
    targetPort: http
    protocol: TCP
---
apiVersion: v1
kind: Service
metadata:
  name: web-headless
  namespace: demo
spec:
  clusterIP: None
  selector:
    app: web
  ports:
  - name: http
    port: 8080
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
  namespace: demo
spec:
  minAvailable: 1
  selector:
    matchLabels:
      app: web
EOF
docs=$(grep -c '^kind:' "$tmp/app.yaml")
k apply -f "$tmp/ns.yaml" >/dev/null || fail "kubectl apply of the namespace"

# -- a server-side dry run stores nothing -------------------------------------------------------
out=$(k apply --dry-run=server -f "$tmp/app.yaml" 2>&1) || fail "kubectl apply --dry-run=server: $out"
[ "$(count ' created \(server dry run\)$' "$out")" -eq "$docs" ] || fail "dry run: $out"
[ -z "$(k get -f "$tmp/app.yaml" -o name --ignore-not-found 2>&1)" ] || fail "a dry run stored objects"

# -- apply, get, defaults ------------------------------------------------------------------------
out=$(k apply -f "$tmp/app.yaml" 2>&1) || fail "kubectl apply: $out"
[ "$(count ' created$' "$out")" -eq "$docs" ] || fail "kubectl apply did not create everything: $out"
expect "deployment.apps/web
service/web
service/web-headless
poddisruptionbudget.policy/web
clusterrole.rbac.authorization.k8s.io/demo-reader
rolebinding.rbac.authorization.k8s.io/leases" \
  k get deploy,svc,pdb,clusterrole,rolebinding -n demo -o name -l '!kubernetes.io/bootstrapping'
# The server's own ClusterRoles are kube-apiserver's bootstrap policy, labelled as there.
expect "clusterrole.rbac.authorization.k8s.io/admin
clusterrole.rbac.authorization.k8s.io/cluster-admin
clusterrole.rbac.authorization.k8s.io/edit
clusterrole.rbac.authorization.k8s.io/system:aggregate-to-admin
clusterrole.rbac.authorization.k8s.io/system:aggregate-to-edit
clusterrole.rbac.authorization.k8s.io/system:aggregate-to-view
clusterrole.rbac.authorization.k8s.io/system:auth-delegator
clusterrole.rbac.authorization.k8s.io/system:basic-user
clusterrole.rbac.authorization.k8s.io/system:discovery
clusterrole.rbac.authorization.k8s.io/system:public-info-viewer
clusterrole.rbac.authorization.k8s.io/view" \
  k get clusterrole -o name -l kubernetes.io/bootstrapping=rbac-defaults
out=$(k get deploy,svc,pdb,clusterrole,rolebinding -n demo)
grep -qE '^deployment.apps/web +0/2 ' <<<"$out" || fail "kubectl get deploy columns: $out"
grep -qE '^service/web +ClusterIP +10\.(9[6-9]|10[0-9]|11[01])\.[0-9]+\.[0-9]+ +<none> +80/TCP ' <<<"$out" ||
  fail "kubectl get svc columns: $out"
grep -qE '^service/web-headless +ClusterIP +None ' <<<"$out" || fail "kubectl get svc (headless): $out"
grep -qE '^poddisruptionbudget.policy/web +1 +N/A +0 ' <<<"$out" || fail "kubectl get pdb columns: $out"
grep -qE '^rolebinding.rbac.authorization.k8s.io/leases +Role/leases ' <<<"$out" || fail "kubectl get rolebinding columns: $out"
# Deployments and Services are in the category "all".
out=$(k get all -n demo -o name 2>&1) || fail "kubectl get all: $out"
[ "$(sort <<<"$out" | tr '\n' ' ')" = "deployment.apps/web service/web service/web-headless " ] || fail "kubectl get all: $out"
expect "1 RollingUpdate 25% 25% 10 600 Always 30 ClusterFirst v1 HTTP 1" \
  k get deploy web -n demo -o jsonpath='{.metadata.generation} {.spec.strategy.type} {.spec.strategy.rollingUpdate.maxSurge} {.spec.strategy.rollingUpdate.maxUnavailable} {.spec.revisionHistoryLimit} {.spec.progressDeadlineSeconds} {.spec.template.spec.restartPolicy} {.spec.template.spec.terminationGracePeriodSeconds} {.spec.template.spec.dnsPolicy} {.spec.template.spec.containers[0].env[0].valueFrom.fieldRef.apiVersion} {.spec.template.spec.containers[0].readinessProbe.httpGet.scheme} {.spec.template.spec.containers[0].readinessProbe.timeoutSeconds}'
expect "None SingleStack IPv4 Cluster" \
  k get svc web -n demo -o jsonpath='{.spec.sessionAffinity} {.spec.ipFamilyPolicy} {.spec.ipFamilies[0]} {.spec.internalTrafficPolicy}'
expect "Opaque rbac.authorization.k8s.io 0" \
  k get secret/app-credentials rolebinding/leases pdb/web -n demo -o jsonpath='{.items[0].type} {.items[1].roleRef.apiGroup} {.items[2].status.expectedPods}'

# -- re-applying changes nothing -----------------------------------------------------------------
before=$(k get -f "$tmp/app.yaml" -o jsonpath='{..metadata.resourceVersion}')
out=$(k apply -f "$tmp/app.yaml" 2>&1) || fail "second kubectl apply: $out"
# kubectl's three-way patch always carries a PodDisruptionBudget's selector (its
# patchStrategy is "replace"), so kubectl says "configured" for it against
# kube-apiserver too; the server must still write nothing.
[ "$(count ' unchanged$' "$out")" -eq $((docs - 1)) ] || fail "re-applying changed something: $out"
grep -qx 'poddisruptionbudget.policy/web configured' <<<"$out" || fail "re-applying the budget: $out"
after=$(k get -f "$tmp/app.yaml" -o jsonpath='{..metadata.resourceVersion}')
[ "$before" = "$after" ] || fail "re-applying wrote: resourceVersions $before -> $after"

# -- kube-apiserver's refusals -------------------------------------------------------------------
refused_with 'field is immutable' k patch deploy web -n demo --type=merge -p '{"spec":{"selector":{"matchLabels":{"app":"v2"}},"template":{"metadata":{"labels":{"app":"v2"}}}}}'
refused_with '`selector` does not match template `labels`' k patch deploy web -n demo --type=merge -p '{"spec":{"template":{"metadata":{"labels":{"app":"other"}}}}}'
refused_with 'cannot change roleRef' k patch rolebinding leases -n demo --type=merge -p '{"roleRef":{"name":"other"}}'
refused_with 'may not change once set' k patch svc web -n demo --type=merge -p '{"spec":{"clusterIP":"10.96.0.200","clusterIPs":null}}'
refused_with 'minAvailable and maxUnavailable cannot be both set' k patch pdb web -n demo --type=merge -p '{"spec":{"maxUnavailable":1}}'
refused_with 'verbs must contain at least one value' k patch clusterrole demo-reader --type=json -p '[{"op":"remove","path":"/rules/0/verbs"}]'
# A spec change bumps the Deployment's generation; the strategic merge patch merges
# containers by name.
k patch deploy web -n demo -p '{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.26"}]}}}}' >/dev/null
expect "2 nginx:1.26 POD_NAME" k get deploy web -n demo -o jsonpath='{.metadata.generation} {.spec.template.spec.containers[0].image} {.spec.template.spec.containers[0].env[0].name}'

# -- server-side apply ---------------------------------------------------------------------------
# The same manifest in its own namespace and names, applied server-side twice.
sed -e 's/namespace: demo/namespace: ssa/' -e 's/name: demo-reader/name: ssa-reader/' "$tmp/app.yaml" >"$tmp/ssa.yaml"
k create namespace ssa >/dev/null
out=$(k apply --server-side -f "$tmp/ssa.yaml" 2>&1) || fail "kubectl apply --server-side: $out"
[ "$(count ' serverside-applied$' "$out")" -eq "$docs" ] || fail "kubectl apply --server-side: $out"
expect "kubectl Apply" k get deploy web -n ssa -o jsonpath='{.metadata.managedFields[0].manager} {.metadata.managedFields[0].operation}'
before=$(k get -f "$tmp/ssa.yaml" -o jsonpath='{..metadata.resourceVersion}')
out=$(k apply --server-side -f "$tmp/ssa.yaml" 2>&1) || fail "second kubectl apply --server-side: $out"
after=$(k get -f "$tmp/ssa.yaml" -o jsonpath='{..metadata.resourceVersion}')
[ "$before" = "$after" ] || fail "re-applying server-side wrote: resourceVersions $before -> $after"
# Another manager changing an owned field conflicts.
sed 's/replicas: 2/replicas: 3/' "$tmp/ssa.yaml" >"$tmp/ssa3.yaml"
refused_with 'conflict' k apply --server-side --field-manager=other -f "$tmp/ssa3.yaml"

# -- delete --------------------------------------------------------------------------------------
out=$(k delete -f "$tmp/app.yaml" 2>&1) || fail "kubectl delete: $out"
[ "$(count ' deleted$' "$out")" -eq "$docs" ] || fail "kubectl delete: $out"
[ -z "$(k get -f "$tmp/app.yaml" -o name --ignore-not-found 2>&1)" ] || fail "objects left after kubectl delete"

echo "PASS: kubectl: $docs built-in objects applied (dry run, client-side, server-side), listed, re-applied unchanged, refused where kube-apiserver refuses, deleted"
