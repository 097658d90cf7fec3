#!/usr/bin/env bash
# kubectl against `kueuepp apiserver`, as a user installs Kueue: Kueue's CRDs applied with
# kubectl (client-side, and server-side for the Workload CRD, too big for client-side
# apply's annotation), Established, and served in discovery. (The other kubectl_*_test.sh
# scripts start their own server with the CRDs installed, and go on from there.)
#
# usage: kubectl_crds_test.sh KUEUEPP_BINARY SHARED_DIR   (exit 77: skipped)
set -euo pipefail
bin=$1
shared=$2
if [ ! -d "$shared/kueue-crds" ] || ! command -v kubectl >/dev/null; then
  echo "skipped: needs $shared/kueue-crds and kubectl"
  exit 77
fi
. "$(dirname "$0")/kubectl_lib.sh"

# -- Kueue's CRDs -------------------------------------------------------------------------
# One apply for all but the Workload CRD, which is 1.4 MB of YAML: client-side apply's
# last-applied-configuration annotation would exceed 256 KiB, which kube-apiserver refuses
# (422) and so must we; Kueue installs it with server-side apply.
crd_files=()
workload_crd=
for f in "$shared"/kueue-crds/*.yaml; do
  case $f in
    *_workloads.yaml) workload_crd=$f ;;
    *) crd_files+=(-f "$f") ;;
  esac
done
crd_count=$((${#crd_files[@]} / 2 + 1))
k apply "${crd_files[@]}" >/dev/null || fail "kubectl apply of the CRDs"
if out=$(k apply -f "$workload_crd" 2>&1); then fail "client-side apply of the Workload CRD was accepted"; fi
grep -q "metadata.annotations: Too long" <<<"$out" || fail "unexpected refusal of the Workload CRD: $out"
k apply --server-side -f "$workload_crd" >/dev/null || fail "server-side apply of $workload_crd"
[ "$(k get crd -o name | grep -c 'kueue.x-k8s.io$')" -eq "$crd_count" ] || fail "not all $crd_count CRDs were stored"
k wait --for=condition=Established crd --all --timeout=30s >/dev/null || fail "CRDs not Established"
# (Outputs are captured before grep -q: with pipefail, grep -q quitting early would fail
# the writer with SIGPIPE.)
resources=$(k api-resources --api-group=kueue.x-k8s.io -o name)
for r in clusterqueues localqueues resourceflavors workloads cohorts admissionchecks topologies; do
  grep -qx "$r.kueue.x-k8s.io" <<<"$resources" || fail "$r not in discovery: $resources"
done

echo "PASS: kubectl: $crd_count CRDs applied (the Workload CRD server-side), Established and in discovery"
