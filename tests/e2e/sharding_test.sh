#!/usr/bin/env bash
# Horizontal sharding by cohort, end to end: three `kueuepp controller` replicas with
# --shards 4 against one embedded API server, twelve cohort trees (eight cohorts, one of
# them with two ClusterQueues, and four ClusterQueues without a cohort), Leases of 3 s.
#   1. every shard is held by exactly one live replica, spread 2/1/1;
#   2. Jobs in every tree are admitted;
#   3. the replica holding two shards is killed (SIGKILL): its shards move to the others
#      within the lease duration (plus a retry period) and admissions continue in its trees;
#   4. a replica stopped with SIGTERM hands its shards over at once (it releases them);
#   5. Jobs beyond a queue's quota stay pending.
# Between 2 and 3, a ClusterQueue moves from its own tree (shard 2) into a cohort of
# shard 1, held by another replica, and its next Job is admitted there.
# All along, a sampler reads the API objects (not the controllers' memory) and checks that
# no ClusterQueue's admitted usage exceeds its quota and that no Workload is admitted
# twice (its QuotaReserved transition never changes; nothing is evicted in this test).
# Prints the failover figures.
#
# usage: sharding_test.sh KUEUEPP_BINARY SHARED_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
e2e_init "$@"
# The take-over bound below allows 1 s for polling: poll every 0.2 s throughout.
E2E_POLL_PAUSES=(0.2)
. "$(dirname "$0")/replicas.sh"

lease=3
rep_start_apiserver
rep_config ${lease}s 2s 500ms

# Twelve trees: cohorts team-a..team-h (team-a with two queues), queues solo-1..solo-4.
queues=(a a2 b c d e f g h solo-1 solo-2 solo-3 solo-4)
{
  echo 'apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}'
  for q in "${queues[@]}"; do
    case $q in
      solo-*) cohort='' ;;
      a2) cohort='cohortName: team-a' ;;
      *) cohort="cohortName: team-$q" ;;
    esac
    cat <<EOF
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq-$q}
spec:
  $cohort
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources: [{name: cpu, nominalQuota: 4${cohort:+, borrowingLimit: 0}}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq-$q, namespace: default}
spec: {clusterQueue: cq-$q}
EOF
  done
} | k apply -f - >/dev/null

