#!/usr/bin/env bash
# check-plots.sh: tools/plot.py draws each kind of export the tool writes. Runs a small
# scenario through `retention compare`, `retention sweep` and `retention soak`, each with
# --export-json and --export-csv, plots all six files (and a sweep over a condition and a
# knob × condition grid), and checks each PNG was written (a PNG
# signature and more than 10 KB). Also checks plot.py's command line: --help (with and without
# matplotlib), -o FILE writing exactly FILE, the deprecated positional OUT, and that bad input
# and usage errors end with their documented exit status and one `plot.py: ...` line on stderr.
# Installs matplotlib from tools/requirements.txt when missing. Uses .build/debug/retention
# (built when missing). Exit 0 when every check passed. KEEP_WORK=1 keeps the work folder.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
  export PATH=/opt/swift/usr/bin:$PATH
fi
python3 -c "import matplotlib" 2>/dev/null || pip install -q -r tools/requirements.txt
[ -x .build/debug/retention ] || swift build --product retention >/dev/null
R=$root/.build/debug/retention
work=$(mktemp -d)
trap '[ -n "${KEEP_WORK:-}" ] && echo "check-plots: kept $work" >&2 || rm -rf "$work"' EXIT
cat > "$work/s.json" <<JSON
{"name": "plots", "viewport": {"width": 390, "height": 844, "scale": 3}, "container": {"kind": "list", "prefetchRows": 1},
 "rows": {"count": 24, "height": 300}, "images": {"directory": "$root/assets/images", "pattern": "photo-600x400-*.png"},
 "script": [{"scroll": {"by": 4800, "frames": 40}}, {"checkpoint": {"name": "all-loaded"}}, {"scroll": {"by": -2400, "frames": 20}}, {"destroyContainer": {}}]}
JSON
"$R" costs "$work/s.json" -o "$work/costs.json" --strategies decoded-lru,thumbnail-lru >/dev/null 2>&1
"$R" compare "$work/s.json" --strategies decoded-release,decoded-lru --repeat 2 --costs "$work/costs.json" \
  --export-json "$work/compare.json" --export-csv "$work/compare.csv" >/dev/null 2>&1
"$R" sweep "$work/s.json" --strategies decoded-lru,thumbnail-lru --values 8MB,32MB --repeat 1 --costs "$work/costs.json" \
  --export-json "$work/sweep.json" --export-csv "$work/sweep.csv" >/dev/null 2>&1 || true  # exit 1 when no point meets the constraints
# More than 5 strategies: small multiples; a sweep with constraints: their lines and the wait panel.
"$R" compare "$work/s.json" --strategies decoded-release,decoded-lru,tiered,decoded-row-kept,thumbnail-lru,swiftui-data-state \
  --repeat 1 --costs "$work/costs.json" --export-json "$work/compare6.json" >/dev/null 2>&1
"$R" sweep "$work/s.json" --strategies decoded-lru,thumbnail-lru --values 8MB,16MB,32MB --repeat 1 --costs "$work/costs.json" \
  --max-placeholders 0 --max-wait-p95 5 --export-json "$work/sweep-limits.json" >/dev/null 2>&1 || true
# A condition's sweep (breaking points) and a knob × condition grid, on the scenario made async.
sed 's/"script":/"display": "async", "sourceLatencyMs": {"p50": 40, "p95": 120}, "fetchLimit": 3, "script":/' "$work/s.json" >"$work/async.json"
"$R" sweep "$work/async.json" --strategies decoded-lru,decoded-release --vary sourceLatencyMs.p95 --values 120ms,400ms,1600ms --repeat 1 \
  --costs "$work/costs.json" --max-placeholders 40 --export-json "$work/condition.json" >/dev/null 2>&1 || true
"$R" sweep "$work/async.json" --strategies decoded-lru,decoded-release --vary bitmapBudget,sourceLatencyMs.p95 --values 2MB,8MB \
  --values 120ms,800ms --repeat 1 --costs "$work/costs.json" --max-placeholders 40 --export-json "$work/grid.json" >/dev/null 2>&1 || true
