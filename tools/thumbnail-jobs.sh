#!/usr/bin/env bash
# thumbnail-jobs.sh [DIR]: what a second thumbnail worker buys. Runs `retention thumbnail DIR --size 256`
# with --jobs 1 and --jobs 2, ROUNDS times each (default 11), alternating which goes first (ABBA),
# after one untimed run of each (page cache). Wall time is measured around each process
# (EPOCHREALTIME), peak resident memory is `Maximum resident set size` from /usr/bin/time -v.
# Prints a markdown table: median wall, the median of the paired ratios to --jobs 1 with its
# min–max, and median peak RSS. DIR defaults to assets/images (22 files, 600x400 and 1200x900).
# Environment: RETENTION (the binary; default .build/release/retention, built if missing), ROUNDS.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/assets/images}
rounds=${ROUNDS:-11}
bin=${RETENTION:-$root/.build/release/retention}
[ -x "$bin" ] || (cd "$root" && swift build -c release --product retention >/dev/null)
[ -x /usr/bin/time ] || { echo "thumbnail-jobs: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() {  # run JOBS ROUND: one process; appends "jobs round wall_s rss_kb"
  local start end rss
  start=$EPOCHREALTIME
  /usr/bin/time -v "$bin" thumbnail "$dir" --size 256 -o "$work/out$1" --jobs "$1" >/dev/null 2>"$work/time.txt"
  end=$EPOCHREALTIME
  rss=$(awk -F: '/Maximum resident set size/ { gsub(/ /, "", $2); print $2 }' "$work/time.txt")
  [ "$2" = warm ] || echo "$1 $2 $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.4f", b - a }') $rss" >> "$work/runs.txt"
}
run 1 warm; run 2 warm
for round in $(seq 1 "$rounds"); do
  if [ $((round % 2)) -eq 1 ]; then run 1 "$round"; run 2 "$round"; else run 2 "$round"; run 1 "$round"; fi
done
python3 - "$work/runs.txt" "$rounds" <<'PY'
import statistics, sys
runs = [line.split() for line in open(sys.argv[1])]
wall = {(j, r): float(w) for j, r, w, _ in runs}
rss = {(j, r): int(k) for j, r, _, k in runs}
rounds = sorted({r for _, r, _, _ in runs}, key=int)
print("| `--jobs` | median wall (s) | vs `--jobs 1` (median of paired ratios, min–max) | median peak RSS (MB) |")
print("|---:|---:|---:|---:|")
for jobs in ("1", "2"):
    walls = [wall[(jobs, r)] for r in rounds]
    ratios = [wall[(jobs, r)] / wall[("1", r)] for r in rounds]
    peak = statistics.median(rss[(jobs, r)] for r in rounds) / 1000 * 1.024
    print(f"| {jobs} | {statistics.median(walls):.3f} | {statistics.median(ratios):.2f}x ({min(ratios):.2f}–{max(ratios):.2f}) | {peak:.1f} |")

PY