# The sampler: every API read of the Workloads is checked. Usage per ClusterQueue from
# status.admission (whole CPUs or millicores), and each Workload's QuotaReserved
# transition time, which must never change once seen.
: >"$E2E_TMP/violations"
: >"$E2E_TMP/samples"
: >"$E2E_TMP/sampling"
sample() {
  local json
  json=$(api /apis/kueue.x-k8s.io/v1beta2/workloads 2>/dev/null) || return 0
  jq -r '
    def cpu: if test("m$") then (rtrimstr("m") | tonumber) / 1000 else tonumber end;
    [.items[] | select(.status.admission != null)
      | select(((.status.conditions // []) | any(.type == "Finished" and .status == "True")) | not)
      | {cq: .status.admission.clusterQueue,
         cpu: ([.status.admission.podSetAssignments[]?.resourceUsage.cpu // "0" | cpu] | add // 0)}]
    | group_by(.cq)[] | {cq: .[0].cq, cpu: (map(.cpu) | add)}
    | select(.cpu > 4) | "over quota: \(.cq) uses \(.cpu) CPUs of 4"' <<<"$json" >>"$E2E_TMP/violations"
  jq -r '.items[] | [.metadata.uid, (.metadata.namespace + "/" + .metadata.name),
      ([(.status.conditions // [])[] | select(.type == "QuotaReserved" and .status == "True") | .lastTransitionTime]
       | first // "")] | select(.[2] != "") | @tsv' <<<"$json" >"$E2E_TMP/reserved.now"
  # uid -> first transition seen; a different one later is a second admission.
  awk -F'\t' 'NR == FNR { seen[$1] = $3; next }
              ($1 in seen) && seen[$1] != $3 { print "admitted twice: " $2 " (" seen[$1] " then " $3 ")" }' \
    "$E2E_TMP/reserved.seen" "$E2E_TMP/reserved.now" >>"$E2E_TMP/violations" 2>/dev/null || true
  cat "$E2E_TMP/reserved.seen" "$E2E_TMP/reserved.now" 2>/dev/null | sort -u -t$'\t' -k1,1 >"$E2E_TMP/reserved.tmp"
  mv "$E2E_TMP/reserved.tmp" "$E2E_TMP/reserved.seen"
  echo x >>"$E2E_TMP/samples"
}
touch "$E2E_TMP/reserved.seen"
(while [ -e "$E2E_TMP/sampling" ]; do sample; sleep 0.3; done) &
sampler=$!

admitted_in() { # QUEUE...: how many Workloads of these LocalQueues hold quota
  local filter
  filter=$(printf '"lq-%s",' "$@")
  k get workloads -n default -o json | jq --argjson qs "[${filter%,}]" \
    '[.items[] | select(.spec.queueName as $q | $qs | index($q)) | select(.status.admission != null)] | length'
}
submit() { # TAG COUNT QUEUE...: COUNT one-CPU Jobs per queue, named TAG-QUEUE-i
  local tag=$1 count=$2 q i
  shift 2
  for q in "$@"; do
    for i in $(seq "$count"); do job_yaml name="$tag-$q-$i" queue="lq-$q" cpu=1 sleep=3600; echo ---; done
  done | k create -f - >/dev/null
}

# 1. Three replicas share the four shards.
for r in r1 r2 r3; do rep_start "$r" --shards 4; done
wait_until 30 "every shard held" '[ "$(shard_holders | grep -c " r[123]$")" = 4 ]'
expect_eventually 15 "the four shards spread 2/1/1 over the three replicas" holder_counts "1 1 2"
shard_holders | sed 's/^/  shard /'

# 2. Two Jobs per queue (26) are admitted in every tree.
submit one 2 "${queues[@]}"
expect_eventually 60 "two Jobs admitted in each of the 13 queues" 'admitted_in "${queues[@]}"' 26

# 2b. A tree changes shards: cq-solo-4 (its own tree, shard 2) joins cohort team-h (shard
#     1, another replica's), keeping its two admitted Workloads; it must not borrow (the
#     sampler's bound), and its next Job is admitted by the new tree's holder.
k patch clusterqueue cq-solo-4 --type merge -p '{"spec": {"cohortName": "team-h", "resourceGroups": [{"coveredResources": ["cpu"],
  "flavors": [{"name": "default", "resources": [{"name": "cpu", "nominalQuota": 4, "borrowingLimit": 0}]}]}]}}' >/dev/null
submit moved 1 solo-4
expect_eventually 30 "cq-solo-4, moved to another shard's tree, admits its third Job" 'admitted_in solo-4' 3
expect_eq "the moved queue's first two Workloads still hold quota, once each" "$(admitted_in "${queues[@]}")" 27

# 3. The replica with two shards dies. Its trees: those whose Workloads it admitted are
#    not known from outside, so every queue gets a Job at once and all must be admitted.
victim=$(shard_holders | awk '{print $2}' | sort | uniq -c | awk '$1 == 2 {print $2}' | head -n 1)
[ -n "$victim" ] || fail "no replica holds two shards"
victim_shards=$(shard_holders | awk -v v="$victim" '$2 == v {print $1}' | xargs)
t0=$(now_ms)
rep_signal "$victim" KILL
submit two 1 "${queues[@]}"
wait_until $((lease * 4)) "shards $victim_shards of the killed $victim taken over" \
  '! shard_holders | grep -q " $victim$" && [ "$(shard_holders | grep -vc " -$")" = 4 ]'
t_moved=$(now_ms)
wait_until 60 "another Job admitted in every queue" '[ "$(admitted_in "${queues[@]}")" = 40 ]'
t_admitted=$(now_ms)
moved_ms=$((t_moved - t0))
echo "failover after SIGKILL of $victim (shards $victim_shards): Leases taken over in ${moved_ms} ms," \
  "every tree admitting again in $((t_admitted - t0)) ms (lease ${lease} s)"
# client-go's bound: the dead holder's last renewal is seen up to one (jittered) retry
# period late, the Lease counts as expired a lease duration after that, and the next
# attempt comes up to one retry period later; plus 1 s for this test's polling.
bound=$((lease * 1000 + 2 * 600 + 1000))
expect_eq "shards taken over within lease + 2 retry periods (+1 s polling)" \
  "$([ "$moved_ms" -le "$bound" ] && echo yes || echo "no: ${moved_ms} ms > $bound ms")" yes
expect_eventually 15 "the two survivors share the four shards 2/2" holder_counts "2 2"

# 4. A graceful stop releases its shards: the last replica holds all four quickly.
leaving=$(shard_holders | awk '{print $2}' | sort -u | head -n 1)
t0=$(now_ms)
rep_signal "$leaving" TERM
wait_until $((lease * 4)) "the shards of $leaving (stopped with SIGTERM) taken over" \
  '! shard_holders | grep -q " $leaving$" && [ "$(shard_holders | grep -vc " -$")" = 4 ]'
handover_ms=$(($(now_ms) - t0))
echo "hand-over after SIGTERM of $leaving: ${handover_ms} ms"
expect_eq "a released shard is taken within the lease duration" \
  "$([ "$handover_ms" -lt $((lease * 1000)) ] && echo yes || echo "no: ${handover_ms} ms")" yes
expect_eventually 10 "one replica holds the four shards" holder_counts "4"

# 5. A fourth Job per queue fits, a fifth does not (cq-solo-4 was full already).
submit three 2 "${queues[@]}"
expect_eventually 60 "a fourth Job admitted in every queue (quota 4)" 'admitted_in "${queues[@]}"' 52
sleep 2
expect_eq "the fifth Job of every queue still pending" "$(admitted_in "${queues[@]}")" 52

rm -f "$E2E_TMP/sampling"
wait "$sampler" 2>/dev/null || true
samples=$(wc -l <"$E2E_TMP/samples")
expect_eq "no over-admission or double admission in $samples samples of the API objects" \
  "$(sort -u "$E2E_TMP/violations" | head -n 5 | xargs)" ""
expect_eq "the sampler ran all along" "$([ "$samples" -ge 10 ] && echo yes || echo "only $samples samples")" yes
e2e_pass "sharding: 3 replicas x 4 shards, kill and graceful stop handed over, $samples samples without violation"
