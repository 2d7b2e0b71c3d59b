#!/usr/bin/env bash
# debug-build.sh [IMAGE]: what a debug build (`swift build`, `swift test`) costs a library user
# against a release build, for a thumbnail and for a full decode of one ordinary image
# (default assets/images/photo-1200x900-01.png, 1.1 MP).
#
# Each round runs, in alternating order (ABBA), the debug and the release binary of this commit
# over COPIES (default 20) copies of the image, one process each:
#   retention thumbnail COPIES... -s 256 --jobs 1 -o WORK   and   retention inspect --decode COPIES...
# and records each process's CPU time (user + system, to the microsecond, by tools/child_cpu.py).
# Prints per build the CPU milliseconds per image (the process's start-up shared among the
# copies) as the median with its min-max, and the median of the per-round ratios debug/release.
#
# Environment: ROUNDS (default 7); COPIES (default 20); RETENTION (the release binary; built if missing);
# DEBUG_RETENTION (the debug binary; default .build/debug/retention, built by `swift build`).
set -euo pipefail
cd "$(dirname "$0")/.."
image=${1:-assets/images/photo-1200x900-01.png}
[ -f "$image" ] || { echo "usage: tools/debug-build.sh [IMAGE]" >&2; exit 2; }
rounds=${ROUNDS:-7}
RETENTION=${RETENTION:-$PWD/.build/release/retention}
[ -x "$RETENTION" ] || swift build -c release --product retention >&2
if [ -z "${DEBUG_RETENTION:-}" ]; then
  echo "debug-build: swift build --product retention (debug)" >&2
  swift build --product retention >&2
  DEBUG_RETENTION=$PWD/.build/debug/retention
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
copies=${COPIES:-20}
mkdir -p "$work/in"
for ((i = 1; i <= copies; i++)); do cp "$image" "$work/in/copy-$i.png"; done
inputs=("$work"/in/*.png)

cpu() {  # cpu BINARY ARGS...: prints the process's user + system milliseconds per copy
  python3 tools/child_cpu.py "$@" >"$work/time.txt" 2>"$work/stderr.txt" \
    || { echo "debug-build: $* failed:" >&2; cat "$work/stderr.txt" >&2; exit 1; }
  awk -v n="$copies" '{ printf "%.3f\n", $1 * 1000 / n }' "$work/time.txt"
}
measure() {  # measure BUILD BINARY ROUND: CPU ms per image
  echo "$1 $3 thumbnail $(cpu "$2" thumbnail "${inputs[@]}" -s 256 --jobs 1 -o "$work/out")" >> "$work/rows.txt"
  echo "$1 $3 decode $(cpu "$2" inspect --decode "${inputs[@]}")" >> "$work/rows.txt"
}
measure debug "$DEBUG_RETENTION" 0; measure release "$RETENTION" 0  # warm-up, not counted
: > "$work/rows.txt"
for ((round = 1; round <= rounds; round++)); do
  if ((round % 2)); then measure debug "$DEBUG_RETENTION" "$round"; measure release "$RETENTION" "$round"
  else measure release "$RETENTION" "$round"; measure debug "$DEBUG_RETENTION" "$round"; fi
done
python3 - "$work/rows.txt" "$image" "$rounds" "$copies" <<'PY'
import statistics, sys
path, image, rounds, copies = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
seconds = {}
for line in open(path):
    build, r, task, value = line.split()
    seconds.setdefault((build, task), {})[int(r)] = float(value)
def spread(values, fmt):
    return f"{fmt % statistics.median(values)} ({fmt % min(values)}-{fmt % max(values)})"
print(f"{image} ({copies} copies per process): CPU ms per image, median (min-max) of {rounds} alternated rounds")
print(f"{'task':<20} {'debug':>20} {'release':>20} {'debug/release':>20}")
for task, label in (("thumbnail", "thumbnail -s 256"), ("decode", "inspect --decode")):
    debug, release = seconds[("debug", task)], seconds[("release", task)]
    ratios = [debug[r] / release[r] for r in debug if release[r] > 0]
    ratio = spread(ratios, "%.1fx") if ratios else "-"
    print(f"{label:<20} {spread(list(debug.values()), '%.1f'):>20} {spread(list(release.values()), '%.1f'):>20} {ratio:>20}")
PY
