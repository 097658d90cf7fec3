#!/usr/bin/env bash
# deploy/ as a cluster gets it: `kubectl apply -k deploy/` against `kueuepp apiserver`.
#   - kustomize renders exactly the objects listed below;
#   - `kubectl apply -k --dry-run=server` is accepted and writes nothing;
#   - `kubectl apply -k` creates them, the CRDs become Established and serve the Kueue
#     kinds with Kueue's short names; a second apply changes nothing; `kubectl get -k`
#     shows every object;
#   - nothing is unused: the objects refer to each other consistently (service account,
#     ConfigMap, role bindings, the selectors of the Services and the PodDisruptionBudget,
#     probe and Service ports), and the Deployment's container, run as the pod would run
#     it (its args and environment, its ConfigMap as /etc/kueuepp), becomes ready
#     (/healthz, /readyz), takes its shards' Leases in kueuepp-system, fills the webhook
#     Secret and serves the webhooks with its certificate, and acts: a ClusterQueue
#     becomes Active and /metrics reports it, over HTTPS to an authenticated reader only
#     (no plain /metrics or /debug on a non-loopback address).
# A server that does not serve admissionregistration.k8s.io gets deploy/ without the two
# webhook configurations (the test says so); everything else is checked the same.
#
# usage: kustomize_test.sh KUEUEPP_BINARY   (exit 77: skipped)
set -euo pipefail
bin=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
deploy=$src/deploy
for tool in kubectl jq ss curl; do
  if ! command -v "$tool" >/dev/null; then
    echo "skipped: needs $tool"
    exit 77
  fi
done
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  for log in server controller; do
    [ -f "$tmp/$log.log" ] && { echo "--- $log log (last 25 lines)"; tail -n 25 "$tmp/$log.log"; }
  done
  exit 1
}
k() { kubectl --kubeconfig "$tmp/kc" --cache-dir "$tmp/cache" --request-timeout=20s "$@"; }
ns=kueuepp-system

# -- what kustomize renders ------------------------------------------------------------
kubectl kustomize "$deploy" >"$tmp/rendered.yaml" || fail "kubectl kustomize $deploy"
got=$(grep -E '^kind: ' "$tmp/rendered.yaml" | sed 's/^kind: //' | LC_ALL=C sort | paste -sd' ' -)
want="APIService APIService ClusterRole ClusterRole ClusterRole ClusterRole ClusterRole ClusterRole ClusterRole ClusterRole ClusterRole ClusterRoleBinding ClusterRoleBinding \
ConfigMap CustomResourceDefinition CustomResourceDefinition CustomResourceDefinition CustomResourceDefinition \
CustomResourceDefinition CustomResourceDefinition CustomResourceDefinition Deployment MutatingWebhookConfiguration \
Namespace PodDisruptionBudget Role RoleBinding RoleBinding Secret Service Service Service ServiceAccount \
ValidatingWebhookConfiguration"
[ "$got" = "$want" ] || fail "kustomize renders: $got; want: $want"
echo "ok - kubectl kustomize renders $(wc -w <<<"$want") objects"

# -- the API server ---------------------------------------------------------------------
"$bin" apiserver --listen 127.0.0.1:0 --kubeconfig-out "$tmp/kc" >"$tmp/server.log" 2>&1 &
pids+=($!)
for _ in $(seq 150); do
  [ -s "$tmp/kc" ] && k get ns default >/dev/null 2>&1 && break
  sleep 0.1
done
k get ns default >/dev/null || fail "the API server did not come up"

# What is applied: deploy/ itself, or, on a server without admissionregistration.k8s.io,
# deploy/ less its two webhook configurations.
apply_dir=$deploy
objects=34
if [ -z "$(k api-resources --api-group=admissionregistration.k8s.io -o name 2>/dev/null)" ]; then
  apply_dir=$tmp/without-webhook-configurations
  objects=32
  mkdir "$apply_dir"
  cat >"$apply_dir/kustomization.yaml" <<EOF2
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- $(realpath --relative-to="$apply_dir" "$deploy")
patches:
- target: {kind: MutatingWebhookConfiguration}
  patch: |-
    \$patch: delete
    apiVersion: admissionregistration.k8s.io/v1
    kind: MutatingWebhookConfiguration
    metadata: {name: unused}
