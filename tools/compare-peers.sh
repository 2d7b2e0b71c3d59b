#!/usr/bin/env bash
# compare-peers.sh [--corpus DIR]... [IMAGES...]: race `retention thumbnail` against vipsthumbnail,
# ImageMagick and Pillow on the same PNG files, and print a markdown table of median wall time and
# CPU time and peak resident memory per tool, with the ratio to ours.
#
# With --corpus DIR, one row group is the whole folder (every *.png below it, sorted): each run is
# one process per tool over all its files, one file at a time where the tool has a choice
# (`retention thumbnail DIR --jobs 1`, `vipsthumbnail FILES...`, `mogrify -thumbnail`, a Pillow
# loop, `retention inspect --decode FILES...`), so start-up costs once and the figure is the cost
# of ordinary images in bulk. tools/thumbnail-vs-decode.sh gives the thumbnail/decode ratio alone.
#
# Each image is thumbnailed to fit SIZE (default 256) px by every tool, RUNS times (default 7),
# after one untimed warm-up run each. Runs alternate tool by tool (the order rotates every round),
# and ratios are medians of the per-round (paired) ratios, so drift in machine load hits every
# tool alike. Wall time is measured around each run (EPOCHREALTIME); CPU time (user + system of
# the process and its threads and children) and peak resident memory (`Maximum resident set
# size`) come from /usr/bin/time -v, CPU to its 10 ms. Pillow is called as `thumbnail` with
# Image.Resampling.LANCZOS (its default is bicubic). Two reference rows: `retention --version`
# (the binary's idle floor) and `retention inspect --decode` (libpng's full decode, the time floor).
#
# With no IMAGES and no --corpus it races on two 4000x3000 RGB PNGs made in WORK (default /tmp/retention-peers):
# the generated photo-4000x3000-01.png, and a real photograph, Elephants_5640x3172.jpg from Debian's
# mate-backgrounds package (fetched with `apt-get download`), centre-cropped to 4000x3000 with vips
# and saved as PNG at zlib level 6 with adaptive filters.
#
# Missing peers are installed, and the script says so: libvips-tools, imagemagick and time with
# apt-get; Pillow from PyPI into a virtual environment in WORK. ImageMagick is called as
# convert-im6.q16, because on some machines /usr/local/bin/convert is another program.
#
# After the table, the goals, each from the paired rounds (ours ÷ the peer's in the same round):
# met when every round is within the goal, not met when none is, a tie otherwise, with the
# median ratio and its min-max. On every set: CPU at most GOAL_CPU (default 0.30) of
# vipsthumbnail's and of Pillow's. On a single image (the 12 MP photos): wall time and peak
# resident memory at most GOAL_WALL and GOAL_PEAK (default 0.50) of vipsthumbnail's. On a folder
# (a batch): peak resident memory at most GOAL_BATCH_PEAK (default 1.00) of Pillow's.
#
# Environment: RETENTION (the binary; default .build/release/retention, built if missing),
# RUNS, SIZE, WORK, GOAL_CPU, GOAL_WALL, GOAL_PEAK, GOAL_BATCH_PEAK.
set -euo pipefail
images=()  # files, and folders given with --corpus
while [ $# -gt 0 ]; do
  if [ "$1" = --corpus ]; then
    [ $# -ge 2 ] && [ -d "$2" ] || { echo "compare-peers: --corpus needs a folder" >&2; exit 1; }
    images+=("$(realpath "$2")")  # before the cd below
    shift 2
    continue
  fi
  [ -f "$1" ] || { echo "compare-peers: no such file: $1" >&2; exit 1; }
  images+=("$(realpath "$1")")
  shift
done
cd "$(dirname "$0")/.."
ROOT=$PWD
RUNS=${RUNS:-7}
SIZE=${SIZE:-256}
WORK=${WORK:-/tmp/retention-peers}
RETENTION=${RETENTION:-$ROOT/.build/release/retention}
mkdir -p "$WORK/out"

say() { echo "compare-peers: $*" >&2; }

# --- peers --------------------------------------------------------------------------------
missing=()
command -v vipsthumbnail >/dev/null 2>&1 || missing+=(libvips-tools)
command -v convert-im6.q16 >/dev/null 2>&1 || missing+=(imagemagick)
[ -x /usr/bin/time ] || missing+=(time)
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]} with apt-get"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
fi
IM=convert-im6.q16
MOGRIFY=mogrify-im6.q16
if ! "$IM" -version 2>/dev/null | grep -q ImageMagick; then
  say "$IM -version does not say ImageMagick; cannot race ImageMagick"
  exit 1
