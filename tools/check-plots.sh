#!/usr/bin/env bash
# check-plots.sh: tools/plot.py draws each kind of export the tool writes. Runs a small
# scenario through `retention compare`, `retention sweep` and `retention soak`, each with
# --export-json and --export-csv, plots all six files, and checks each PNG was written (a PNG
# signature and more than 10 KB). Installs matplotlib from tools/requirements.txt when missing.
# Uses .build/debug/retention (built when missing). Exit 0 when every plot was drawn.
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
trap '[ -n "${KEEP_WORK:-}" ] || rm -rf "$work"' EXIT
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
"$R" soak "$work/s.json" --strategy decoded-lru --iterations 4 \
  --export-json "$work/soak.json" --export-csv "$work/soak.csv" >/dev/null 2>&1 || true  # exit 3 for a verdict too short to judge
status=0
for kind in compare sweep soak; do
  for format in json csv; do
    file="$work/$kind.$format"
    if [ ! -s "$file" ]; then echo "check-plots: $kind --export-$format wrote nothing" >&2; status=1; continue; fi
    if ! python3 tools/plot.py "$file" "$work/$kind-$format.png" >/dev/null; then
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
# multiples past 5 strategies; the constrained sweep's plot is drawn too.
for kind in compare compare6 sweep-limits; do
  file="$work/$kind.json"
  if [ ! -s "$file" ]; then echo "check-plots: $kind --export-json wrote nothing" >&2; status=1; continue; fi
  said=$(python3 tools/plot.py "$file" "$work/$kind.png") || { echo "check-plots: tools/plot.py failed on $kind" >&2; status=1; continue; }
  echo "check-plots: $said"
  case $kind in
    compare) expected="2 strategies, placeholder rows per sample, 1 checkpoint marked" ;;
    compare6) expected="6 strategies as small multiples, placeholder rows per sample, 1 checkpoint marked" ;;
    *) expected="" ;;
  esac
  if [ -n "$expected" ] && [[ "$said" != *": $expected" ]]; then
    echo "check-plots: expected the $kind plot to say '$expected'" >&2; status=1
  fi
done
exit $status