# A grid over a slower device, whose values are factors (2x), not milliseconds or sizes.
"$R" sweep "$work/async.json" --strategies decoded-release --vary bitmapBudget,decodeSlowdown --values 2MB,8MB \
  --values 1x,32x --repeat 1 --costs "$work/costs.json" --max-placeholders 40 --export-json "$work/device.json" >/dev/null 2>&1 || true
"$R" soak "$work/s.json" --strategy decoded-lru --iterations 4 \
  --export-json "$work/soak.json" --export-csv "$work/soak.csv" >/dev/null 2>&1 || true  # exit 3 for a verdict too short to judge
status=0
for kind in compare sweep soak; do
  for format in json csv; do
    file="$work/$kind.$format"
    if [ ! -s "$file" ]; then echo "check-plots: $kind --export-$format wrote nothing" >&2; status=1; continue; fi
    if ! python3 tools/plot.py "$file" -o "$work/$kind-$format.png" >/dev/null; then
      echo "check-plots: tools/plot.py failed on a $kind $format export" >&2; status=1; continue
    fi
    png="$work/$kind-$format.png"
    if [ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" != "89504e470d0a1a0a" ] || [ "$(stat -c %s "$png")" -lt 10000 ]; then
      echo "check-plots: the $kind $format plot is not a drawn PNG" >&2; status=1; continue
    fi
    echo "check-plots: $kind $format: $(stat -c %s "$png") bytes"
  done
done
# What the compare plots hold: placeholder rows beside memory, the checkpoint marked, and small
# multiples past 5 strategies; the constrained sweep's plot is drawn too; the condition's plot
# marks breaking points and the grid's heat map boxes an answer per condition value.
for kind in compare compare6 sweep-limits condition grid device; do
  file="$work/$kind.json"
  if [ ! -s "$file" ]; then echo "check-plots: $kind --export-json wrote nothing" >&2; status=1; continue; fi
  said=$(python3 tools/plot.py "$file" --output "$work/$kind.png") || { echo "check-plots: tools/plot.py failed on $kind" >&2; status=1; continue; }
  echo "check-plots: $said"
  case $kind in
    compare) expected="2 strategies, placeholder rows per sample, 1 checkpoint marked" ;;
    compare6) expected="6 strategies as small multiples, placeholder rows per sample, 1 checkpoint marked" ;;
    condition) expected="2 strategies over 3 values of sourceLatencyMs.p95, [1-9]* breaking point* marked" ;;
    grid) expected="2 strategies, 2 × 2 grid, 8 cells measured, [12] answer* boxed" ;;   # the milder column always has one
    device) expected="1 strategy, 2 × 2 grid, 4 cells measured, [12] answer* boxed" ;;
    *) expected="" ;;
  esac
  if [ -n "$expected" ] && [[ "$said" != *": "$expected ]]; then
    echo "check-plots: expected the $kind plot to say '$expected'" >&2; status=1
  fi
done

# The command line. is_png FILE: a PNG signature and more than 10 KB.
is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] && [ "$(stat -c %s "$1")" -gt 10000 ]; }
if help=$(python3 tools/plot.py --help) && [[ "$help" == *--output* ]] && [[ "$help" == *"exit status"* ]]; then
  echo "check-plots: --help exits 0 and documents --output and the exit statuses"
else
  echo "check-plots: tools/plot.py --help failed or does not mention --output and the exit statuses" >&2; status=1
