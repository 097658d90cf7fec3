#!/usr/bin/env bash
# Installs the Debian 12 packages kueuepp needs to build and test. Idempotent: it does
# nothing when everything is already installed.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config git
  libcaf-dev libboost1.81-dev libssl-dev libsimdjson-dev libspdlog-dev libfmt-dev
  libyaml-cpp-dev libjemalloc-dev libgtest-dev libgmock-dev googletest libbenchmark-dev
  clang libclang-rt-14-dev
  curl ca-certificates procps
  jq iproute2  # the end-to-end tests read JSON with jq and find free ports with ss
  chromium  # the web view's browser test (tests/web) drives it headless
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if command -v kubectl >/dev/null 2>&1; then :; else missing+=(kubernetes-client); fi
# npm installs the browser test's pinned playwright-core; any Node.js that brings npm will do.
if command -v npm >/dev/null 2>&1; then :; else missing+=(nodejs npm); fi

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "installing: ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
