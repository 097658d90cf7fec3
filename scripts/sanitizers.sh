#!/usr/bin/env bash
# The sanitizer and fuzzing stages (locally, and from CI after scripts/test.sh). Fails on
# a failing test and on any sanitizer report, including one from a process whose exit
# status no test looks at: every report is written to a file, and any such file fails
# the stage.
#
#   scripts/sanitizers.sh [fuzz] [asan] [asan=DIR,DIR...] [tsan] [tsan=DIR,DIR...] [asan-all]
#                                                        (default: fuzz asan)
#
#   fuzz      builds the libFuzzer targets (fuzz/) in build-asan/ and runs each over its
#             seed corpus for a fixed number of inputs (times FUZZ_SCALE) with a fixed
#             seed, so every machine runs the same inputs (ctest -L fuzz).
#   asan      AddressSanitizer + UndefinedBehaviorSanitizer (and LeakSanitizer) on the unit
#             tests of ASAN_TEST_DIRS (asan=DIR,...: of those directories), one directory
#             at a time (built, then run), in the same build-asan/ (its libraries are the
#             fuzzers' ones, so the two stages share one build).
#   tsan      ThreadSanitizer on the tests of TSAN_TEST_DIRS (tsan=DIR,...: of those
#             directories; default the client, the actors, the API server's server), one
#             directory at a time, in build-tsan/ (it shares no object with build-asan/: a
#             cold machine compiles their libraries again; docs/performance.md has the
#             durations). Debian's CAF is not instrumented: the programs that link it get
#             the happens-before edges CAF makes (actors/sanitizer/caf_happens_before.cpp).
#   asan-all  the whole ctest suite and the admission scenarios under ASan + UBSan (builds
#             everything, the kueuepp binary included; a local check: its build and its
#             11 minutes of tests do not fit in CI beside the rest).
#
# A time budget: with SANITIZER_DEADLINE (seconds since the epoch; CI sets it so that the
# whole run ends inside its limit), a stage or directory that would start with less than
# SANITIZER_MIN_SECONDS (600) left is skipped, and one still running at the deadline is
# stopped; both are said in the summary ("not run: time"), and neither fails the run:
# what did run passed or failed on its own.
#
# Reports from third-party code that are not findings of ours are left out at compile
# time, each by name and with its reason, in scripts/sanitizer-ignorelist.txt (UBSan's
# runtime suppressions cannot silence the fatal checks this build makes).
#
# Environment: SANITIZER_JOBS (build and ctest parallelism, default nproc), FUZZ_SCALE
# (default 1), ASAN_TEST_DIRS, TSAN_TEST_DIRS (directories under tests/), CXX (default
# clang++-14: libFuzzer's compiler; it also compiles this code faster than GCC).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

jobs=${SANITIZER_JOBS:-$(nproc 2>/dev/null || echo 2)}
cxx=${CXX:-clang++-14}
fuzz_scale=${FUZZ_SCALE:-1}
asan_dirs=${ASAN_TEST_DIRS:-"core config kube actors"}
tsan_dirs=${TSAN_TEST_DIRS:-"kube/client actors kube/apiserver/server"}
# Tests these stages do not run: the kubectl scripts, the crash test and the error traces'
# replay start the kueuepp binary (which only asan-all builds); the first two are also
# timing-bound.
exclude='^(kube\.server\.kubectl_|apiserver_crash_tests|kube\.conformance\.error_traces$)'
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(fuzz asan)

scripts/install-deps.sh

summary=()
failed=0
since() { echo $(($(date +%s) - $1)); }
deadline=${SANITIZER_DEADLINE:-}
min_seconds=${SANITIZER_MIN_SECONDS:-600}
# Seconds left before the deadline (a large number without one).
left() { if [ -n "$deadline" ]; then echo $((deadline - $(date +%s))); else echo 999999; fi; }
# Whether NAME may start; says so in the summary when it may not.
may_start() {
  if [ "$(left)" -lt "$min_seconds" ]; then
    summary+=("$1: not run: time ($(left) s left of the budget)")
    echo "== $1: not run: $(left) s left of the time budget" >&2
    return 1
  fi
}
# Runs "$@" within the time left (a command stopped at the deadline exits 124).
in_budget() { timeout --kill-after=30 "$(($(left) > 0 ? $(left) : 1))" "$@"; }

# Runs "$@" with the sanitizers' reports going to files under $reports; fails the stage
# (the script goes on to the next stage) when the command fails or any report was written.
run_checked() {
  local name=$1 reports=$2
  shift 2
  rm -rf "$reports"
  mkdir -p "$reports"
  local status=0
  in_budget bash -c "$(declare -f ctest_dir); jobs=$jobs; exclude='$exclude'; \"\$@\"" _ "$@" || status=$?
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    summary+=("$name: stopped at the time budget (what had finished passed)")
    echo "== $name: stopped at the time budget" >&2
    status=0
  fi
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
  configure build-asan -DKUEUEPP_SANITIZE=address,undefined -DKUEUEPP_FUZZ=ON -DKUEUEPP_FUZZ_SMOKE_SCALE="$fuzz_scale"
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
ctest_dir() { ctest --test-dir "$1/tests/$2" --output-on-failure -j "$jobs" --timeout 600 -E "$exclude"; }

# Builds and runs the gtest programs of each directory of DIRS (comma-separated) in BUILD,
# one directory at a time within the time budget; SANITIZER names them in the summary.
test_dirs() {
  local sanitizer=$1 build=$2 dirs=$3 dir start targets
  for dir in ${dirs//,/ }; do
    may_start "$sanitizer $dir" || continue
    start=$(date +%s)
    mapfile -t targets < <(test_targets "$dir")
    if [ ${#targets[@]} -gt 0 ] && ! in_budget cmake --build "$build" -j "$jobs" --target "${targets[@]}"; then
      [ "$(left)" -gt 0 ] || { summary+=("$sanitizer $dir: not run: time (its build was stopped at the budget)"); continue; }
      echo "== $sanitizer build of tests/$dir: FAILED" >&2
      exit 1
    fi
    summary+=("$sanitizer $dir build: $(since "$start") s")
    start=$(date +%s)
    run_checked "$sanitizer $dir" "$build/reports" ctest_dir "$build" "$dir"
    summary+=("$sanitizer $dir run: $(since "$start") s")
  done
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
      may_start fuzz || continue
      configure_asan
      if ! in_budget cmake --build build-asan -j "$jobs" --target fuzzers; then
        [ "$(left)" -gt 0 ] || { summary+=("fuzz: not run: time (its build was stopped at the budget)"); continue; }
        echo "== fuzz build: FAILED" >&2
        exit 1
      fi
      summary+=("fuzz build: $(since "$start") s")
      start=$(date +%s)
      run_checked fuzz build-asan/reports ctest --test-dir build-asan/fuzz --output-on-failure -j "$jobs" -L fuzz
      summary+=("fuzz run: $(since "$start") s")
      ;;
    asan | asan=*)
      dirs=$asan_dirs
      [ "$stage" = asan ] || dirs=${stage#asan=}
      configure_asan
      test_dirs asan build-asan "$dirs"
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
    tsan | tsan=*)
      dirs=$tsan_dirs
      [ "$stage" = tsan ] || dirs=${stage#tsan=}
      configure build-tsan -DKUEUEPP_SANITIZE=thread
      test_dirs tsan build-tsan "$dirs"
      ;;
    *)
      echo "unknown stage: $stage (fuzz, asan, asan=DIR,..., tsan, tsan=DIR,... or asan-all)" >&2
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