fi
# --help needs no matplotlib; drawing without it is one line and exit 3.
no_matplotlib() { python3 -c 'import runpy, sys; sys.modules["matplotlib"] = None; sys.argv = ["plot.py"] + sys.argv[1:]
runpy.run_path("tools/plot.py", run_name="__main__")' "$@"; }
if no_matplotlib --help | grep -q -- --output; then
  echo "check-plots: --help works without matplotlib"
else
  echo "check-plots: tools/plot.py --help fails without matplotlib" >&2; status=1
fi
# -o FILE writes exactly FILE, run from another folder: nothing else there (once, a file named
# -o.png), nothing beside the export; a FILE without an extension is still a PNG.
mkdir "$work/cwd" "$work/in"
cp "$work/compare.json" "$work/sweep.json" "$work/in/"
if (cd "$work/cwd" && python3 "$root/tools/plot.py" ../in/compare.json -o chosen.png >/dev/null &&
    python3 "$root/tools/plot.py" ../in/sweep.json -o plain >/dev/null) &&
   [ "$(ls -A "$work/cwd" | tr '\n' ' ')" = "chosen.png plain " ] && [ "$(ls -A "$work/in" | tr '\n' ' ')" = "compare.json sweep.json " ] &&
   is_png "$work/cwd/chosen.png" && is_png "$work/cwd/plain"; then
  echo "check-plots: -o FILE writes exactly FILE"
else
  echo "check-plots: tools/plot.py -o FILE did not write exactly FILE as a PNG (the folder holds: $(ls -A "$work/cwd" | tr '\n' ' ')," \
       "the export's: $(ls -A "$work/in" | tr '\n' ' '))" >&2; status=1
fi
# The deprecated positional OUT still works, with a warning on stderr.
if python3 tools/plot.py "$work/compare.json" "$work/positional.png" >/dev/null 2>"$work/positional.err" && is_png "$work/positional.png" &&
   grep -q "^plot.py: warning: .*deprecated" "$work/positional.err"; then
  echo "check-plots: the deprecated OUT argument still writes the plot, with a warning"
else
  echo "check-plots: tools/plot.py EXPORT OUT no longer works (or gives no deprecation warning)" >&2; status=1
fi
# expect_failure STATUS WHAT ARGS...: plot.py ARGS exits STATUS, writes nothing to stdout and
# one line on stderr starting `plot.py:`.
expect_failure() {
  local expected=$1 what=$2 got=0; shift 2
  "$@" >"$work/fail.out" 2>"$work/fail.err" || got=$?
  if [ "$got" -eq "$expected" ] && [ ! -s "$work/fail.out" ] && [ "$(wc -l <"$work/fail.err")" -eq 1 ] &&
     [ "$(head -c 8 "$work/fail.err")" = "plot.py:" ]; then
    echo "check-plots: $what: exit $got, $(cat "$work/fail.err")"
  else
    echo "check-plots: $what: expected exit $expected and one 'plot.py: ...' line on stderr; got exit $got, stderr:" >&2
    sed 's/^/  /' "$work/fail.err" >&2; status=1
  fi
}
echo '{"name": "not an export"}' >"$work/unknown.json"
echo '{"runs": [' >"$work/truncated.json"
expect_failure 1 "a missing export" python3 tools/plot.py "$work/missing.json" -o "$work/missing.png"
expect_failure 1 "a JSON file of no known kind" python3 tools/plot.py "$work/unknown.json" -o "$work/unknown.png"
expect_failure 1 "a file that is not JSON" python3 tools/plot.py "$work/truncated.json" -o "$work/truncated.png"
expect_failure 2 "an unknown flag" python3 tools/plot.py "$work/compare.json" --no-such-flag
expect_failure 2 "both -o and OUT" python3 tools/plot.py "$work/compare.json" "$work/a.png" -o "$work/b.png"
expect_failure 3 "an output in a missing folder" python3 tools/plot.py "$work/compare.json" -o "$work/no-such-folder/x.png"
expect_failure 3 "drawing without matplotlib" no_matplotlib "$work/compare.json" -o "$work/no-matplotlib.png"
for name in missing unknown truncated no-matplotlib; do
  if [ -e "$work/$name.png" ]; then echo "check-plots: a failed plot.py left $name.png behind" >&2; status=1; fi
done
exit $status
