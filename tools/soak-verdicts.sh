#!/usr/bin/env bash
# How long a CI gate waits for each soak verdict: `retention soak --until-verdict --iterations 60`
# on shipped scenarios, FAIL for the growing feed (rows keeping 4 KB each) and for a 1 MB-per-
# iteration leak, PASS for bounded strategies. Prints, per soak, the verdict and exit status,
# the measured iterations it took (after 2 warm-up), the modelled use they stand for, and the
# wall seconds of the whole process (median of ROUNDS runs, min-max when they differ).
# Usage: ROUNDS=3 tools/soak-verdicts.sh   (RETENTION=PATH uses a binary already built)
# Exit 1 when a soak's exit status is not the expected one (the table is still printed).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
rounds=${ROUNDS:-3}
if [ -n "${RETENTION:-}" ]; then
  bin=$RETENTION
else
  swift build -c release --product retention >/dev/null
  bin=$root/.build/release/retention
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# scenario | strategy | expected exit
cases() {
  cat <<'LIST'
soak-growing-feed.json|decoded-lru|1
soak-slow-leak.json|swiftui-image-state|1
default.json|decoded-lru|0
default.json|thumbnail-lru|0
soak-async-grid.json|decoded-release|0
LIST
}

printf '%-24s %-20s %-14s %-5s %-9s %-15s %s\n' scenario strategy verdict exit measured "modelled use" "wall s (median of $rounds)"
unexpected=0
while IFS='|' read -r scenario strategy expected; do
  walls=()
  measured=()
  for _ in $(seq "$rounds"); do
    start=$(date +%s.%N)
    set +e
    "$bin" soak "assets/scenarios/$scenario" --strategy "$strategy" --iterations 60 --until-verdict > "$work/out" 2>/dev/null
    status=$?
    set -e
    end=$(date +%s.%N)
    walls+=("$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')")
    measured+=("$(awk '/^time: / { print $2 }' "$work/out")")
    [ "$status" = "$expected" ] || unexpected=1
  done
  verdict=$(sed -n 's/^verdict: //p' "$work/out")
  use=$(sed -n 's/^time: [0-9]* measured iterations\{0,1\}, \([0-9.]* s\) of modelled use.*/\1/p' "$work/out")
  wall=$(printf '%s\n' "${walls[@]}" | sort -n | awk '{ v[NR] = $1 } END { m = v[int((NR + 1) / 2)]; printf (v[1] == v[NR] ? "%s" : "%s (%s-%s)"), m, v[1], v[NR] }')
  iterations=$(printf '%s\n' "${measured[@]}" | sort -n | awk '{ v[NR] = $1 } END { printf (v[1] == v[NR] ? "%s" : "%s-%s"), v[1], v[NR] }')
  printf '%-24s %-20s %-14s %-5s %-9s %-15s %s\n' "${scenario%.json}" "$strategy" "$verdict" "$status" "$iterations" "$use" "$wall"
done < <(cases)
exit $unexpected
