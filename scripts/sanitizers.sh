#!/usr/bin/env bash
# The sanitizer suites (locally and from CI). Exits non-zero on a failing test and on any
# sanitizer report, including one from a process whose exit status no test looks at (a
# server a test script started and stopped): every report is written to a file, and any
# such file fails the run.
#
#   scripts/sanitizers.sh [asan] [tsan] [fuzz]     (default: asan tsan)
#
#   asan  AddressSanitizer + UndefinedBehaviorSanitizer (and LeakSanitizer) on the whole
#         test suite and the admission scenarios, in build-asan/. That build also holds
#         the libFuzzer targets (KUEUEPP_FUZZ): their smoke tests run with the others.
#   tsan  ThreadSanitizer on the actor, client and API server tests, in build-tsan/.
#   fuzz  Only the fuzz targets and their smoke tests, in build-asan/ (a quick check).
#
# Environment: SANITIZER_JOBS (build and ctest parallelism, default nproc),
# FUZZ_SMOKE_SECONDS (each fuzz target's ctest run, default 10), TSAN_TEST_DIRS (the test
# directories run under TSan, default the three above), CXX (default clang++-14: the
# sanitizer builds use clang, which compiles this code about three times faster than GCC
# and is the fuzzers' compiler anyway).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

scripts/install-deps.sh
jobs=${SANITIZER_JOBS:-$(nproc 2>/dev/null || echo 2)}
cxx=${CXX:-clang++-14}
smoke=${FUZZ_SMOKE_SECONDS:-10}
tsan_dirs=${TSAN_TEST_DIRS:-"tests/actors tests/kube/client tests/kube/apiserver/server"}
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(asan tsan)

summary=()
failed=0
# seconds since $1 (a `date +%s`)
since() { echo $(($(date +%s) - $1)); }

# Runs "$@" with the sanitizers' reports going to files under $reports; fails the stage
# (not the script, which goes on to the next stage) when the command fails or when any
# report was written.
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
    -DKUEUEPP_BUILD_BENCH=OFF -DKUEUEPP_WERROR=OFF "$@" >/dev/null
}

# ASan: abort at the first error (halt_on_error is its default), with leaks checked at
# exit; UBSan: a stack for each report (the build already makes every report fatal).
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:check_initialization_order=1:log_path=$root/build-asan/reports/asan"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:abort_on_error=1:log_path=$root/build-asan/reports/ubsan"
export LSAN_OPTIONS="print_suppressions=0"
export TSAN_OPTIONS="halt_on_error=1:abort_on_error=1:second_deadlock_stack=1:log_path=$root/build-tsan/reports/tsan"

for stage in "${stages[@]}"; do
  case "$stage" in
    asan|fuzz)
      start=$(date +%s)
      configure build-asan -DKUEUEPP_SANITIZE=address,undefined -DKUEUEPP_FUZZ=ON \
        -DKUEUEPP_FUZZ_SMOKE_SECONDS="$smoke"
      if [ "$stage" = fuzz ]; then
        cmake --build build-asan -j "$jobs" --target fuzzers
      else
        cmake --build build-asan -j "$jobs"
      fi
      summary+=("$stage build: $(since "$start") s")
      start=$(date +%s)
      if [ "$stage" = fuzz ]; then
        run_checked fuzz build-asan/reports ctest --test-dir build-asan --output-on-failure -L fuzz --timeout 600
      else
        # Tests first, then the admission scenarios (what scripts/test.sh replays).
        run_checked asan build-asan/reports bash -c '
          status=0
          ctest --test-dir build-asan --output-on-failure -j "$1" --timeout 1800 || status=1
          build-asan/kueuepp scenario tests/scenarios >/dev/null || status=1
          exit $status' _ "$jobs"
      fi
      summary+=("$stage run: $(since "$start") s")
      ;;
    tsan)
      start=$(date +%s)
      configure build-tsan -DKUEUEPP_SANITIZE=thread
      # The test programs of those directories, and the binary the server's kubectl tests run.
      targets=(kueuepp)
      for d in $tsan_dirs; do
        while IFS= read -r t; do targets+=("$t"); done < <(sed -n 's/^kueuepp_add_test(\([A-Za-z0-9_]*\).*/\1/p' "$d/CMakeLists.txt")
      done
      cmake --build build-tsan -j "$jobs" --target "${targets[@]}"
      summary+=("tsan build: $(since "$start") s")
      start=$(date +%s)
      # ctest in a directory of the build tree runs the tests that directory defines.
      run_checked tsan build-tsan/reports bash -c '
        status=0
        for d in $2; do ctest --test-dir "build-tsan/$d" --output-on-failure -j "$1" --timeout 1800 || status=1; done
        exit $status' _ "$jobs" "$tsan_dirs"
      summary+=("tsan run: $(since "$start") s")
      ;;
    *)
      echo "unknown stage: $stage (asan, tsan or fuzz)" >&2
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
