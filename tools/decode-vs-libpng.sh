#!/usr/bin/env bash
# Decode throughput: our PNGDecoder (via `retention inspect --decode --json`) against libpng's
# simplified API called from a plain C program, on the same file, runs alternated (ours, C,
# ours, C, ...), each run a fresh process decoding once from the file. Prints MB/s for each and
# the median of the paired ratios ours/C (the machine's speed drifts, so only paired ratios
# are compared).
# Usage: tools/decode-vs-libpng.sh [PNG] [PAIRS]
#   default PNG: photo-4000x3000-01.png, generated into /tmp/retention-large if missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pairs=${2:-15}
cd "$root"
swift build -c release --product retention >/dev/null
bin=$root/.build/release/retention
file=${1:-/tmp/retention-large/photo-4000x3000-01.png}
if [ ! -f "$file" ] && [ -z "${1:-}" ]; then
  echo "generating $file ..." >&2
  "$bin" assets generate /tmp/retention-large --only photo-4000x3000-01.png >/dev/null
fi
mkdir -p "$root/tools/bin"
cc -O2 -o "$root/tools/bin/png-simplified-decode" "$root/tools/baseline/png-simplified-decode.c" -lpng16
c=$root/tools/bin/png-simplified-decode

ours_mbs=(); c_mbs=(); ratios=()
# Each program's output is captured first and parsed after it exited: a parser started on the
# other end of a pipe would compete for the CPU while the decode runs.
ours() { local out; out=$("$bin" inspect --decode --json "$file"); python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print(d["decodedBytes"]/(d["decodeMilliseconds"]/1000)/1e6)' "$out"; }
theirs() { local out; out=$("$c" "$file"); awk '{print $1/$2/1e6}' <<<"$out"; }
for i in $(seq 1 "$pairs"); do
  # Alternate which program goes first in each pair (ABBA), so neither always runs second.
  if [ $((i % 2)) -eq 1 ]; then o=$(ours); k=$(theirs); else k=$(theirs); o=$(ours); fi
  ours_mbs+=("$o"); c_mbs+=("$k")
  ratios+=("$(python3 -c "print($o/$k)")")
done
python3 - "$file" "${ours_mbs[*]}" "${c_mbs[*]}" "${ratios[*]}" <<'PY'
import statistics, sys
f, o, c, r = sys.argv[1], *[list(map(float, a.split())) for a in sys.argv[2:]]
print(f"file: {f}  pairs: {len(r)}")
print(f"ours (PNGDecoder)        median {statistics.median(o):8.1f} MB/s  (min {min(o):.1f}, max {max(o):.1f})")
print(f"C, libpng simplified API median {statistics.median(c):8.1f} MB/s  (min {min(c):.1f}, max {max(c):.1f})")
print(f"ratio ours/C: median of paired ratios {statistics.median(r):.3f}  (min {min(r):.3f}, max {max(r):.3f})")
PY
