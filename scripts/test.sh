#!/usr/bin/env bash
# The whole test suite: installs the build dependencies, configures with warnings as
# errors, builds everything, runs every ctest test, then replays the admission
# scenarios (ours in tests/scenarios, and Kueue's shared ones when ../shared is beside
# the checkout).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh -DKUEUEPP_WERROR=ON
jobs=$(nproc 2>/dev/null || echo 2)
# One slot more than cores: the end-to-end fault tests (FaultE2e.*, one at a time, first)
# mostly wait out their fault windows, a sixth of a core each, for about 3 minutes.
ctest --test-dir build --output-on-failure -j "$((jobs + 1))" --timeout 600
build/kueuepp scenario tests/scenarios
shared="${KUEUEPP_SHARED_DIR:-../shared}"
if [ -d "$shared/scenarios" ]; then
  build/kueuepp scenario "$shared/scenarios"
else
  echo "note: $shared/scenarios not found; skipping the shared Kueue scenarios" >&2
fi
if [ -d "$shared/apiserver-conformance/traces" ]; then
  # The recorded kube-apiserver traces, replayed against a fresh embedded server.
  build/kueuepp conformance --crds "$shared/kueue-crds" "$shared/apiserver-conformance/traces"
else
  echo "note: $shared/apiserver-conformance not found; skipping the API server conformance traces" >&2
fi
