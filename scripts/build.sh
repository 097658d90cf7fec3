#!/usr/bin/env bash
# Configures and builds kueuepp into build/ (the binary lands at build/kueuepp).
# Extra arguments go to the CMake configure step, e.g. -DKUEUEPP_WERROR=ON.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
cmake --build build -j "$jobs"
