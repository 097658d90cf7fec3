#!/usr/bin/env bash
# The sanitizer and fuzzing stages (locally, and from CI after scripts/test.sh). Fails on
# a failing test and on any sanitizer report, including one from a process whose exit
# status no test looks at: every report is written to a file, and any such file fails
# the stage.
#
#   scripts/sanitizers.sh [fuzz] [asan] [tsan] [asan-all]    (default: what CI runs, fuzz asan)
#
#   fuzz      builds the libFuzzer targets (fuzz/) in build-asan/ and runs each for
#             FUZZ_SECONDS over its seed corpus (ctest -L fuzz).
#   asan      AddressSanitizer + UndefinedBehaviorSanitizer (and LeakSanitizer) on the unit
#             tests of ASAN_TEST_DIRS, in the same build-asan/ (its libraries are the
#             fuzzers' ones, so the two stages share one build).
#   tsan      ThreadSanitizer on the tests of TSAN_TEST_DIRS (the actors, the client, the
#             API server), in build-tsan/. Not in CI: see docs/performance.md for why.
#   asan-all  the whole ctest suite and the admission scenarios under ASan + UBSan (builds
#             everything, the kueuepp binary included; the end-to-end tests are
#             timing-bound and slower under ASan, so this is a local check).
#
# Environment: SANITIZER_JOBS (build and ctest parallelism, default nproc), FUZZ_SECONDS
# (default 20), ASAN_TEST_DIRS, TSAN_TEST_DIRS (directories under tests/), CXX (default
# clang++-14: libFuzzer's compiler; it also compiles this code faster than GCC).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

jobs=${SANITIZER_JOBS:-$(nproc 2>/dev/null || echo 2)}
cxx=${CXX:-clang++-14}
fuzz_seconds=${FUZZ_SECONDS:-20}
asan_dirs=${ASAN_TEST_DIRS:-"core config kube actors"}
tsan_dirs=${TSAN_TEST_DIRS:-"actors kube/client kube/apiserver/server"}
# Tests these stages do not run: the kubectl scripts and the crash test start the
# kueuepp binary (which only asan-all builds), and are timing-bound.
exclude='^(kube\.server\.kubectl_|apiserver_crash_tests)'
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(fuzz asan)

scripts/install-deps.sh

summary=()
failed=0
since() { echo $(($(date +%s) - $1)); }

# Runs "$@" with the sanitizers' reports going to files under $reports; fails the stage
# (the script goes on to the next stage) when the command fails or any report was written.
run_checked() {
  local name=$1 reports=$2
  shift 2
  rm -rf "$reports"
  mkdir -p "$reports"
  local status=0
  "$@" || status=$?
  local found
  found=$(find "$reports" -type f -size +0 | sort)
  if [ -n "$found" ]; then
    echo "== $name: sanitizer reports:" >&2
    while IFS= read -r f; do
      echo "-- $f" >&2
      cat "$f" >&2
    done <<<"$found"
    status=1
  fi
  if [ "$status" -ne 0 ]; then
    echo "== $name: FAILED" >&2
    failed=1
  fi
  return 0
}

configure() {
  local dir=$1
  shift
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$cxx" \
    -DKUEUEPP_BUILD_BENCH=OFF -DKUEUEPP_WERROR=ON "$@" >/dev/null
}

configure_asan() {
  configure build-asan -DKUEUEPP_SANITIZE=address,undefined -DKUEUEPP_FUZZ=ON -DKUEUEPP_FUZZ_SMOKE_SECONDS="$fuzz_seconds"
}

# The gtest programs the CMakeLists.txt files under tests/<dir> define (the crash test
# left out: it needs the kueuepp binary).
test_targets() {
  local d
  for d in "$@"; do
    find "tests/$d" -name CMakeLists.txt -exec sed -n 's/^kueuepp_add_test(\([A-Za-z0-9_]*\).*/\1/p' {} +
  done | grep -vx apiserver_crash_tests | sort -u
}

# ctest in a directory of the build tree runs the tests that directory (and those below
# it) defines.
ctest_dirs() {
  local build=$1 dirs=$2 status=0 d
  for d in $dirs; do
    ctest --test-dir "$build/tests/$d" --output-on-failure -j "$jobs" --timeout 600 -E "$exclude" || status=1
  done
  return $status
}

# ASan: abort at the first error (halt_on_error is its default), leaks checked at exit;
# UBSan: a stack for each report (the build already makes every report fatal).
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:check_initialization_order=1:log_path=$root/build-asan/reports/asan"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:abort_on_error=1:log_path=$root/build-asan/reports/ubsan"
export TSAN_OPTIONS="halt_on_error=1:abort_on_error=1:second_deadlock_stack=1:log_path=$root/build-tsan/reports/tsan"

for stage in "${stages[@]}"; do
  start=$(date +%s)
  case "$stage" in
    fuzz)
      configure_asan
      cmake --build build-asan -j "$jobs" --target fuzzers
      summary+=("fuzz build: $(since "$start") s")
      start=$(date +%s)
      run_checked fuzz build-asan/reports ctest --test-dir build-asan/fuzz --output-on-failure -j "$jobs" -L fuzz
      summary+=("fuzz run: $(since "$start") s")
      ;;
    asan)
      configure_asan
      mapfile -t targets < <(test_targets $asan_dirs)
      cmake --build build-asan -j "$jobs" --target "${targets[@]}"
      summary+=("asan build: $(since "$start") s")
      start=$(date +%s)
      run_checked asan build-asan/reports ctest_dirs build-asan "$asan_dirs"
      summary+=("asan run: $(since "$start") s")
      ;;
    asan-all)
      configure_asan
      cmake --build build-asan -j "$jobs"
      summary+=("asan-all build: $(since "$start") s")
      start=$(date +%s)
      run_checked asan-all build-asan/reports bash -c '
        status=0
        ctest --test-dir build-asan --output-on-failure -j "$1" --timeout 1800 || status=1
        build-asan/kueuepp scenario tests/scenarios >/dev/null || status=1
        exit $status' _ "$jobs"
      summary+=("asan-all run: $(since "$start") s")
      ;;
    tsan)
      configure build-tsan -DKUEUEPP_SANITIZE=thread
      mapfile -t targets < <(test_targets $tsan_dirs)
      cmake --build build-tsan -j "$jobs" --target "${targets[@]}"
      summary+=("tsan build: $(since "$start") s")
      start=$(date +%s)
      run_checked tsan build-tsan/reports ctest_dirs build-tsan "$tsan_dirs"
      summary+=("tsan run: $(since "$start") s")
      ;;
    *)
      echo "unknown stage: $stage (fuzz, asan, tsan or asan-all)" >&2
      exit 2
      ;;
  esac
done

printf '%s\n' "${summary[@]}"
if [ "$failed" -ne 0 ]; then
  echo "sanitizers: FAILED" >&2
  exit 1
fi
echo "sanitizers: no reports"
