#!/usr/bin/env bash
# thumbnail-vs-decode.sh [--kinds] DIR [ROUNDS]: what a thumbnail costs against a full decode,
# on every *.png below DIR (with --kinds, for each kind of file apart; see below).
#
# Each round runs, once each and in alternating order (ABBA), one process over all the files:
#   thumbnail: retention thumbnail FILES... --size SIZE --jobs 1 -o OUT (decode, resample, encode, write)
#   decode:    retention inspect --decode FILES...                      (the full RGBA8 decode: the
#              fast path where it takes a file, libpng otherwise; DECODE=libpng adds --libpng,
#              libpng alone, the decoder before the fast path)
# and takes the ratio thumbnail/decode of their CPU time (user + system, the kernel's accounting
# of the finished child, to the microsecond, by tools/child_cpu.py; /usr/bin/time rounds each
# part down to 10 ms, 2.5 % of a 0.4 s decode) and of their wall time. Prints the median of the per-round
# ratios with the min-max spread, so drift in machine load hits both sides alike; CPU time is the
# steadier figure on a shared machine.
# One untimed run of each comes first (page cache).
#
# Environment: RETENTION (the binary; default .build/release/retention, built if missing),
# SIZE (default 256), DECODE (libpng: the decode side with --libpng), INFLATE_WHOLE (a size: the
# thumbnail side with --inflate-whole SIZE; 0 streams every file through libpng; unset, the
# tool's default whole-image inflate allowance), WORK (default a temporary
# folder, removed at the end), OUT (a folder in
# which the thumbnails' own folder is made, and removed at the end; default WORK). Each round
# replaces the files the round before wrote, as a batch run again does: on ext4 that allocates an
# inode per file and frees the old one, kernel work that OUT on a tmpfs (/dev/shm) leaves out.
# The kind table's title names the outputs' file system.
set -euo pipefail
kinds=0
if [ "${1:-}" = --kinds ]; then kinds=1; shift; fi
[ $# -ge 1 ] && [ -d "$1" ] || { echo "usage: tools/thumbnail-vs-decode.sh [--kinds] DIR [ROUNDS]" >&2; exit 2; }
dir=$(realpath "$1")
rounds=${2:-7}
if [ -n "${OUT:-}" ]; then
  [ -d "$OUT" ] || { echo "thumbnail-vs-decode: OUT=$OUT is not a folder" >&2; exit 2; }
  OUT=$(realpath "$OUT")
fi
cd "$(dirname "$0")/.."
RETENTION=${RETENTION:-$PWD/.build/release/retention}
SIZE=${SIZE:-256}
if [ ! -x "$RETENTION" ]; then
  echo "thumbnail-vs-decode: building retention (swift build -c release)" >&2
  swift build -c release --product retention >&2
fi
mapfile -t files < <(find "$dir" -type f -name '*.png' | sort)
[ ${#files[@]} -gt 0 ] || { echo "thumbnail-vs-decode: no *.png below $dir" >&2; exit 1; }
work=${WORK:-$(mktemp -d)}
[ -n "${WORK:-}" ] || trap 'rm -rf "$work"' EXIT
out=$work/out
if [ -n "${OUT:-}" ]; then
  out=$(mktemp -d -p "$OUT" thumbnail-vs-decode.XXXXXX)
  trap 'rm -rf "$out"; [ -n "${WORK:-}" ] || rm -rf "$work"' EXIT
fi
mkdir -p "$out"
outfs=$(df --output=fstype "$out" | tail -1)

# run thumbnail|decode: one process over every file; prints "cpu_seconds wall_seconds peak_kb".
run() {
  local -a cmd
  case $1 in
    thumbnail) cmd=("$RETENTION" thumbnail "${files[@]}" --size "$SIZE" --jobs 1 -o "$out" ${INFLATE_WHOLE:+--inflate-whole "$INFLATE_WHOLE"}) ;;
    decode) cmd=("$RETENTION" inspect --decode ${DECODE:+--$DECODE} "${files[@]}") ;;
  esac
  python3 tools/child_cpu.py --peak "${cmd[@]}" 2>"$work/stderr.txt" \
    || { echo "thumbnail-vs-decode: $1 failed:" >&2; cat "$work/stderr.txt" >&2; exit 1; }
}

# --kinds: the same rounds once per kind of file, the kind read from each file's PNG header
# (color type 2 rgb, 6 rgba, 3 palette, 0 and 4 gray), and one table: per kind the medians of
# CPU seconds and of the paired ratios (CPU and wall), with the goal (at most GOAL, default
# 1.15x, issue 57's: a thumbnail costs at most 15 % more CPU than the fast full decode of the same
# files): met when every round's CPU ratio
# is within it, not met when none is, a tie otherwise; and the thumbnail batch's peak resident
# memory (the process's own ru_maxrss) with its goal (at most PEAK_GOAL MB, default 30): met when
# every round's peak is within it.
if [ "$kinds" = 1 ]; then
  declare -A groups=()
  while IFS=$'\t' read -r kind file; do groups[$kind]+="$file"$'\n'; done < <(python3 - "${files[@]}" <<'PY'
import sys
names = {0: 'gray', 2: 'rgb', 3: 'palette', 4: 'gray', 6: 'rgba'}
for path in sys.argv[1:]:
    with open(path, 'rb') as f:
        head = f.read(26)
    print(f"{names.get(head[25], 'other')}\t{path}")
PY
)
  : > "$work/kinds.txt"
  for kind in rgb rgba palette gray; do
    [ -n "${groups[$kind]:-}" ] || continue
    mapfile -t files < <(printf '%s' "${groups[$kind]}")
    run thumbnail >/dev/null; run decode >/dev/null  # warm-up
    for ((round = 0; round < rounds; round++)); do
      if ((round % 2 == 0)); then t=$(run thumbnail); d=$(run decode); else d=$(run decode); t=$(run thumbnail); fi
      echo "$kind ${#files[@]} $t $d" >> "$work/kinds.txt"
    done
  done
  python3 - "$work/kinds.txt" "$dir" "$SIZE" "$rounds" "${GOAL:-1.15}" "$outfs" "${PEAK_GOAL:-30}" <<'PY'
import os, statistics, sys
path, folder, size, rounds, goal, outfs, peak_goal = sys.argv[1:]
goal, peak_goal = float(goal), float(peak_goal)
rows = {}
for line in open(path):
    kind, count, *values = line.split()
    rows.setdefault((kind, int(count)), []).append(list(map(float, values)))
def spread(values, fmt):
    return f"{fmt % statistics.median(values)} ({fmt % min(values)}-{fmt % max(values)})"
print(f"{folder}: thumbnail --size {size} --jobs 1{' --inflate-whole ' + os.environ['INFLATE_WHOLE'] if os.environ.get('INFLATE_WHOLE') else ''} (outputs on {outfs}) against inspect --decode{' --' + os.environ['DECODE'] if os.environ.get('DECODE') else ''}, by kind, {rounds} paired rounds each")
print(f"{'kind':<8} {'files':>5} {'thumbnail CPU s':>18} {'decode CPU s':>18} {'ratio, CPU':>20} {'ratio, wall':>20}  {'goal <= ' + format(goal, '.2f') + 'x':<34} {'thumbnail peak MB':>18}  goal <= {peak_goal:.0f} MB")
# A spread that crosses a goal is a tie with it, whichever side the median falls on.
def verdict(values, limit):
    return ("met" if max(values) <= limit else "not met" if min(values) > limit else
            f"tie (median {'under' if statistics.median(values) <= limit else 'over'})")
for (kind, count), values in rows.items():
    cpu = [t / d for t, _, _, d, _, _ in values]
    wall = [t / d for _, t, _, _, d, _ in values]
    peak = [v[2] / 1024 for v in values]
    print(f"{kind:<8} {count:>5} {spread([v[0] for v in values], '%.2f'):>18} {spread([v[3] for v in values], '%.2f'):>18} "
          f"{spread(cpu, '%.2fx'):>20} {spread(wall, '%.2fx'):>20}  {verdict(cpu, goal):<34} {spread(peak, '%.1f'):>18}  {verdict(peak, peak_goal)}")
PY
  exit 0
fi

run thumbnail >/dev/null; run decode >/dev/null  # warm-up
: > "$work/rounds.txt"
for ((round = 0; round < rounds; round++)); do
  if ((round % 2 == 0)); then t=$(run thumbnail); d=$(run decode); else d=$(run decode); t=$(run thumbnail); fi
  echo "$t $d" >> "$work/rounds.txt"
done
# rounds.txt: thumbnail_cpu thumbnail_wall thumbnail_kb decode_cpu decode_wall decode_kb, one line per round.
python3 - "$work/rounds.txt" "$dir" "${#files[@]}" "$SIZE" <<'PY'
import os, statistics, sys
path, folder, count, size = sys.argv[1:]
rows = [list(map(float, line.split())) for line in open(path)]
def spread(values, fmt):
    return f"median {fmt % statistics.median(values)} (min {fmt % min(values)}, max {fmt % max(values)})"
cpu = [t / d for t, _, _, d, _, _ in rows]
wall = [t / d for _, t, _, _, d, _ in rows]
print(f"{folder}: {count} PNGs, thumbnail --size {size} --jobs 1{' --inflate-whole ' + os.environ['INFLATE_WHOLE'] if os.environ.get('INFLATE_WHOLE') else ''} against inspect --decode{' --' + os.environ['DECODE'] if os.environ.get('DECODE') else ''}, {len(rows)} rounds")
print(f"thumbnail CPU s  {spread([r[0] for r in rows], '%.2f')}")
print(f"decode CPU s     {spread([r[3] for r in rows], '%.2f')}")
print(f"ratio, CPU time  {spread(cpu, '%.2fx')}")
print(f"ratio, wall time {spread(wall, '%.2fx')}")
PY
