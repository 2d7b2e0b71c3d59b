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
# kind (the PNG header's color type: rgb, rgba, palette, gray), with the same process shape on
# both sides: each round runs, for every kind, one process of ours decoding every file of the
# kind (`retention inspect --decode FILES...`: the fast path where it takes a file, libpng
# otherwise), one of ours with libpng alone (`inspect --decode --libpng`, the decoder before the
# fast path), and one C process decoding the same files with libpng's simplified API and its
# defaults (Adler-32 checked; ours skips it, DecodeOptions), in an order that rotates from round
# to round. Each is timed whole: the process's user + system CPU (tools/child_cpu.py), start-up
# included. Prints per folder and kind the median CPU milliseconds of each, and the median of
# the per-round ratios ours/C and ours-libpng/C with their min-max, against the goal for the
# kind: GOAL_RGBA (default 0.50), GOAL_RGB and GOAL_PALETTE (0.75), GOAL (0.90: photos, and
# every kind of a folder whose name does not contain "flat"). PAIRS rounds (default 5).
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
  cpu() { python3 "$root/tools/child_cpu.py" "$@" | awk '{ printf "%.3f", $1 * 1000 }'; }
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
      run() {
        case $1 in
          ours) cpu "$bin" inspect --decode "${files[@]}" ;;
          libpng) cpu "$bin" inspect --decode --libpng "${files[@]}" ;;
          c) cpu "$c" "${files[@]}" ;;
        esac
      }
      run ours >/dev/null; run libpng >/dev/null; run c >/dev/null  # warm-up (page cache)
      for ((i = 0; i < rounds; i++)); do
        declare -A took=()
        case $((i % 3)) in
          0) order=(ours libpng c) ;;
          1) order=(c ours libpng) ;;
          *) order=(libpng c ours) ;;
        esac
        for side in "${order[@]}"; do took[$side]=$(run "$side"); done
        echo "$(basename "$folder") $kind ${#files[@]} ${took[ours]} ${took[libpng]} ${took[c]}" >> "$work/rows.txt"
        unset took
      done
    done
  done
  python3 - "$work/rows.txt" "$rounds" <<'PY'
import os, statistics, sys
path, rounds = sys.argv[1], sys.argv[2]
goals = {'rgba': float(os.environ.get('GOAL_RGBA', 0.50)), 'rgb': float(os.environ.get('GOAL_RGB', 0.75)),
         'palette': float(os.environ.get('GOAL_PALETTE', 0.75))}
other = float(os.environ.get('GOAL', 0.90))
groups = {}
for line in open(path):
    folder, kind, count, ours, old, theirs = line.split()
    groups.setdefault((folder, kind, count), []).append((float(ours), float(old), float(theirs)))
print(f"full decode to RGBA8, whole-process CPU, one process per side decoding every file of a kind, {rounds} rounds:")
print("ours (fast path + libpng behind it), ours with libpng alone (--libpng), and libpng's simplified API with its defaults")
print(f"{'corpus':<12} {'kind':<8} {'files':>5} {'ours ms':>8} {'--libpng':>9} {'libpng ms':>10} {'ours/libpng (min-max)':>22} {'--libpng/libpng':>16}  goal")
for (folder, kind, count), rows in groups.items():
    ratios = [o / t for o, _, t in rows]
    old = [l / t for _, l, t in rows]
    goal = goals.get(kind, other) if 'flat' in folder else other
    median = statistics.median(ratios)
    print(f"{folder:<12} {kind:<8} {count:>5} {statistics.median(o for o, _, _ in rows):8.0f} {statistics.median(l for _, l, _ in rows):9.0f} "
          f"{statistics.median(t for _, _, t in rows):10.0f} {median:8.3f} ({min(ratios):.3f}-{max(ratios):.3f}) "
          f"{statistics.median(old):8.3f} ({min(old):.2f}-{max(old):.2f})  <= {goal:.2f} {'met' if median <= goal else 'not met'}")
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
