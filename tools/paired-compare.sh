#!/usr/bin/env bash
# Paired benchmark: does a comparison measure the strategy, not how it is run or what else the
# host is doing? Runs `retention compare SCENARIO` ROUNDS times (default 5) each way, alternating
# which side goes first, and prints per strategy the medians over rounds of each figure on both
# sides and whether they agree.
#
#   tools/paired-compare.sh jobs [SCENARIO]
#       --jobs 1 against --jobs $JOBS (default 2), every run priced with one cost table measured
#       once. Agreement: decodes and placeholder frames exactly; peak and after-destroy resident
#       within 1 MB; hitches within the larger spread across repeats. Then the wall-time ratio
#       jobs-N / jobs-1: the median of the per-round ratios with its min-max.
#   tools/paired-compare.sh load [SCENARIO]
#       A quiet host against one running $HOGS (default 2) CPU-bound processes (`yes > /dev/null`),
#       each side a plain `retention compare` that measures its own cost table, as a user runs it.
#       Agreement: the same hitch and placeholder-frame medians per strategy, and the same ranking
#       lines ("lowest peak", "fewest hitches", with their figures left out, a tie as a set). The
#       quiet rounds are the control: a loaded median inside the range of the quiet rounds' own
#       figures, or a loaded ranking line that some quiet round printed, is a difference the
#       quiet host makes by itself, and is shown as such rather than blamed on the load.
#   tools/paired-compare.sh costs [SCENARIO]
#       Two runs priced with one cost table (`retention costs`, then `--costs` on both sides).
#       Agreement: identical decodes and placeholder frames per strategy, which is what the table
#       promises for async scenarios, whose loads it places on the virtual clock.
#
# SCENARIO defaults to assets/scenarios/default.json; RETENTION overrides the binary. Exit 0 when
# every figure agrees, 1 when one does not (the table says which), 2 on a usage error.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:-}
case $mode in
  jobs|load|costs) ;;
  *) echo "usage: tools/paired-compare.sh jobs|load|costs [SCENARIO]" >&2; exit 2 ;;
esac
scenario=${2:-$root/assets/scenarios/default.json}
rounds=${ROUNDS:-5}
jobs=${JOBS:-2}
hogs=${HOGS:-2}
bin=${RETENTION:-$root/.build/release/retention}
[ -x "$bin" ] || (cd "$root" && swift build -c release --product retention >/dev/null)
work=$(mktemp -d)
hog_pids=()
stop_hogs() { [ ${#hog_pids[@]} -eq 0 ] || kill "${hog_pids[@]}" 2>/dev/null || true; hog_pids=(); }
trap 'stop_hogs; rm -rf "$work"' EXIT
case $mode in
  jobs) sides=(serial parallel) ;;
  load) sides=(quiet loaded) ;;
  costs) sides=(first second) ;;
esac
[ "$mode" = load ] || "$bin" costs "$scenario" -o "$work/costs.json" 2>/dev/null

run() {  # run SIDE ROUND
  local -a extra=()
  case $1 in
    serial) extra=(--costs "$work/costs.json" --jobs 1) ;;
    parallel) extra=(--costs "$work/costs.json" --jobs "$jobs") ;;
    first|second) extra=(--costs "$work/costs.json") ;;
    loaded) for ((h = 0; h < hogs; h++)); do yes > /dev/null & hog_pids+=($!); done ;;
  esac
  local start=$EPOCHREALTIME
  "$bin" compare "$scenario" "${extra[@]}" --export-json "$work/$1-$2.json" > "$work/$1-$2.txt" 2>/dev/null \
    || { stop_hogs; echo "paired-compare: retention compare failed ($1, round $2)" >&2; exit 1; }
  local end=$EPOCHREALTIME
  stop_hogs
  echo "$1 $2 $start $end" >> "$work/wall.txt"
}
for round in $(seq 1 "$rounds"); do
  if [ $((round % 2)) -eq 1 ]; then run "${sides[0]}" "$round"; run "${sides[1]}" "$round"
  else run "${sides[1]}" "$round"; run "${sides[0]}" "$round"; fi
  echo "paired-compare: round $round of $rounds done" >&2
done
python3 - "$work" "$rounds" "$mode" "$jobs" "$hogs" "${sides[@]}" <<'PY'
import json, re, statistics, sys
work, rounds, mode, jobs, hogs, a_side, b_side = sys.argv[1], int(sys.argv[2]), *sys.argv[3:]
def rows(side):
    out = {}
    for r in range(1, rounds + 1):
        for row in json.load(open(f"{work}/{side}-{r}.json"))["summary"]["rows"]:
            out.setdefault(row["strategy"], []).append(row)
    return out