fi
PYTHON=python3
if ! python3 -c 'import PIL' 2>/dev/null; then
  PYTHON=$WORK/venv/bin/python
  if ! "$PYTHON" -c 'import PIL' 2>/dev/null; then
    say "installing Pillow from PyPI into $WORK/venv"
    python3 -m venv "$WORK/venv"
    "$WORK/venv/bin/pip" install -q Pillow >&2
  fi
fi
if [ ! -x "$RETENTION" ]; then
  say "building retention (swift build -c release)"
  swift build -c release --product retention >&2
fi

# --- images -------------------------------------------------------------------------------
if [ ${#images[@]} -eq 0 ]; then
  generated=$WORK/photo-4000x3000-01.png
  if [ ! -f "$generated" ]; then
    say "generating $generated"
    "$RETENTION" assets generate "$WORK" --only photo-4000x3000-01.png >&2
  fi
  elephants=$WORK/elephants-4000x3000.png
  if [ ! -f "$elephants" ]; then
    say "fetching Elephants_5640x3172.jpg from Debian's mate-backgrounds (apt-get download)"
    rm -rf "$WORK/deb" && mkdir -p "$WORK/deb" && chmod 777 "$WORK/deb"  # apt's _apt user writes here
    (cd "$WORK/deb" && apt-get download -qq mate-backgrounds >&2)
    dpkg-deb -x "$WORK"/deb/mate-backgrounds_*.deb "$WORK/deb/root"
    jpeg=$(find "$WORK/deb/root" -name 'Elephants_5640x3172.jpg' | head -n 1)
    [ -n "$jpeg" ] || { say "Elephants_5640x3172.jpg is not in the package"; exit 1; }
    say "cropping 4000x3000 from the centre and saving PNG (zlib 6, adaptive filters)"
    vips crop "$jpeg" "$elephants[compression=6,filter=all,strip]" 820 86 4000 3000
  fi
  images=("$generated" "$elephants")
fi

# --- the race -----------------------------------------------------------------------------
tools=(retention vipsthumbnail imagemagick pillow)

# run TOOL IMAGE: runs one thumbnail (of every file, for a folder) and prints
# "wall_seconds peak_kb cpu_seconds".
run() {
  local tool=$1 image=$2 out=$WORK/out/$1.png stats=$WORK/out/time.txt
  local -a cmd
  if [ -d "$image" ]; then
    local -a files
    mapfile -t files < <(find "$image" -type f -name '*.png' | sort)
    out=$WORK/out/$tool
    rm -rf "$out" && mkdir -p "$out"
    case $tool in
      retention) cmd=("$RETENTION" thumbnail "$image" --size "$SIZE" --jobs 1 -o "$out") ;;
      vipsthumbnail) cmd=(vipsthumbnail "${files[@]}" -s "$SIZE" -o "$out/%s.png") ;;
      imagemagick) cmd=("$MOGRIFY" -path "$out" -format png -thumbnail "${SIZE}x${SIZE}" "${files[@]}") ;;
      pillow) cmd=("$PYTHON" -c 'import os, sys
from PIL import Image
for path in sys.argv[3:]:
    im = Image.open(path); im.thumbnail((int(sys.argv[2]), int(sys.argv[2])), Image.Resampling.LANCZOS); im.save(os.path.join(sys.argv[1], os.path.basename(path)))' "$out" "$SIZE" "${files[@]}") ;;
      idle) cmd=("$RETENTION" --version) ;;
      decode) cmd=("$RETENTION" inspect --decode "${files[@]}") ;;
    esac
  else
    case $tool in
      retention) cmd=("$RETENTION" thumbnail "$image" --size "$SIZE" -o "$out") ;;
      vipsthumbnail) cmd=(vipsthumbnail "$image" -s "$SIZE" -o "$out") ;;
      imagemagick) cmd=("$IM" "$image" -thumbnail "${SIZE}x${SIZE}" "$out") ;;
      pillow) cmd=("$PYTHON" -c 'import sys
from PIL import Image
im = Image.open(sys.argv[1]); im.thumbnail((int(sys.argv[3]), int(sys.argv[3])), Image.Resampling.LANCZOS); im.save(sys.argv[2])' "$image" "$out" "$SIZE") ;;
      idle) cmd=("$RETENTION" --version) ;;
      decode) cmd=("$RETENTION" inspect --decode "$image") ;;
    esac
  fi
  local start=$EPOCHREALTIME
  /usr/bin/time -v -o "$stats" "${cmd[@]}" >/dev/null 2>&1 || { say "$tool failed on $image"; exit 1; }
  local end=$EPOCHREALTIME
  awk -v a="$start" -v b="$end" -F': ' '
    /Maximum resident set size/ { kb = $2 }
    /User time \(seconds\)/ || /System time \(seconds\)/ { cpu += $2 }
    END { printf "%.4f %d %.2f\n", b - a, kb, cpu }' "$stats"
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# goal NAME LABEL COLUMN PEER GOAL: one goal line, from the paired rounds of $results: ours ÷ PEER
# in COLUMN (3 wall, 4 peak, 5 CPU) at most GOAL; met when every round is within it, not met
# when none is, a tie otherwise (saying on which side the median falls).
goal() {
  local name=$1 label=$2 column=$3 peer=$4 goal=$5
  awk -v c="$column" -v p="$peer" '$2 == "retention" { o[$1] = $c } $2 == p { v[$1] = $c } END { for (r in o) print o[r] / v[r] }' "$results" \
    | sort -g | awk -v name="$name" -v label="$label" -v peer="$peer" -v goal="$goal" '{ v[NR] = $1 } END {
        m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        verdict = v[NR] <= goal ? "met" : v[1] > goal ? "not met" : "tie (median " (m <= goal ? "under" : "over") ")"
        printf "- %s: %s ÷ %s %.2fx (%.2f-%.2f), goal <= %.2fx: %s\n", name, label, peer, m, v[1], v[NR], goal, verdict }' >> "$WORK/out/goals.txt"
}

