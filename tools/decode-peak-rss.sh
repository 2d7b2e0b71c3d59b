#!/usr/bin/env bash
# Peak resident memory of a full decode, the fast path against libpng alone: ROUNDS times each,
# alternating, one `retention inspect --decode FILE` (and `--decode --libpng`) process per run,
# its peak RSS read from the kernel's accounting of the finished child (getrusage ru_maxrss).
# Prints each side's median with its min-max and the median of the paired differences, against
# the goal: the fast path within 1 MB of libpng's. From a path, the fast path reads the file
# whole into the bitmap's own tail (where the inflate overwrites it), so only what lies past the
# bitmap (at most 256 KiB, and one byte a row) should show.
# Usage: tools/decode-peak-rss.sh FILE [ROUNDS]       (default 7 rounds)
# Environment: RETENTION (the binary; default .build/release/retention, built if missing).
set -euo pipefail
[ $# -ge 1 ] && [ -f "$1" ] || { echo "usage: tools/decode-peak-rss.sh FILE [ROUNDS]" >&2; exit 2; }
file=$(realpath "$1")
rounds=${2:-7}
cd "$(dirname "$0")/.."
RETENTION=${RETENTION:-$PWD/.build/release/retention}
[ -x "$RETENTION" ] || swift build -c release --product retention >&2
peak() {
  python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)' "$RETENTION" inspect --decode "$@" "$file"
}
rows=()
for ((i = 0; i < rounds; i++)); do
  if ((i % 2 == 0)); then f=$(peak); l=$(peak --libpng); else l=$(peak --libpng); f=$(peak); fi
  rows+=("$f $l")
done
python3 - "$file" "${rows[@]}" <<'PY'
import statistics, sys
file, rows = sys.argv[1], [tuple(map(int, r.split())) for r in sys.argv[2:]]
fast, slow = [f for f, _ in rows], [l for _, l in rows]
diff = [f - l for f, l in rows]
mb = lambda v: f"{v / 1e6:.2f}"
print(f"peak RSS of retention inspect --decode, {len(rows)} alternating runs each: {file}")
print(f"fast path      {mb(statistics.median(fast))} MB ({mb(min(fast))}-{mb(max(fast))})")
print(f"--libpng       {mb(statistics.median(slow))} MB ({mb(min(slow))}-{mb(max(slow))})")
print(f"fast - libpng  {mb(statistics.median(diff))} MB ({mb(min(diff))} to {mb(max(diff))}), goal within 1 MB: {'met' if abs(statistics.median(diff)) <= 1e6 else 'not met'}")
PY
