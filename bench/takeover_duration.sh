#!/usr/bin/env bash
# How long `kueuepp takeover` takes on a large cluster Kueue v0.14 left: QUEUES
# ClusterQueues (each with a LocalQueue) and WORKLOADS Workloads spread over them, all
# stored as kueue.x-k8s.io/v1beta1 in `kueuepp apiserver` (--no-fsync) with Kueue v0.14's
# CRDs (tests/e2e/fixtures), kueuepp's controller running with its webhook server (the
# takeover requires it: it converts every object read and written as v1beta2). The
# Workloads are pending (no status): the migration rewrites each object whatever it holds.
# Prints the takeover's own report (each kind's rewrite in ms) and its wall clock.
#
# usage: bench/takeover_duration.sh KUEUEPP_BINARY SHARED_DIR [QUEUES] [WORKLOADS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$1 shared=$2 queues=${3:-1000} workloads=${4:-50000}

. "$here/../tests/e2e/lib.sh"
e2e_init "$bin" "$shared" >/dev/null
. "$here/../tests/e2e/replicas.sh"
. "$here/../tests/e2e/takeover.sh"

E2E_CRDS=$TK_FIXTURES/kueue-crds-v0.14 rep_start_apiserver --no-fsync
echo "creating $queues ClusterQueues and LocalQueues and $workloads Workloads (v1beta1)..."
start=$(date +%s.%N)
python3 - "$REP_API_URL" "$queues" "$workloads" <<'PY'
import http.client, json, sys, threading, urllib.parse
url, queues, workloads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
host = urllib.parse.urlparse(url)
def post(conn, path, body):
    conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    r = conn.getresponse(); r.read()
    if r.status != 201: raise SystemExit(f"POST {path}: {r.status}")
conn = http.client.HTTPConnection(host.hostname, host.port)
v = "kueue.x-k8s.io/v1beta1"
post(conn, "/apis/kueue.x-k8s.io/v1beta1/resourceflavors", {"apiVersion": v, "kind": "ResourceFlavor", "metadata": {"name": "default"}})
for i in range(queues):
    post(conn, "/apis/kueue.x-k8s.io/v1beta1/clusterqueues", {"apiVersion": v, "kind": "ClusterQueue",
         "metadata": {"name": f"cq-{i}"}, "spec": {"cohort": f"team-{i % 10}", "namespaceSelector": {},
         "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [{"name": "default",
         "resources": [{"name": "cpu", "nominalQuota": 10}]}]}]}})
    post(conn, "/apis/kueue.x-k8s.io/v1beta1/namespaces/default/localqueues", {"apiVersion": v, "kind": "LocalQueue",
         "metadata": {"name": f"lq-{i}", "namespace": "default"}, "spec": {"clusterQueue": f"cq-{i}"}})
def make(first, step):
    c = http.client.HTTPConnection(host.hostname, host.port)
    for n in range(first, workloads, step):
        post(c, "/apis/kueue.x-k8s.io/v1beta1/namespaces/default/workloads", {"apiVersion": v, "kind": "Workload",
             "metadata": {"name": f"wl-{n}", "namespace": "default"},
             "spec": {"queueName": f"lq-{n % queues}", "podSets": [{"name": "main", "count": 1, "template": {"spec": {
                 "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox",
                 "resources": {"requests": {"cpu": "1"}}}]}}}]}})
threads = [threading.Thread(target=make, args=(i, 4)) for i in range(4)]
for t in threads: t.start()
for t in threads: t.join()
PY
echo "created in $(echo "$(date +%s.%N) - $start" | bc) s"
tk_start_kueuepp
start=$(date +%s.%N)
tk_takeover --timeout 600
echo "takeover of $queues queues and $workloads Workloads: $(echo "$(date +%s.%N) - $start" | bc) s wall clock"
