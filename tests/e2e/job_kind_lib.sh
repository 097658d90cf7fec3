# The lifecycle steps the end-to-end tests of a kind of job (JobSet, the Kubeflow jobs,
# RayJob and RayCluster, TrainJob, AppWrapper) share: source it after lib.sh and e2e_init.
# Each test keeps what is its kind's own (the sample, its pod sets, where a flavor lands).
#
#   require_crds FILE...       skips the test (exit 77) unless every FILE exists; each is
#                              a CRD that standalone serves: they go to $E2E_CRD_FLAGS
#                              (--crds FILE each), for e2e_start "${E2E_CRD_FLAGS[@]}"
#   require_files FILE...      skips the test unless every FILE (a sample) exists
#   frameworks_config FRAMEWORKS [LINE...]
#                              writes a Configuration enabling FRAMEWORKS (a YAML flow
#                              sequence) with the further top-level LINEs, and prints its path
#   on_demand_queue cpu=N [memory=Q] [default_queue=yes]
#                              ResourceFlavor on-demand (node label instance-type: on-demand),
#                              ClusterQueue cluster-queue with N cpu (and Q memory) on it,
#                              LocalQueue default/user-queue (and default/default); applied
#                              again, it changes the quota
#   wl_of_owner KIND NAME [NS] the Workload that object KIND/NAME controls (empty if none)
#   wait_wl_of_owner KIND NAME [NS]
#                              waits for it and prints it
#   expect_waits_for_quota WL POD_SET [FLAVOR]
#                              WL says, with Kueue's pending message, that POD_SET finds too
#                              little cpu in FLAVOR (on-demand)
#   expect_resumed KIND NAME [JSONPATH]
#                              the object's suspend field (.spec.suspend) becomes false
#   instance_types KIND NAME TEMPLATES
#                              the instance-type node selector of each pod template the jq
#                              filter TEMPLATES picks from the object, joined with commas
#                              ("none" for a template without one)
#   expect_quota_released [WHAT]
#                              cluster-queue comes to admit no Workload

E2E_CRD_FLAGS=()

require_files() {
  local f
  for f in "$@"; do
    if [ ! -f "$f" ]; then
      echo "skipped: needs $f"
      exit 77
    fi
  done
}

require_crds() {
  require_files "$@"
  local f
  for f in "$@"; do E2E_CRD_FLAGS+=(--crds "$f"); done
}

frameworks_config() {
  local frameworks=$1 line
  shift
  {
    echo "apiVersion: config.kueue.x-k8s.io/v1beta2"
    echo "kind: Configuration"
    for line in "$@"; do echo "$line"; done
    echo "integrations:"
    echo "  frameworks: $frameworks"
  } >"$E2E_TMP/config.yaml"
  echo "$E2E_TMP/config.yaml"
}

on_demand_queue() {
  local cpu='' memory='' default_queue='' kv
  for kv in "$@"; do
    case $kv in
      cpu=*) cpu=${kv#*=} ;;
      memory=*) memory=${kv#*=} ;;
      default_queue=*) default_queue=${kv#*=} ;;
      *) echo "on_demand_queue: unknown key $kv" >&2; return 1 ;;
    esac
  done
  local covered=cpu resources="{name: cpu, nominalQuota: $cpu}"
  if [ -n "$memory" ]; then
    covered="cpu, memory"
    resources="$resources, {name: memory, nominalQuota: $memory}"
  fi
  {
    cat <<YAML
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: on-demand}
spec: {nodeLabels: {instance-type: on-demand}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cluster-queue}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [$covered]
    flavors:
    - name: on-demand
      resources: [$resources]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: user-queue, namespace: default}
spec: {clusterQueue: cluster-queue}
YAML
    if [ "$default_queue" = yes ]; then
      cat <<YAML
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: default, namespace: default}
spec: {clusterQueue: cluster-queue}
YAML
    fi
  } | k apply -f - >/dev/null
}

wl_of_owner() {
  k get workloads -n "${3:-$E2E_NS}" -o json |
    jq -r --arg kind "$1" --arg name "$2" \
      '[.items[] | select(.metadata.ownerReferences[]? | .kind == $kind and .name == $name and .controller)][].metadata.name'
}

wait_wl_of_owner() {
  local _kind=$1 _name=$2 _ns=${3:-$E2E_NS} _wl=
  wait_until 15 "the Workload of $_kind $_name" '_wl=$(wl_of_owner "$_kind" "$_name" "$_ns"); [ -n "$_wl" ]'
  echo "$_wl"
}

expect_waits_for_quota() {
  local message="couldn't assign flavors to pod set $2: insufficient quota for cpu in flavor ${3:-on-demand}"
  expect_eventually 15 "it waits with Kueue's pending message while the quota is short" \
    "wl_cond $1 QuotaReserved message | grep -o \"^$message\" | head -1" "$message"
}

expect_resumed() {
  local field=${3:-}
  [ -n "$field" ] || field='{.spec.suspend}'
  expect_eventually 20 "quota freed: the $1 is resumed" "jp $1 $2 '$field'" "false"
}

instance_types() {
  k get "$1" "$2" -o json | jq -r "[$3 | .spec.nodeSelector[\"instance-type\"] // \"none\"] | join(\",\")"
}

expect_quota_released() {
  expect_eventually 15 "${1:-and the quota is released}" \
    "k get clusterqueue cluster-queue -o jsonpath='{.status.admittedWorkloads}'" "0"
}