- target: {kind: ValidatingWebhookConfiguration}
  patch: |-
    \$patch: delete
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingWebhookConfiguration
    metadata: {name: unused}
EOF2
  echo "note - the server does not serve admissionregistration.k8s.io: the webhook configurations are left out"
fi

# A dry run writes nothing. Namespaced objects need their namespace to exist (a real
# server refuses them otherwise), so the Namespace goes first.
k apply -f "$deploy/namespace.yaml" >/dev/null || fail "kubectl apply -f namespace.yaml"
out=$(k apply -k "$apply_dir" --dry-run=server 2>&1) || fail "kubectl apply -k --dry-run=server: $out"
[ "$(grep -vc '(server dry run)$' <<<"$out")" -eq 0 ] || fail "unexpected dry-run output: $out"
[ "$(wc -l <<<"$out")" -eq "$objects" ] || fail "the dry run did not cover the $objects objects: $out"
left=$(k get crd,deploy,svc,pdb,sa,cm,secret,role,rolebinding,clusterrole,clusterrolebinding,apiservice -A \
  -l app.kubernetes.io/name=kueuepp -o name 2>&1) || fail "kubectl get: $left"
[ -z "$left" ] || fail "the dry run wrote objects: $left"
echo "ok - kubectl apply -k --dry-run=server accepts all $objects objects and writes none"

out=$(k apply -k "$apply_dir" 2>&1) || fail "kubectl apply -k: $out"
echo "$out" | sed 's/^/  /'
k wait --for=condition=Established crd -l app.kubernetes.io/name=kueuepp --timeout=30s >/dev/null ||
  fail "the CRDs did not become Established"
resources=$(k api-resources --api-group=kueue.x-k8s.io --no-headers | awk '{print $1 ":" $3}' | sort | paste -sd' ' -)
want_resources="admissionchecks:kueue.x-k8s.io/v1beta2 clusterqueues:kueue.x-k8s.io/v1beta2 \
cohorts:kueue.x-k8s.io/v1beta2 localqueues:kueue.x-k8s.io/v1beta2 resourceflavors:kueue.x-k8s.io/v1beta2 \
workloadpriorityclasses:kueue.x-k8s.io/v1beta2 workloads:kueue.x-k8s.io/v1beta2"
[ "$resources" = "$want_resources" ] || fail "kueue.x-k8s.io resources: $resources; want: $want_resources"
short=$(k api-resources --api-group=kueue.x-k8s.io --no-headers | awk 'NF == 5 {print $1 "=" $2}' | sort | paste -sd' ' -)
[ "$short" = "admissionchecks=ac clusterqueues=cq cohorts=co localqueues=queue,queues,lq resourceflavors=flavor,flavors,rf workloadpriorityclasses=wpc workloads=kwl,kueueworkload,kueueworkloads" ] ||
  fail "short names: $short"
echo "ok - kubectl apply -k creates them; the CRDs are Established and serve v1beta2 with Kueue's short names"

# Applying again writes nothing: every resourceVersion stays, and kubectl says
# "unchanged", except for the PodDisruptionBudget: its selector's patch strategy is
# "replace", so kubectl always sends it and says "configured" against kube-apiserver too
# (the patch is a no-op there as here).
versions() { k get -k "$apply_dir" -o jsonpath='{range .items[*]}{.kind}/{.metadata.name}={.metadata.resourceVersion}{"\n"}{end}'; }
before=$(versions)
out=$(k apply -k "$apply_dir" 2>&1) || fail "second kubectl apply -k: $out"
[ "$(grep -v ' unchanged$' <<<"$out" | grep -vc '^poddisruptionbudget.policy/kueuepp-controller configured$')" -eq 0 ] ||
  fail "the second apply changed something: $out"