a, b = rows(a_side), rows(b_side)
names = {"serial": "--jobs 1", "parallel": f"--jobs {jobs}", "quiet": "quiet", "loaded": f"{hogs} CPU hogs",
         "first": "first run", "second": "second run"}
if mode == "jobs":
    fields = [("peakBytes", 1_000_000), ("afterDestroyBytes", 1_000_000), ("decodes", 0), ("placeholderFrames", 0), ("hitches", None)]
elif mode == "load":
    fields = [("hitches", 0), ("placeholderFrames", 0)]
else:
    fields = [("decodes", 0), ("placeholderFrames", 0)]
def counts(values):
    """`median (r1, r2, ...)`: the median over rounds, then each round's figure when they differ."""
    text = f"{statistics.median(values):g}"
    return text if len(set(values)) == 1 else f"{text} ({', '.join(f'{v:g}' for v in values)})"
print(f"| strategy | figure | {names[a_side]} | {names[b_side]} | agree |")
print("|---|---|---|---|---|")
ok = True
differing_rounds = 0
for strategy in a:
    for field, tolerance in fields:
        xs = [r[field] for r in a[strategy]]; ys = [r[field] for r in b[strategy]]
        x = statistics.median(xs); y = statistics.median(ys)
        if tolerance is None:
            tolerance = max(max(r["hitchesSpread"][1] - r["hitchesSpread"][0] for r in a[strategy] + b[strategy]), 1)
        if abs(x - y) <= tolerance:
            agree = "yes"
        elif mode == "load" and min(xs) <= y <= max(xs):
            # The quiet host's own rounds differ as much: the load did not make the difference.
            agree = "within the quiet rounds' own range"
        else:
            agree = "NO"
            ok = False
        if field.endswith("Bytes"):
            cells = (f"{x/1e6:.1f} MB", f"{y/1e6:.1f} MB")
        else:
            cells = (counts(xs), counts(ys))
        print(f"| {strategy} | {field} | {cells[0]} | {cells[1]} | {agree} |")
if mode == "load":
    def ranking(side, r):
        """The ranking lines without their figures; a tie as the set of its names."""
        out = []
        for line in open(f"{work}/{side}-{r}.txt"):
            if not line.startswith(("lowest peak:", "fewest hitches:", "fewest placeholder frames:")):
                continue
            line = re.sub(r"\s*\([^)]*\)", "", line).strip()
            tie = re.match(r"(.*?): a tie between (.*?), (?:within their spread across repeats|exactly equal.*)$", line)
            if tie:
                line = f"{tie.group(1)}: a tie between " + ", ".join(sorted(re.split(r", | and ", tie.group(2))))
            out.append(line)
        return " | ".join(out)
    print()
    quiet_lines = [ranking(a_side, r) for r in range(1, rounds + 1)]
    for r in range(1, rounds + 1):
        quiet, loaded = quiet_lines[r - 1], ranking(b_side, r)
        if loaded == quiet:
            print(f"round {r}: ranking lines the same: {quiet}")
        elif loaded in quiet_lines:
            print(f"round {r}: ranking lines differ as the quiet rounds differ among themselves: {quiet}  against  {loaded}")
        else:
            differing_rounds += 1
            print(f"round {r}: ranking lines DIFFER: {quiet}  against  {loaded}")
wall = {}
for line in open(f"{work}/wall.txt"):
    side, r, start, end = line.split(); wall.setdefault(int(r), {})[side] = float(end) - float(start)
ratios = sorted(w[b_side] / w[a_side] for w in wall.values())
print(f"\nwall time {names[b_side]} / {names[a_side]}: median {statistics.median(ratios):.2f} (min {ratios[0]:.2f}, max {ratios[-1]:.2f})"
      f" over {rounds} paired rounds; {names[a_side]} median {statistics.median(w[a_side] for w in wall.values()):.1f} s")
# The verdict says which part differs: the figures (rows marked NO) or the ranking lines.
if ok and differing_rounds == 0:
    print("every figure agrees within tolerance" + (" and so does every ranking line" if mode == "load" else ""))
elif ok:
    print(f"every figure agrees within tolerance; the ranking lines DIFFER in {differing_rounds} of {rounds} rounds beyond what the quiet rounds show among themselves (the round lines above)")
else:
    print("SOME FIGURES DIFFER BEYOND TOLERANCE (the rows marked NO)" + (f"; the ranking lines differ in {differing_rounds} of {rounds} rounds" if differing_rounds else ""))
sys.exit(0 if ok and differing_rounds == 0 else 1)
PY
