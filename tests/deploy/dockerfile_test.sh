#!/usr/bin/env bash
# deploy/Dockerfile's runtime stage installs every shared library the kueuepp binary
# needs: each library `ldd` lists is mapped to its Debian package (`dpkg -S`), and that
# package must be named in the last stage's apt-get install. The build stage must be
# Debian 12 (bookworm, as this machine) so that the packages are the same.
#
# usage: dockerfile_test.sh KUEUEPP_BINARY   (exit 77: skipped without ldd or dpkg)
set -euo pipefail
bin=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
dockerfile=$src/deploy/Dockerfile
if ! command -v ldd >/dev/null || ! command -v dpkg >/dev/null; then
  echo "skipped: needs ldd and dpkg"
  exit 77
fi
fail() {
  echo "FAIL: $*"
  exit 1
}
[ -f "$dockerfile" ] || fail "$dockerfile is missing"

# The stages: a bookworm build stage, a bookworm-slim runtime stage.
froms=$(grep -E '^FROM ' "$dockerfile")
[ "$(wc -l <<<"$froms")" -eq 2 ] || fail "expected two stages, got: $froms"
grep -Eq '^FROM debian:bookworm AS ' <<<"$froms" || fail "the build stage is not debian:bookworm: $froms"
[ "$(tail -n 1 <<<"$froms")" = "FROM debian:bookworm-slim" ] || fail "the runtime stage is not debian:bookworm-slim"
# Both builders leave out build trees and .git: BuildKit reads deploy/Dockerfile.dockerignore,
# the classic builder only the root .dockerignore, which must say the same.
cmp -s "$src/.dockerignore" "$src/deploy/Dockerfile.dockerignore" \
  || fail ".dockerignore and deploy/Dockerfile.dockerignore differ (the classic builder reads only .dockerignore)"
# The build stage configures a fresh build/ all the same: a context sent without the ignore
# files brings the host's build/, and CMake refuses its cache (another source directory).
build_stage=$(awk '/^FROM /{stage++} stage == 1' "$dockerfile" | sed -e ':a' -e '/\\$/N; s/\\\n//; ta')
grep -Eq 'rm -rf build +&& +scripts/build\.sh' <<<"$build_stage" \
  || fail "the build stage does not remove build/ before scripts/build.sh"
if [ -r /etc/os-release ] && ! grep -q 'VERSION_CODENAME=bookworm' /etc/os-release; then
  echo "skipped: this machine is not Debian 12, its packages need not be the image's"
  exit 77
fi

# The runtime stage's packages: the words after `apt-get install` (continuation lines
# joined), options and shell operators left out.
runtime=$(awk '/^FROM /{stage++} stage == 2' "$dockerfile" | sed -e ':a' -e '/\\$/N; s/\\\n//; ta')
packages=$(grep -o 'apt-get install[^&;]*' <<<"$runtime" | tr ' ' '\n' | grep -Ev '^(apt-get|install|-.*|)$' | sort -u)
[ -n "$packages" ] || fail "no apt-get install in the runtime stage"
echo "runtime packages: $(paste -sd' ' <<<"$packages")"

# Every library the binary loads, and the package that provides it.
owner() {
  local path=$1 candidate
  for candidate in "$path" "$(readlink -f "$path")" "${path/#\/lib\//\/usr\/lib\/}" "${path/#\/usr\/lib\//\/lib\/}"; do
    if out=$(dpkg -S "$candidate" 2>/dev/null); then
      cut -d: -f1 <<<"$out" | head -n 1
      return 0
    fi
  done
  return 1
}
libs=$(ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\/.*ld-linux/ {print $1}')
[ -n "$libs" ] || fail "ldd lists no libraries for $bin"
missing=()
for lib in $libs; do
  pkg=$(owner "$lib") || fail "no Debian package provides $lib"
  if grep -qx "$pkg" <<<"$packages"; then
    echo "ok - $(basename "$lib"): $pkg"
  else
    echo "not ok - $(basename "$lib"): $pkg is not installed by the runtime stage"
    missing+=("$pkg")
  fi
done
[ ${#missing[@]} -eq 0 ] || fail "add to the runtime stage of deploy/Dockerfile: $(printf '%s\n' "${missing[@]}" | sort -u | paste -sd' ')"

# The image runs as the non-root user the Deployment asks for.
grep -qx 'USER 65532:65532' <<<"$runtime" || fail "the runtime stage does not run as 65532"
grep -qx 'ENTRYPOINT \["/kueuepp"\]' <<<"$runtime" || fail "the entrypoint is not /kueuepp"
echo "PASS: every shared library of $(basename "$bin") comes from a package of the runtime stage"