out=$(k apply -k "$apply_dir" --dry-run=server 2>&1) || fail "kubectl apply -k --dry-run=server: $out"
[ "$(grep -v ' unchanged (server dry run)$' <<<"$out" |
  grep -vc '^poddisruptionbudget.policy/kueuepp-controller configured (server dry run)$')" -eq 0 ] ||
  fail "the dry run over the installed objects: $out"
after=$(versions)
[ "$before" = "$after" ] || fail "applying again changed resourceVersions: $(diff <(echo "$before") <(echo "$after"))"
[ "$(wc -l <<<"$after")" -eq "$objects" ] || fail "resourceVersions of $(wc -l <<<"$after") objects"
echo "ok - applying again (and dry-running again) writes nothing"

k get -k "$apply_dir" -o json >"$tmp/objects.json" || fail "kubectl get -k"
[ "$(jq '.items | length' "$tmp/objects.json")" -eq "$objects" ] || fail "kubectl get -k shows $(jq '.items | length' "$tmp/objects.json") objects"
k get -k "$apply_dir" | sed 's/^/  /'
echo "ok - kubectl get -k shows all $objects objects"

# -- the objects refer to each other ------------------------------------------------------
obj() { jq -c --arg kind "$1" '[.items[] | select(.kind == $kind)]' "$tmp/objects.json"; }
deployment=$(obj Deployment | jq -c '.[0]')
pod_labels=$(jq -c '.spec.template.metadata.labels' <<<"$deployment")
sa=$(obj ServiceAccount | jq -r '.[0].metadata.name')
[ "$(jq -r .spec.template.spec.serviceAccountName <<<"$deployment")" = "$sa" ] || fail "the Deployment does not run as $sa"
for binding in ClusterRoleBinding RoleBinding; do
  role_kind=${binding%Binding}
  for b in $(obj "$binding" | jq -c '.[]'); do
    [ "$(jq -r '.subjects[0].name + "/" + .subjects[0].namespace' <<<"$b")" = "$sa/$ns" ] || fail "$binding subject: $b"
    # The one Role kube-apiserver ships and deploy/ binds: the front proxy's trust, for
    # the visibility API.
    if [ "$(jq -r '.roleRef.name + "@" + .metadata.namespace' <<<"$b")" = extension-apiserver-authentication-reader@kube-system ]; then
      k get role -n kube-system extension-apiserver-authentication-reader >/dev/null 2>&1 ||
        fail "the server has no Role kube-system/extension-apiserver-authentication-reader, as kube-apiserver has"
      continue
    fi
    [ "$(jq -r .roleRef.kind <<<"$b")" = "$role_kind" ] &&
      obj "$role_kind" | jq -e --arg n "$(jq -r .roleRef.name <<<"$b")" 'any(.[]; .metadata.name == $n)' >/dev/null ||
      fail "$binding binds no $role_kind of deploy/: $b"
  done
done
cm=$(obj ConfigMap | jq -r '.[0].metadata.name')
[ "$(jq -r '.spec.template.spec.volumes[] | select(.configMap) | .configMap.name' <<<"$deployment")" = "$cm" ] ||
  fail "the Deployment does not mount the ConfigMap $cm"
matches() { jq -e --argjson labels "$pod_labels" 'to_entries | all(.value as $v | $labels[.key] == $v)' >/dev/null; }
jq -c '.spec.selector.matchLabels' <<<"$deployment" | matches || fail "the Deployment's selector does not select its pods"
obj PodDisruptionBudget | jq -c '.[0].spec.selector.matchLabels' | matches || fail "the PodDisruptionBudget selects no controller pod"
jq -c '.spec.template.spec.topologySpreadConstraints[0].labelSelector.matchLabels' <<<"$deployment" | matches ||
  fail "the topology spread constraint does not select the controller pods"
