#!/usr/bin/env bash
# The web view in a real browser: Debian's chromium, driven by playwright-core (pinned
# by package-lock.json, installed with `npm ci` into the build tree), against a running
# `kueuepp standalone` with the getting-started queue. Screenshots are kept in
# ARTIFACT_DIR. Skips (77) only when chromium, npm or kubectl is missing; scripts/
# install-deps.sh installs them, so in CI it runs.
#
# usage: web_view_test.sh KUEUEPP_BINARY SHARED_DIR ARTIFACT_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
artifacts=${3:?usage: $0 KUEUEPP_BINARY SHARED_DIR ARTIFACT_DIR}
# shellcheck source=../e2e/lib.sh
source "$repo/tests/e2e/lib.sh"
e2e_init "$1" "$2"

chromium=$(command -v chromium || true)
if [ -z "$chromium" ] || ! command -v npm >/dev/null; then
  echo "skipped: needs Debian's chromium and npm (scripts/install-deps.sh installs them)"
  exit 77
fi

mkdir -p "$artifacts"
rm -f "$artifacts"/*.png
node_dir="$artifacts/node"
mkdir -p "$node_dir"
# The script runs from beside its node_modules: ES modules resolve packages from there.
cp "$here/package.json" "$here/package-lock.json" "$here/web_view_test.mjs" "$node_dir/"
(cd "$node_dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) ||
  fail "npm ci of tests/web/package-lock.json failed"

e2e_start
k apply -f "$repo/examples/getting-started/setup.yaml" >/dev/null
wait_until 30 "the ClusterQueue in the web view" \
  "probe /debug/cohorts | jq -e '.trees[].clusterQueues[] | select(.name==\"cluster-queue\")' >/dev/null"
# Two Jobs of 3 CPUs run (of 9): the test's first Job fits, its second waits.
for name in running-1 running-2; do
  job_yaml name=$name queue=user-queue cpu=3 sleep=600 | k create -f - >/dev/null
done
wait_until 30 "the two Jobs admitted" \
  "[ \"\$(probe /debug/cohorts | jq '.trees[].clusterQueues[] | select(.name==\"cluster-queue\") | .admitted')\" = 2 ]"

create_job="$E2E_TMP/create-job"
cat >"$create_job" <<SCRIPT
#!/usr/bin/env bash
set -euo pipefail
source "$repo/tests/e2e/lib.sh"
E2E_TMP=$E2E_TMP
job_yaml name="\$1" queue=user-queue cpu="\$2" sleep=600 | k create -f - >/dev/null
SCRIPT
chmod +x "$create_job"

CHROMIUM="$chromium" node "$node_dir/web_view_test.mjs" "http://$E2E_PROBE" "$artifacts" "$create_job" ||
  fail "the web view test failed (screenshots in $artifacts)"
e2e_pass "web view"
