#!/usr/bin/env bash
# Paired benchmark: does `retention compare --jobs N` measure what `--jobs 1` does, and how much
# sooner? Runs the comparison ROUNDS times (default 5) each way, alternating which goes first,
# every run priced with one cost table measured once. Prints, per strategy, the medians over
# rounds of each summary figure for both settings and whether they agree within the tolerance
# (decodes and placeholder frames exactly; peak and after-destroy resident within 1 MB; hitches
# within the larger spread across repeats), then the wall-time ratio jobs-N / jobs-1: the
# median of the per-round ratios with its min–max.
#   tools/jobs-benchmark.sh [SCENARIO]     (ROUNDS, JOBS=2, RETENTION to override)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
scenario=${1:-$root/assets/scenarios/default.json}
rounds=${ROUNDS:-5}
jobs=${JOBS:-2}
bin=${RETENTION:-$root/.build/release/retention}
[ -x "$bin" ] || (cd "$root" && swift build -c release --product retention >/dev/null)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bin" costs "$scenario" -o "$work/costs.json" 2>/dev/null
run() {  # run NAME JOBS ROUND
  local start end
  start=$EPOCHREALTIME
  "$bin" compare "$scenario" --costs "$work/costs.json" --jobs "$2" --export-json "$work/$1-$3.json" >/dev/null 2>&1
  end=$EPOCHREALTIME
  echo "$1 $3 $start $end" >> "$work/wall.txt"
}
for round in $(seq 1 "$rounds"); do
  if [ $((round % 2)) -eq 1 ]; then run serial 1 "$round"; run parallel "$jobs" "$round"
  else run parallel "$jobs" "$round"; run serial 1 "$round"; fi
  echo "jobs-benchmark: round $round of $rounds done" >&2
done
python3 - "$work" "$rounds" "$jobs" <<'PY'
import json, statistics, sys
work, rounds, jobs = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def rows(name):
    out = {}
    for r in range(1, rounds + 1):
        for row in json.load(open(f"{work}/{name}-{r}.json"))["summary"]["rows"]:
            out.setdefault(row["strategy"], []).append(row)
    return out
serial, parallel = rows("serial"), rows("parallel")
fields = [("peakBytes", 1_000_000), ("afterDestroyBytes", 1_000_000), ("decodes", 0), ("placeholderFrames", 0), ("hitches", None)]
print(f"| strategy | figure | --jobs 1 | --jobs {jobs} | agree |")
print("|---|---|---|---|---|")
ok = True
for strategy in serial:
    for field, tolerance in fields:
        a = statistics.median(r[field] for r in serial[strategy]); b = statistics.median(r[field] for r in parallel[strategy])
        if tolerance is None:
            tolerance = max(max(r["hitchesSpread"][1] - r["hitchesSpread"][0] for r in serial[strategy] + parallel[strategy]), 1)
        agree = abs(a - b) <= tolerance
        ok &= agree
        fmt = (lambda v: f"{v/1e6:.1f} MB") if field.endswith("Bytes") else (lambda v: f"{v:g}")
        print(f"| {strategy} | {field} | {fmt(a)} | {fmt(b)} | {'yes' if agree else 'NO'} |")
wall = {}
for line in open(f"{work}/wall.txt"):
    name, r, start, end = line.split(); wall.setdefault(int(r), {})[name] = float(end) - float(start)
ratios = sorted(w["parallel"] / w["serial"] for w in wall.values())
print(f"\nwall time --jobs {jobs} / --jobs 1: median {statistics.median(ratios):.2f} (min {ratios[0]:.2f}, max {ratios[-1]:.2f}) over {rounds} paired rounds;"
      f" --jobs 1 median {statistics.median(w['serial'] for w in wall.values()):.1f} s")
print("every figure agrees within tolerance" if ok else "SOME FIGURES DIFFER BEYOND TOLERANCE")
sys.exit(0 if ok else 1)
PY