container=$(jq -c '.spec.template.spec.containers[0]' <<<"$deployment")
port_names=$(jq -r '.ports[].name' <<<"$container")
for svc in $(obj Service | jq -r '.[].metadata.name'); do
  s=$(obj Service | jq -c --arg n "$svc" '.[] | select(.metadata.name == $n)')
  jq -c .spec.selector <<<"$s" | matches || fail "Service $svc selects no controller pod"
  grep -qx "$(jq -r '.spec.ports[0].targetPort' <<<"$s")" <<<"$port_names" || fail "Service $svc targets no container port"
done
for probe in livenessProbe:/healthz readinessProbe:/readyz; do
  p=$(jq -c ".${probe%%:*}.httpGet" <<<"$container")
  [ "$(jq -r .path <<<"$p")" = "${probe#*:}" ] || fail "${probe%%:*} is not on ${probe#*:}: $p"
  grep -qx "$(jq -r .port <<<"$p")" <<<"$port_names" || fail "${probe%%:*} is not on a container port: $p"
done
jq -e '.securityContext | .allowPrivilegeEscalation == false and .readOnlyRootFilesystem == true and .capabilities.drop == ["ALL"]' \
  <<<"$container" >/dev/null || fail "the container's securityContext: $(jq -c .securityContext <<<"$container")"
jq -e '.spec.template.spec.securityContext | .runAsNonRoot == true and .runAsUser == 65532 and .seccompProfile.type == "RuntimeDefault"' \
  <<<"$deployment" >/dev/null || fail "the pod's securityContext"
jq -e '.resources.requests.cpu and .resources.requests.memory and .resources.limits.cpu and .resources.limits.memory' \
  <<<"$container" >/dev/null || fail "the container has no resource requests and limits"
echo "ok - service account, role bindings, ConfigMap, selectors, ports and probes fit together"

# -- the Deployment's container, run as the pod runs it ------------------------------------
mount=$(jq -r '.volumeMounts[] | select(.name == "config") | .mountPath' <<<"$container")
mkdir "$tmp/config"
k get configmap -n "$ns" "$cm" -o json >"$tmp/configmap.json" || fail "kubectl get configmap $cm"
for key in $(jq -r '.data | keys[]' "$tmp/configmap.json"); do
  jq -j --arg key "$key" '.data[$key]' "$tmp/configmap.json" >"$tmp/config/$key"
done
pod_name=kueuepp-controller-7d9f8-test
declare -A env=([POD_NAME]=$pod_name [POD_NAMESPACE]=$ns)
[ "$(jq -r '[.env[].name] | sort | join(" ")' <<<"$container")" = "POD_NAME POD_NAMESPACE" ] ||
  fail "unexpected environment: $(jq -c .env <<<"$container")"
