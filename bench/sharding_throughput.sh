#!/usr/bin/env bash
# Admissions per second with 1, 2 and 4 controller replicas (--shards 4), each with its
# own client and API budget, on 16 cohort trees against one embedded API server.
#
# For each replica count: a fresh API server; 16 ClusterQueues (each its own cohort, so
# 16 trees) with room for everything; JOBS one-CPU Jobs per queue created while no
# controller runs; then the replicas start and the clock runs until every Job's Workload
# holds quota. Everything a controller does per Job is in the figure: the Workload's
# creation, the admission, the Job's start. Also prints the failover time: the replica
# holding shard 0 is killed and a new Job in a tree of shard 0 is timed to admission.
#
# usage: bench/sharding_throughput.sh KUEUEPP_BINARY SHARED_DIR [JOBS_PER_QUEUE] [REPLICAS...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$1 shared=$2 per_queue=${3:-100}
shift 3 2>/dev/null || shift $#
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(1 2 4)

run_one() { # REPLICAS
  (
    . "$here/../tests/e2e/lib.sh"
    e2e_init "$bin" "$shared" >/dev/null
    . "$here/../tests/e2e/replicas.sh"
    rep_start_apiserver --no-fsync
    rep_config 15s 10s 2s
    {
      echo 'apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}'
      for t in $(seq 16); do
        cat <<EOF
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq-$t}
spec:
  cohortName: tree-$t
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources: [{name: cpu, nominalQuota: 100000}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq-$t, namespace: default}
spec: {clusterQueue: cq-$t}
EOF
      done
    } | k apply -f - >/dev/null
    for t in $(seq 16); do
      for i in $(seq "$per_queue"); do job_yaml name="j-$t-$i" queue="lq-$t" cpu=1 sleep=3600; echo ---; done
    done | k create -f - >/dev/null
    total=$((16 * per_queue))
    admitted() { api /apis/kueue.x-k8s.io/v1beta2/workloads | jq '[.items[] | select(.status.admission != null)] | length'; }
    t0=$(now_ms)
    for r in $(seq "$1"); do rep_start "r$r" --shards 4; done
    while [ "$(admitted)" -lt "$total" ]; do
      [ $(($(now_ms) - t0)) -lt 600000 ] || { echo "timed out" >&2; exit 1; }
      sleep 0.2
    done
    ms=$(($(now_ms) - t0))
    echo "$1 replica(s): $total admissions in $ms ms: $((total * 1000 / ms)) admissions/s (held: $(holder_counts))"
    if [ "$1" -gt 1 ]; then
      victim=$(shard_holders | awk '$1 == 0 {print $2}')
      t0=$(now_ms)
      rep_signal "$victim" KILL
      # A tree of shard 0: found from the snapshot actor's introspection is overkill here;
      # one Job in every queue, and the clock stops when all 16 are admitted.
      for t in $(seq 16); do job_yaml name="after-$t" queue="lq-$t" cpu=1 sleep=3600; echo ---; done | k create -f - >/dev/null
      while [ "$(admitted)" -lt $((total + 16)) ]; do
        [ $(($(now_ms) - t0)) -lt 120000 ] || { echo "failover timed out" >&2; exit 1; }
        sleep 0.2
      done
      echo "  failover: SIGKILL of $victim -> every tree admitting again in $(($(now_ms) - t0)) ms (lease 15 s)"
    fi
  )
}

for n in "${counts[@]}"; do run_one "$n"; done
