#!/usr/bin/env bash
# The scripted soak set: scenario × strategy pairs with their limits and expected verdicts.
#   tools/soak.sh --quick   short profile (a few minutes; CI runs it after the tests)
#   tools/soak.sh           long profile for manual or overnight runs (about 2 hours)
# RETENTION=PATH uses a binary already built (otherwise `swift build -c release` makes one).
# Results (CSV per soak and the verdicts) go to ${SOAK_OUT:-soak-results}/;
# `tools/plot.py CSV -o PLOT.png` draws any of the CSVs. Exit 1 if any soak's exit status
# differs from what is expected of it (retention soak: 0 pass, 1 growth, 2 failed run,
# 3 inconclusive).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
profile=long
[ "${1:-}" = "--quick" ] && profile=quick
out=${SOAK_OUT:-$root/soak-results}
mkdir -p "$out"
if [ -n "${RETENTION:-}" ]; then
  bin=$RETENTION
  [ -x "$bin" ] || { echo "tools/soak.sh: RETENTION=$bin is not an executable" >&2; exit 2; }
else
  swift build -c release --product retention >/dev/null
  bin=$root/.build/release/retention
fi

# name | scenario | strategy | quick limit | long limit | max growth | expected exit (0 pass, 1 growth)
# slow-leak: one new row per iteration whose image stays allocated (about 1 MB per iteration,
# under the 16 MB total over 6 iterations): the rate rule must catch it.
# growing-feed: rows keep 4 KB of state each, 30 more rows per 5.5 s of use (about 80 MB per
# hour of use): it must fail, naming rowStateBytes, although its images stay within the LRU.
# async-grid-release: decode workers' glibc arenas keep tens of MB of freed bitmaps; retained
# memory (the verdict's measure) stays flat, so it must pass. A pass needs 5 measured
# iterations, so no limit below that expects 0. Its retained memory can step once by about
# 130 KB (the allocator's bookkeeping) inside six iterations, which leaves that short a run
# INCONCLUSIVE: the quick profile runs it --until-verdict (it decides in 6 to 15 iterations).
set_list() {
  cat <<'LIST'
lru-default|assets/scenarios/default.json|decoded-lru|--iterations 6|--duration 30m|16MB|0
release-default|assets/scenarios/default.json|decoded-release|--iterations 6|--duration 20m|16MB|0
thumbnail-default|assets/scenarios/default.json|thumbnail-lru|--iterations 6|--duration 20m|16MB|0
lru-feed|assets/scenarios/soak-infinite-feed.json|decoded-lru|--iterations 10|--duration 30m|16MB|0
growing-feed|assets/scenarios/soak-growing-feed.json|decoded-lru|--iterations 12|--duration 20m|16MB|1
image-state-feed|assets/scenarios/soak-infinite-feed.json|swiftui-image-state|--iterations 4|--iterations 20|16MB|1
slow-leak|assets/scenarios/soak-slow-leak.json|swiftui-image-state|--iterations 6|--iterations 60|16MB|1
async-grid-release|assets/scenarios/soak-async-grid.json|decoded-release|--iterations 30 --until-verdict|--duration 20m|16MB|0
cycle-lru|assets/scenarios/soak-cycle.json|decoded-lru|--iterations 6|--duration 20m|16MB|0
LIST
}

failed=0
start=$(date +%s)
while IFS='|' read -r name scenario strategy quick long growth expected; do
  limit=$quick
  [ "$profile" = long ] && limit=$long
  set +e
  # shellcheck disable=SC2086
  "$bin" soak "$scenario" --strategy "$strategy" $limit --max-growth "$growth" --export-csv "$out/$name.csv" > "$out/$name.txt" 2> "$out/$name.err"
  status=$?
  set -e
  verdict=$(grep '^verdict:' "$out/$name.txt" || echo "verdict: (none)")
  slope=$(grep '^retained memory slope' "$out/$name.txt" || true)
  if [ "$status" = "$expected" ]; then mark=ok; else mark=UNEXPECTED; failed=1; fi
  printf '%-18s %-22s exit %s (expected %s) %-11s %s | %s\n' "$name" "$strategy" "$status" "$expected" "$mark" "$verdict" "$slope"
  if [ "$mark" = UNEXPECTED ]; then
    # The evidence, for a log that is all one gets from CI: every line of the verdict and the
    # per-iteration memory columns.
    sed 's/^/    /' "$out/$name.txt" "$out/$name.err"
    cut -d, -f1-7,11,12 "$out/$name.csv" 2>/dev/null | sed 's/^/    /' || true
  fi
done < <(set_list)
echo "soak set ($profile): $(( $(date +%s) - start )) s, results in $out"
exit $failed
