#!/usr/bin/env bash
# Kueue's example manifests (../shared/kueue-examples) against OUR CRDs: every document
# whose kind is one of the seven kinds of deploy/crds is accepted by
# `kubectl apply --dry-run=server` against `kueuepp apiserver --crds deploy/crds`, and the
# object the server would store (defaults applied, unknown fields pruned) is the one a
# server with Kueue's own CRDs (../shared/kueue-crds) stores. Prints what was checked.
#
# usage: examples_test.sh KUEUEPP_BINARY SHARED_DIR   (exit 77: skipped)
set -euo pipefail
bin=$1
shared=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
examples=$shared/kueue-examples
if [ ! -d "$examples" ] || [ ! -d "$shared/kueue-crds" ] || ! command -v kubectl >/dev/null ||
  ! command -v jq >/dev/null; then
  echo "skipped: needs $examples, $shared/kueue-crds, kubectl and jq"
  exit 77
fi
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
  for s in ours kueue; do
    [ -f "$tmp/$s.log" ] && { echo "--- $s server log (last 20 lines)"; tail -n 20 "$tmp/$s.log"; }
  done
  exit 1
}

# Two servers: ours with deploy/crds, the reference with Kueue's CRDs.
start() {
  local name=$1 crds=$2
  "$bin" apiserver --listen 127.0.0.1:0 --kubeconfig-out "$tmp/$name.kc" --crds "$crds" >"$tmp/$name.log" 2>&1 &
  pids+=($!)
}
k() {
  local name=$1
  shift
  kubectl --kubeconfig "$tmp/$name.kc" --cache-dir "$tmp/cache-$name" --request-timeout=20s "$@"
}
start ours "$src/deploy/crds"
start kueue "$shared/kueue-crds"
kinds='ResourceFlavor|ClusterQueue|LocalQueue|Cohort|Workload|WorkloadPriorityClass|AdmissionCheck'
# Split every example into its documents (one awk for all, while the servers start); keep
# the kueue.x-k8s.io ones of our kinds as docs/FILE.DOC.yaml, the example's path beside
# each in docs/FILE.DOC.yaml.source.
mkdir "$tmp/docs"
find "$examples" -name '*.yaml' | sort | awk -v out="$tmp/docs" -v root="$examples/" \
  -v kind_re="^kind: ($kinds)[[:space:]]*$" -v api_re='^apiVersion: kueue\\.x-k8s\\.io/' '
  function keep(   path) {
    if (text != "" && has_kind && has_api) {
      path = sprintf("%s/%03d.%03d.yaml", out, n, doc)
      printf "%s", text > path
      close(path)
      print substr(file, length(root) + 1) > (path ".source")
      close(path ".source")
    }
    text = ""; has_kind = 0; has_api = 0
  }
  {
    file = $0; doc = 0; text = ""; has_kind = 0; has_api = 0
    while ((getline line < file) > 0) {
      if (line ~ /^---/) { keep(); doc++; continue }
      text = text line "\n"
      if (line ~ kind_re) has_kind = 1
      if (line ~ api_re) has_api = 1
    }
    close(file)
    keep()
    n++
  }'

for s in ours kueue; do
  for _ in $(seq 150); do
    [ -s "$tmp/$s.kc" ] && k "$s" get ns default >/dev/null 2>&1 && break
    sleep 0.1
  done
  k "$s" get ns default >/dev/null || fail "the $s API server did not come up"
done

# The namespaces the documents live in exist on both servers (dry-run needs them).
namespaces=$(cat "$tmp"/docs/*.yaml | awk '/^  namespace:/ {print $2}' | sort -u)
[ -z "$namespaces" ] || for s in ours kueue; do
  for ns in $namespaces; do printf 'apiVersion: v1\nkind: Namespace\nmetadata: {name: %s}\n---\n' "$ns"; done |
    k "$s" apply -f - >/dev/null || fail "creating the namespaces $namespaces on the $s server"
done

normalize() {
  jq -S 'del(.metadata.uid, .metadata.creationTimestamp, .metadata.resourceVersion, .metadata.managedFields)'
}
# One document at a time: the server's answer for it with each set of CRDs, or the
# refusal that names the document.
check_one() {
  local d=$1 rel ours kueue what
  rel=$(cat "$d.source")
  ours=$(k ours apply --dry-run=server -o json -f "$d" 2>&1) ||
    fail "$rel: refused with deploy/crds: $ours"$'\n'"$(cat "$d")"
  kueue=$(k kueue apply --dry-run=server -o json -f "$d" 2>&1) ||
    fail "$rel: refused with Kueue's CRDs (the example itself is wrong?): $kueue"
  what=$(jq -r '"\(.kind)/\(.metadata.name)" + (if .metadata.namespace then " in \(.metadata.namespace)" else "" end)' <<<"$ours")
  if [ "$(normalize <<<"$ours")" != "$(normalize <<<"$kueue")" ]; then
    diff <(normalize <<<"$kueue") <(normalize <<<"$ours") || true
    fail "$rel: $what is stored differently with deploy/crds (< Kueue's CRDs, > ours)"
  fi
}
# All documents in one dry-run apply per server (kubectl answers with a List, in the order
# of the files): each document is still applied on its own server-side, without a kubectl
# start-up per document. When a batch is refused or the answers differ, the documents are
# taken one at a time, which fails naming the first document at fault.
docs=("$tmp"/docs/*.yaml)
files=()
for d in "${docs[@]}"; do files+=(-f "$d"); done
# One line per answered object: its kind, name and namespace, then the object as stored
# (normalized as above, keys sorted), separated by the unit separator (JSON text holds none unescaped).
objects() {
  jq -r '(if .kind == "List" then .items[] else . end)
    | [.kind, .metadata.name, (.metadata.namespace // ""),
       (del(.metadata.uid, .metadata.creationTimestamp, .metadata.resourceVersion, .metadata.managedFields)
        | walk(if type == "object" then to_entries | sort_by(.key) | from_entries else . end) | tojson)]
    | join("\u001f")'
}
if ours=$(k ours apply --dry-run=server -o json "${files[@]}" 2>"$tmp/ours.err" | objects) &&
  kueue=$(k kueue apply --dry-run=server -o json "${files[@]}" 2>"$tmp/kueue.err" | objects) &&
  [ "$(wc -l <<<"$ours")" -eq "${#docs[@]}" ] && [ "$ours" = "$kueue" ]; then
  mapfile -t answered <<<"$ours"
else
  for d in "${docs[@]}"; do check_one "$d"; done
  fail "the batched dry run failed ($(cat "$tmp/ours.err" "$tmp/kueue.err")) but every document passes alone"
fi
checked=0
declare -A per_kind=()
for i in "${!docs[@]}"; do
  read -r rel <"${docs[$i]}.source"
  IFS=$'\x1f' read -r kind name namespace _ <<<"${answered[$i]}"
  echo "ok - $rel: $kind/$name${namespace:+ in $namespace}"
  checked=$((checked + 1))
  per_kind[$kind]=$((${per_kind[$kind]:-0} + 1))
done
[ "$checked" -gt 0 ] || fail "no example of our kinds found in $examples"
summary=$(for kind in "${!per_kind[@]}"; do echo "$kind ${per_kind[$kind]}"; done | sort | paste -sd, - | sed 's/,/, /g')
echo "PASS: $checked example objects accepted by deploy/crds and stored as with Kueue's CRDs ($summary)"