args=()
while IFS= read -r a; do
  a=${a//"$mount"/$tmp/config}
  for var in "${!env[@]}"; do a=${a//"\$($var)"/${env[$var]}}; done
  args+=("$a")
done < <(jq -r '.args[]' <<<"$container")
echo "  running: kueuepp ${args[*]} (its listeners moved to free loopback ports)"
# Nothing plain but the probes on a non-loopback address: /metrics and /debug/... name
# every workload and namespace.
flag() { jq -r --arg f "$1" '.args | index($f) as $i | if $i then .[$i + 1] else "" end' <<<"$container"; }
[[ $(flag --probe-listen) == 127.0.0.1:* ]] || fail "--probe-listen is not on loopback: $(flag --probe-listen)"
[ -n "$(flag --secure-listen)" ] || fail "the Deployment serves no metrics over HTTPS (--secure-listen)"
[ "$(jq -r '.livenessProbe.httpGet.port' <<<"$container")" = "$(jq -r '.ports[] | select(.containerPort == '"$(flag --health-listen | sed 's/.*://')"') | .name' <<<"$container")" ] ||
  fail "the probes are not on --health-listen's port"
echo "ok - plain HTTP on the pod's address serves the probes only; metrics over HTTPS"
POD_NAME=$pod_name POD_NAMESPACE=$ns "$bin" "${args[@]}" --kubeconfig "$tmp/kc" --probe-listen 127.0.0.1:0 \
  --webhook-listen 127.0.0.1:0 --health-listen 127.0.0.1:0 --secure-listen 127.0.0.1:0 --visibility-listen 127.0.0.1:0 \
  >"$tmp/controller.log" 2>&1 &
controller=$!
pids+=("$controller")
# Five listeners, found by what the controller logs once each is bound: the probes and
# introspection (HTTP, loopback), the kubelet's probes (HTTP, nothing else), the secure
# listener (HTTPS, 401 without a token), the webhooks and the visibility API (HTTPS).
logged() { sed -n "s|$1|\\1|p" "$tmp/controller.log" | tail -n 1; }
probe=
for _ in $(seq 150); do
  kill -0 "$controller" 2>/dev/null || fail "the controller exited"
  probe=$(logged '.*probes and introspection on http://\([^/]*\)/debug/actors.*')
  [ -n "$probe" ] && [ "$(curl -fsS --max-time 5 "http://$probe/readyz" 2>/dev/null)" = ok ] && break
  sleep 0.2
done
health=$(logged '.*probes (/healthz, /readyz) also on http://\([^ ]*\)$')
secure=127.0.0.1:$(logged '.*metrics and introspection over HTTPS on .* (port \([0-9]*\)).*')
webhook=$(logged '.*webhook server listening on \([^ ]*\) .*')
visibility=127.0.0.1:$(logged '.*visibility API listening on .* (port \([0-9]*\)).*')
[ "$(curl -fsS --max-time 5 "http://$probe/readyz" 2>/dev/null)" = ok ] || fail "the controller did not become ready"
[ "$(curl -fsS --max-time 5 "http://$probe/healthz")" = ok ] || fail "/healthz"
[ "$(curl -fsS --max-time 5 "http://$health/readyz")" = ok ] || fail "/readyz on --health-listen ($health)"
[ "$(curl -sS --max-time 5 -o /dev/null -w '%{http_code}' "http://$health/metrics")" = 404 ] ||
  fail "--health-listen ($health) serves more than the probes"
echo "ok - the controller runs with the Deployment's args and ConfigMap: /healthz and /readyz answer"

# The webhook Secret holds the certificates it serves, for the webhook Service's name.
secret=$(jq -r '.items[] | select(.kind == "Secret") | .metadata.name' "$tmp/objects.json")
k get secret -n "$ns" "$secret" -o jsonpath='{.data.ca\.crt}' | base64 -d >"$tmp/ca.crt" ||
  fail "the Secret $secret holds no CA"
webhook_svc=$(jq -r '.items[] | select(.kind == "Service" and .metadata.labels["app.kubernetes.io/component"] == "webhook") | .metadata.name' "$tmp/objects.json")
host=$webhook_svc.$ns.svc
review='{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1","operation":"CREATE",
  "namespace":"team","kind":{"group":"batch","version":"v1","kind":"Job"},
  "object":{"metadata":{"name":"j","labels":{"kueue.x-k8s.io/queue-name":"lq"}},"spec":{}}}}'
answer=$(curl -fsS --max-time 5 --cacert "$tmp/ca.crt" --resolve "$host:${webhook##*:}:127.0.0.1" \
  -H 'Content-Type: application/json' -d "$review" "https://$host:${webhook##*:}/mutate-batch-v1-job") ||
  fail "the webhook server does not answer over TLS for $host with the Secret's CA"
[ "$(jq -r .response.uid <<<"$answer")" = u-1 ] && [ "$(jq -r .response.patch <<<"$answer" | base64 -d | jq -c '.[0]')" = \
  '{"op":"add","path":"/spec/suspend","value":true}' ] || fail "the webhook's answer: $answer"
echo "ok - the webhook server serves the Secret's certificate for $host and holds a labelled Job suspended"
# In a cluster the Service's named targetPort reaches the pod's port 9443 (the API server
# resolves it through the endpoints); here the replica listens on a free port, and the
# embedded server resolves no named ports, so the Service is pointed at that port.
k patch service -n "$ns" "$webhook_svc" --type=json \
  -p "[{\"op\":\"replace\",\"path\":\"/spec/ports/0/targetPort\",\"value\":${webhook##*:}}]" >/dev/null ||
  fail "pointing the webhook Service at the replica's port"
shards=$(jq -r '.args | index("--shards") as $i | .[$i + 1]' <<<"$container")
leases() {
  k get leases -n "$ns" -o json | jq -r --arg id "${pod_name}_" \
    '[.items[] | select(.metadata.name | test("-shard-[0-9]+$")) | select(.spec.holderIdentity | startswith($id))] | length'
}
for _ in $(seq 100); do
  [ "$(leases)" = "$shards" ] && break
  sleep 0.2
done
[ "$(leases)" = "$shards" ] ||
  fail "the replica holds $(leases) of the $shards shard Leases in $ns: $(k get leases -n "$ns" -o wide 2>&1)"
k get leases -n "$ns" | sed 's/^/  /'
echo "ok - the lone replica holds all $shards shard Leases in $ns"

# It acts: a ClusterQueue gets its status, and /metrics reports it.
k apply -f - >/dev/null <<'EOF2' || fail "kubectl apply of a ResourceFlavor and a ClusterQueue"
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cluster-queue}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default-flavor, resources: [{name: cpu, nominalQuota: 9}]}]
EOF2
active=
for _ in $(seq 100); do
  active=$(k get cq cluster-queue -o jsonpath='{.status.conditions[?(@.type=="Active")].status}')
  [ "$active" = True ] && break
  sleep 0.2
done
[ "$active" = True ] || fail "the ClusterQueue did not become Active: $(k get cq cluster-queue -o yaml)"
metrics=$(curl -fsS --max-time 5 "http://$probe/metrics") || fail "/metrics"
grep -q '^kueue_cluster_queue_status{.*cluster_queue="cluster-queue"' <<<"$metrics" ||
  fail "/metrics does not report the ClusterQueue: $(grep kueue_cluster_queue_status <<<"$metrics")"
echo "ok - it acts: the ClusterQueue is Active and /metrics (loopback) reports it"
# The secure listener refuses whom the cluster does not authenticate (tests/e2e/metrics_auth
# covers readers allowed and refused).
[ "$(curl -ksS --max-time 5 -o /dev/null -w '%{http_code}' "https://$secure/metrics")" = 401 ] ||
  fail "the secure listener (--secure-listen, $secure) does not answer 401 without a token"
echo "ok - over HTTPS, /metrics without a token is 401"

# The visibility API through the API server's aggregation layer, as kubectl reads it (the
# Service pointed at the replica's port, as for the webhooks above).
visibility_svc=$(jq -r '.items[] | select(.kind == "APIService") | .spec.service.name' "$tmp/objects.json" | sort -u)
k patch service -n "$ns" "$visibility_svc" --type=json \
  -p "[{\"op\":\"replace\",\"path\":\"/spec/ports/0/targetPort\",\"value\":${visibility##*:}}]" >/dev/null ||
  fail "pointing the visibility Service at the replica's port"
pending=
for _ in $(seq 50); do
  pending=$(k get --raw /apis/visibility.kueue.x-k8s.io/v1beta2/clusterqueues/cluster-queue/pendingworkloads 2>&1) &&
    [ "$(jq -r .kind <<<"$pending" 2>/dev/null)" = PendingWorkloadsSummary ] && break
  sleep 0.2
done
[ "$(jq -c '[.kind, .items]' <<<"$pending" 2>/dev/null)" = '["PendingWorkloadsSummary",[]]' ] ||
  fail "kubectl get --raw of the ClusterQueue's pending workloads through the APIService: $pending"
echo "ok - the visibility API answers through the APIServices deploy/ registers"
echo "PASS: kubectl apply -k deploy/"
