#!/usr/bin/env bash
# Decode against libpng and its peers, whole process against whole process.
# Usage: tools/decode-vs-libpng.sh [PNG] [PAIRS]   (PAIRS default 15)
#        tools/decode-vs-libpng.sh --corpus DIR [--corpus DIR]...
#
# With PNG (default photo-4000x3000-01.png, generated into /tmp/retention-large if missing):
# our PNGDecoder (`retention inspect --decode --json`) against libpng's simplified API called
# from a plain C program (tools/baseline/png-simplified-decode.c), on the same file, runs
# alternated (ours, C, C, ours, ...), each run a fresh process decoding once from the file.
# Prints MB/s for each, from the decode time each program reports, and the median of the
# paired ratios ours/C (the machine's speed drifts, so only paired ratios are compared).
#
# With --corpus DIR... (one or more): every *.png below each folder, by kind (the PNG header's
# color type: rgb, rgba, palette, gray), each decoder in ONE process that decodes every file of
# the kind to RGBA8, timed whole: the process's user + system CPU (tools/child_cpu.py), start-up
# included. The processes, per round and kind, in an order that rotates from round to round:
#   ours       `retention inspect --decode FILES...` (the fast path where it takes a file,
#              libpng otherwise);
#   --libpng   `retention inspect --decode --libpng FILES...` (libpng alone, the decoder before
#              the fast path);
#   libpng     libpng's simplified API with its defaults (Adler-32 checked; ours skips it on
#              its libpng path, DecodeOptions), tools/baseline/png-simplified-decode.c: the 1.00
#              of every ratio;
#   libspng    its defaults, tRNS applied, tools/baseline/spng-decode.c (Debian's libspng-dev);
#   stb_image  stbi_load with four channels, tools/baseline/stb-decode.c (Debian's libstb-dev,
#              whose libstb.so holds the compiled implementation);
#   Wuffs      through its Python binding pywuffs (PyPI), tools/baseline/wuffs-decode.py, minus
#              the interpreter's start-up: the same script run with no file (imports and the
#              decoder's set-up, measured in every round too), whose median is subtracted;
#   floor      libdeflate's inflate alone, tools/baseline/inflate-floor.c: each file's IDAT data
#              concatenated and inflated into a buffer of the filtered size, nothing else; the
#              floor of any decoder that inflates.
# Before timing, each decoder runs once over every file (the warm-up): each must decode every file
# (exit 0, one line per file) to as many bytes as ours, and libspng's, stb_image's and Wuffs's
# pixels of the first file of each kind must equal libpng's byte for byte; otherwise the script
# stops (a peer that fails must not look fast). Prints per folder and kind each decoder's median
# CPU milliseconds; each one's median of the per-round ratios to libpng with their min-max (a
# spread that contains 1.00 is a tie); ours against the floor (ours / floor) and against Wuffs
# (ahead, behind or a tie, the same rule); and ours/libpng against the goal for the kind.
#
# The C harnesses are compiled into tools/bin (cc -O2). Missing packages are installed, and the
# script says so: libpng-dev, libspng-dev, libstb-dev, libdeflate-dev with apt-get; pywuffs
# (with numpy, which it needs and does not declare) from PyPI into a virtual environment in WORK.
#
# Environment: RETENTION (the binary; default .build/release/retention, built with swift build
# when RETENTION is not given). With --corpus also: PAIRS (rounds, default 5); GOAL_RGBA
# (default 0.50), GOAL_RGB and GOAL_PALETTE (0.75), the goals for ours/libpng by kind in a folder
# whose name contains "flat", and GOAL (0.90) for every kind of any other folder; WORK (default /tmp/retention-peers, shared with compare-peers.sh):
# where pywuffs's virtual environment goes when python3 cannot import pywuffs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
say() { echo "decode-vs-libpng: $*" >&2; }
retention() {
  if [ -n "${RETENTION:-}" ]; then bin=$RETENTION; return; fi
  (cd "$root" && swift build -c release --product retention >/dev/null)
  bin=$root/.build/release/retention
}
if [ "${1:-}" = --corpus ]; then
  folders=()
  while [ $# -gt 0 ]; do
    [ "$1" = --corpus ] && [ $# -ge 2 ] && [ -d "$2" ] || { echo "usage: tools/decode-vs-libpng.sh --corpus DIR [--corpus DIR]..." >&2; exit 2; }
    folders+=("$(realpath "$2")"); shift 2
  done
  cd "$root"
  retention
  missing=()
  [ -f /usr/include/png.h ] || missing+=(libpng-dev)
  [ -f /usr/include/spng.h ] || missing+=(libspng-dev)
  [ -f /usr/include/stb/stb_image.h ] || missing+=(libstb-dev)
  [ -f /usr/include/libdeflate.h ] || missing+=(libdeflate-dev)
  if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${missing[*]} with apt-get"
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
  fi
  python=python3
  if ! python3 -c 'import pywuffs, numpy' 2>/dev/null; then
    work_dir=${WORK:-/tmp/retention-peers}
    python=$work_dir/venv/bin/python
    if ! "$python" -c 'import pywuffs, numpy' 2>/dev/null; then
      say "installing pywuffs and numpy from PyPI into $work_dir/venv"
      python3 -m venv "$work_dir/venv"
      "$work_dir/venv/bin/pip" install -q pywuffs numpy >&2
    fi
  fi
  mkdir -p tools/bin
  cc -O2 -o tools/bin/png-simplified-decode tools/baseline/png-simplified-decode.c -lpng16
  cc -O2 -o tools/bin/spng-decode tools/baseline/spng-decode.c -lspng
  cc -O2 -I/usr/include/stb -o tools/bin/stb-decode tools/baseline/stb-decode.c -lstb
  cc -O2 -o tools/bin/inflate-floor tools/baseline/inflate-floor.c -ldeflate
  rounds=${PAIRS:-5}
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  : > "$work/rows.txt"
  sides=(ours libpng c spng stb wuffs empty floor)
  # One process of a decoder over the files given (none for the empty Wuffs run).
  command_of() {
    local side=$1; shift
    case $side in
      ours) echo "$bin" inspect --decode ;;
      libpng) echo "$bin" inspect --decode --libpng ;;
      c) echo tools/bin/png-simplified-decode ;;
      spng) echo tools/bin/spng-decode ;;
      stb) echo tools/bin/stb-decode ;;
      wuffs | empty) echo "$python" tools/baseline/wuffs-decode.py ;;
      floor) echo tools/bin/inflate-floor ;;
    esac
  }
  run() {
    local side=$1 command
    read -ra command <<<"$(command_of "$side")"
    if [ "$side" = empty ]; then set -- "${command[@]}"; else set -- "${command[@]}" "${files[@]}"; fi
    python3 tools/child_cpu.py "$@" | awk '{ printf "%.3f", $1 * 1000 }'
  }
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
      label="$(basename "$folder") $kind"
      # The warm-up (page cache) is the check: every decoder decodes every file, to as many
      # bytes as ours (the floor: one line per file; it fails itself on a wrong size), and the
      # peers' pixels of the first file equal libpng's.
      expected=$("$bin" inspect --decode --json "${files[@]}" | python3 -c 'import json, sys; print(sum(json.loads(l)["decodedBytes"] for l in sys.stdin))')
      "$bin" inspect --decode --libpng "${files[@]}" >/dev/null
      for side in c spng stb wuffs floor; do
        read -ra command <<<"$(command_of "$side")"
        "${command[@]}" "${files[@]}" > "$work/out.txt" || { say "$label: $side failed"; exit 1; }
        lines=$(wc -l < "$work/out.txt")
        total=$(awk '{ s += $1 } END { printf "%d", s }' "$work/out.txt")
        if [ "$lines" -ne ${#files[@]} ] || { [ "$side" != floor ] && [ "$total" != "$expected" ]; }; then
          say "$label: $side decoded $lines of ${#files[@]} files to $total bytes; ours, $expected bytes"
          exit 1
        fi
      done
      for side in c spng stb wuffs; do
        mkdir -p "$work/$side"
        read -ra command <<<"$(command_of "$side")"
        "${command[@]}" --dump "$work/$side" "${files[0]}" >/dev/null
        [ "$side" = c ] || cmp -s "$work/c/1.rgba" "$work/$side/1.rgba" || { say "$label: $side's pixels of ${files[0]} differ from libpng's"; exit 1; }
      done
      run empty >/dev/null
      for ((i = 0; i < rounds; i++)); do
        declare -A took=()
        shift_by=$((i % ${#sides[@]}))
        for side in "${sides[@]:shift_by}" "${sides[@]:0:shift_by}"; do took[$side]=$(run "$side"); done
        row="$label ${#files[@]}"
        for side in "${sides[@]}"; do row+=" ${took[$side]}"; done
        echo "$row" >> "$work/rows.txt"
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
sides = ['ours', 'libpng', 'c', 'spng', 'stb', 'wuffs', 'empty', 'floor']
groups = {}
for line in open(path):
    folder, kind, count, *times = line.split()
    groups.setdefault((folder, kind, count), []).append(dict(zip(sides, map(float, times))))
# The interpreter's start-up: the median of every empty run of the Wuffs script.
startup = statistics.median(r['empty'] for rows in groups.values() for r in rows)
for rows in groups.values():
    for r in rows:
        r['wuffs'] -= startup
shown = [('ours', 'ours'), ('libpng', '--libpng'), ('c', 'libpng'), ('spng', 'libspng'), ('stb', 'stb_image'),
         ('wuffs', 'Wuffs'), ('floor', 'floor')]
median = statistics.median
def ratio(rows, a, b):
    values = [r[a] / r[b] for r in rows]
    m, low, high = median(values), min(values), max(values)
    return m, low, high, f"{m:.2f} ({low:.2f}-{high:.2f}){' tie' if low <= 1 <= high else ''}"
print(f"full decode to RGBA8, whole-process CPU (user + system), one process per decoder decoding every file of a kind, "
      f"{rounds} rounds, the order rotated each round:")
print("ours (fast path + libpng behind it), ours with libpng alone (--libpng), libpng's simplified API with its defaults, "
      "libspng, stb_image, Wuffs (pywuffs), and the floor: libdeflate's inflate alone of each file's IDAT stream")
print(f"Wuffs runs in Python: its figures are minus the interpreter's start-up, {startup:.0f} ms "
      f"(the median of {sum(len(r) for r in groups.values())} runs of the same script with no file)")
print()
print("median CPU ms")
print(f"{'corpus':<12} {'kind':<8} {'files':>5}" + "".join(f" {name:>9}" for _, name in shown))
for (folder, kind, count), rows in groups.items():
    print(f"{folder:<12} {kind:<8} {count:>5}" + "".join(f" {median(r[side] for r in rows):9.0f}" for side, _ in shown))
print()
print("time / libpng's: median of the per-round ratios (min-max); a spread that contains 1.00 is a tie")
others = [s for s in shown if s[0] != 'c']
print(f"{'corpus':<12} {'kind':<8}" + "".join(f" {name:<21}" for _, name in others).rstrip())
for (folder, kind, count), rows in groups.items():
    print(f"{folder:<12} {kind:<8}" + "".join(f" {ratio(rows, side, 'c')[3]:<21}" for side, _ in others).rstrip())
print()
print("ours against the floor (ours / floor) and against Wuffs (ours / Wuffs: ahead, behind or a tie), "
      "medians of the per-round ratios (min-max); ours/libpng against the goal")
print(f"{'corpus':<12} {'kind':<8} {'ours/floor':<17} {'ours/Wuffs':<25} goal")
for (folder, kind, count), rows in groups.items():
    floor = ratio(rows, 'ours', 'floor')[3]
    m, low, high, wuffs = ratio(rows, 'ours', 'wuffs')
    wuffs = wuffs.replace(' tie', '') + (' tie' if low <= 1 <= high else ' ahead' if high < 1 else ' behind')
    goal = goals.get(kind, other) if 'flat' in folder else other
    ours = ratio(rows, 'ours', 'c')[0]
    print(f"{folder:<12} {kind:<8} {floor:<17} {wuffs:<25} ours/libpng {ours:.2f} <= {goal:.2f} {'met' if ours <= goal else 'not met'}")
PY
  exit 0
fi
pairs=${2:-15}
cd "$root"
retention
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
