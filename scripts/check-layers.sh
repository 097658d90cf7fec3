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
# (The e2e list names scripts by stem: `borrowing:150` is tests/e2e/borrowing_test.sh.)
listed=$(find tests -name CMakeLists.txt -exec cat {} + | tr -s ' \t()":' '\n')
while IFS= read -r src; do
  name=$(basename "$src")
  stem=${name%_test.sh}
  if ! grep -qxF -- "$name" <<<"$listed" && ! grep -qF -- "/$name" <<<"$listed" &&
     ! { [ "$stem" != "$name" ] && grep -qxF -- "$stem" <<<"$listed"; }; then
    echo "$src: no CMakeLists.txt under tests/ names it (it would never be built or run)"
    status=1
  fi
done < <(find tests -name '*.cpp' -o -name '*_test.sh' | sort)

if [ "$status" -eq 0 ]; then echo "layers: every include follows scripts/layers.txt; every test source is built"; fi
exit "$status"