# ratio TOOL COLUMN: the median of TOOL's paired ratios to ours in $results' COLUMN (3 wall, 4 peak, 5 CPU).
ratio() { awk -v t="$1" -v c="$2" '$2 == "retention" { o[$1] = $c } $2 == t { v[$1] = $c } END { for (r in v) print v[r] / o[r] }' "$results" | median; }

: > "$WORK/out/goals.txt"
echo "| image | tool | median wall (s) | wall vs ours | median CPU (s) | CPU vs ours | median peak RSS (MB) | RSS vs ours |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for image in "${images[@]}"; do
  name=$(basename "$image")
  if [ -d "$image" ]; then
    name="$name/ ($(find "$image" -type f -name '*.png' | wc -l) PNGs)"
  fi
  results=$WORK/out/results.txt
  : > "$results"
  for tool in "${tools[@]}" idle decode; do run "$tool" "$image" >/dev/null; done  # warm-up
  for ((round = 0; round < RUNS; round++)); do
    order=("${tools[@]:round % ${#tools[@]}}" "${tools[@]:0:round % ${#tools[@]}}")
    for tool in "${order[@]}" idle decode; do
      echo "$round $tool $(run "$tool" "$image")" >> "$results"
    done
  done
  for tool in "${tools[@]}" decode idle; do
    wall=$(awk -v t="$tool" '$2 == t { print $3 }' "$results" | median)
    rss=$(awk -v t="$tool" '$2 == t { print $4 / 1024 }' "$results" | median)
    cpu=$(awk -v t="$tool" '$2 == t { print $5 }' "$results" | median)
    label=$tool
    case $tool in
      idle) label="retention --version (idle floor)" ;;
      decode) label="retention inspect --decode (libpng full decode)" ;;
      pillow) label="pillow (thumbnail, Lanczos)" ;;
    esac
    printf "| %s | %s | %.3f | %.2fx | %.2f | %.2fx | %.1f | %.2fx |\n" "$name" "$label" "$wall" "$(ratio "$tool" 3)" "$cpu" "$(ratio "$tool" 5)" "$rss" "$(ratio "$tool" 4)"
  done
  goal "$name" CPU 5 vipsthumbnail "${GOAL_CPU:-0.30}"
  goal "$name" CPU 5 pillow "${GOAL_CPU:-0.30}"
  if [ -d "$image" ]; then
    goal "$name" peak 4 pillow "${GOAL_BATCH_PEAK:-1.00}"
  else
    goal "$name" wall 3 vipsthumbnail "${GOAL_WALL:-0.50}"
    goal "$name" peak 4 vipsthumbnail "${GOAL_PEAK:-0.50}"
  fi
  ours=$(awk '$2 == "retention" { print $4 }' "$results" | median)
  idle=$(awk '$2 == "idle" { print $4 }' "$results" | median)
  say "$name: retention peaked $(awk -v a="$ours" -v b="$idle" 'BEGIN { printf "%.1f", (a - b) / 1024 }') MB above its idle floor; $RUNS runs per tool, size $SIZE"
done
echo
echo "Goals (ours ÷ the peer per paired round, median (min-max); met: every round within, not met: none, tie: some):"
cat "$WORK/out/goals.txt"
