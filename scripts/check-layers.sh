#!/usr/bin/env bash
# Fails on an #include that goes against scripts/layers.txt, and on a test source (a
# .cpp or .sh under tests/) that no CMakeLists.txt under tests/ names.
set -euo pipefail
cd "$(dirname "$0")/.."

status=0

# -- includes against the layers --------------------------------------------------------
find core kube actors messages config cmd -name '*.[ch]pp' | sort | awk -v rules=scripts/layers.txt '
BEGIN {
  while ((getline line < rules) > 0) {
    sub(/#.*/, "", line)
    if (line !~ /:/) continue
    mod = line; sub(/:.*/, "", mod); gsub(/[ \t]/, "", mod)
    deps = line; sub(/^[^:]*:/, "", deps)
    modules[++n] = mod
    allowed[mod] = " " mod " " deps " "
  }
}
function module_of(path,    i, best) {
  best = ""
  for (i = 1; i <= n; i++) {
    if ((index(path, modules[i] "/") == 1 || path == modules[i]) && length(modules[i]) > length(best)) best = modules[i]
  }
  return best
}
{
  file = $0
  from = module_of(file)
  if (from == "") { printf "%s: in no module of %s\n", file, rules; bad = 1; next }
  while ((getline text < file) > 0) {
    if (text !~ /^#include "/) continue
    inc = text; sub(/^#include "/, "", inc); sub(/".*/, "", inc)
    to = module_of(inc)
    if (to == "" || allowed[from] ~ / \* /) continue
    if (index(allowed[from], " " to " ") == 0) {
      printf "%s includes %s: %s may include only%s(%s)\n", file, inc, from, allowed[from], rules
      bad = 1
    }
  }
  close(file)
}
END { exit bad }
' || status=1

# -- every test source is built ---------------------------------------------------------
# A source counts as named when its file name (or, for an e2e script, the stem that the
# e2e list names, `borrowing:150` for tests/e2e/borrowing_test.sh) is a word of some
# CMakeLists.txt under tests/.
find tests -name CMakeLists.txt -exec cat {} + | tr -s ' \t()":' '\n' | awk -F/ '{print $NF}' | sort -u >"${TMPDIR:-/tmp}/layers.named.$$"
unnamed=$(find tests -name '*.cpp' -o -name '*_test.sh' | sort | awk -v named="${TMPDIR:-/tmp}/layers.named.$$" '
  BEGIN { while ((getline w < named) > 0) have[w] = 1 }
  {
    n = split($0, parts, "/"); name = parts[n]; stem = name; sub(/_test\.sh$/, "", stem)
    if (!(name in have) && !(stem != name && stem in have)) print $0
  }')
rm -f "${TMPDIR:-/tmp}/layers.named.$$"
if [ -n "$unnamed" ]; then
  while IFS= read -r src; do
    echo "$src: no CMakeLists.txt under tests/ names it (it would never be built or run)"
  done <<<"$unnamed"
  status=1
fi

if [ "$status" -eq 0 ]; then echo "layers: every include follows scripts/layers.txt; every test source is built"; fi
exit "$status"
