#!/usr/bin/env bash
# Decode throughput: our PNGDecoder (via `retention inspect --decode --json`) against libpng's
# simplified API called from a plain C program, on the same file, runs alternated (ours, C,
# ours, C, ...), each run a fresh process decoding once from the file. Prints MB/s for each and
# the median of the paired ratios ours/C (the machine's speed drifts, so only paired ratios
# are compared).
# Usage: tools/decode-vs-libpng.sh [PNG] [PAIRS]
#        tools/decode-vs-libpng.sh --corpus DIR [--corpus DIR]...   (see below)
#   default PNG: photo-4000x3000-01.png, generated into /tmp/retention-large if missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# --corpus DIR... (one or more): the same comparison over every *.png below each folder, by
# kind (the PNG header's color type: rgb, rgba, palette, gray). Each round decodes every file
# of a kind once with each program, alternating which goes first: ours in one process
# (`retention inspect --decode --json FILES...`, summing each file's decodeMilliseconds), the C
# program once per file (summing the seconds each reports), so both sides time the decode alone,
# not process start-up. The C side is libpng's default: Adler-32 checked; ours skips it
# (DecodeOptions). Prints per folder and kind the median total milliseconds of each, and the
# median of the per-round ratios ours/C with its min-max against the goal (at most GOAL,
# default 0.90). PAIRS rounds (default 5).
if [ "${1:-}" = --corpus ]; then
  folders=()
  while [ $# -gt 0 ]; do
    [ "$1" = --corpus ] && [ $# -ge 2 ] && [ -d "$2" ] || { echo "usage: tools/decode-vs-libpng.sh --corpus DIR [--corpus DIR]..." >&2; exit 2; }
    folders+=("$(realpath "$2")"); shift 2
  done
  cd "$root"
  swift build -c release --product retention >/dev/null
  bin=${RETENTION:-$root/.build/release/retention}
  mkdir -p "$root/tools/bin"
  cc -O2 -o "$root/tools/bin/png-simplified-decode" "$root/tools/baseline/png-simplified-decode.c" -lpng16
  c=$root/tools/bin/png-simplified-decode
  rounds=${PAIRS:-5}
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  : > "$work/rows.txt"
  for folder in "${folders[@]}"; do
    mapfile -t all < <(find "$folder" -type f -name '*.png' | sort)
    python3 - "${all[@]}" > "$work/kinds.tsv" <<'PY'
import sys
names = {0: 'gray', 2: 'rgb', 3: 'palette', 4: 'gray', 6: 'rgba'}
for path in sys.argv[1:]:
    with open(path, 'rb') as f:
        print(f"{names.get(f.read(26)[25], 'other')}\t{path}")
PY
    for kind in rgb rgba palette gray; do
      mapfile -t files < <(awk -F'\t' -v k="$kind" '$1 == k { print $2 }' "$work/kinds.tsv")
      [ ${#files[@]} -gt 0 ] || continue
      ours() { "$bin" inspect --decode --json "${files[@]}" > "$work/ours.json"; python3 -c 'import json,sys; print(sum(json.loads(l)["decodeMilliseconds"] for l in open(sys.argv[1])))' "$work/ours.json"; }
      theirs() { local f; for f in "${files[@]}"; do "$c" "$f"; done > "$work/c.txt"; awk '{ s += $2 } END { print s * 1000 }' "$work/c.txt"; }
      ours >/dev/null; theirs >/dev/null  # warm-up (page cache)
      for ((i = 0; i < rounds; i++)); do
        if ((i % 2 == 0)); then o=$(ours); k=$(theirs); else k=$(theirs); o=$(ours); fi
        echo "$(basename "$folder") $kind ${#files[@]} $o $k" >> "$work/rows.txt"
      done
    done
  done
  python3 - "$work/rows.txt" "$rounds" "${GOAL:-0.90}" <<'PY'
import statistics, sys
path, rounds, goal = sys.argv[1], sys.argv[2], float(sys.argv[3])
groups = {}
for line in open(path):
    folder, kind, count, ours, theirs = line.split()
    groups.setdefault((folder, kind, count), []).append((float(ours), float(theirs)))
print(f"full decode to RGBA8: ours (PNGDecoder, Adler-32 skipped) against libpng's simplified API with its defaults, {rounds} paired rounds")
print(f"{'corpus':<12} {'kind':<8} {'files':>5} {'ours ms':>9} {'libpng ms':>10} {'ours/libpng (min-max)':>24}  goal <= {goal:.2f}")
for (folder, kind, count), pairs in groups.items():
    ratios = [o / t for o, t in pairs]
    median = statistics.median(ratios)
    print(f"{folder:<12} {kind:<8} {count:>5} {statistics.median(o for o, _ in pairs):9.0f} {statistics.median(t for _, t in pairs):10.0f} "
          f"{median:10.3f} ({min(ratios):.3f}-{max(ratios):.3f})  {'met' if median <= goal else 'not met'}")
PY
  exit 0
fi
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
