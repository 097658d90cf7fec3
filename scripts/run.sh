#!/usr/bin/env bash
# Builds kueuepp and runs it standalone: the embedded API server plus the controller.
# Arguments go to `kueuepp standalone` (e.g. --listen 127.0.0.1:6443 --data-dir DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
exec build/kueuepp standalone "$@"
