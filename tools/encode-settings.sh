#!/usr/bin/env bash
# encode-settings.sh DIR... : the size and encode time of thumbnails under every PNG filter
# (none, sub, up, average, paeth, adaptive) and zlib setting (rle; the standard search at
# levels 1, 3, 6 and 9), to choose the thumbnail encoder's defaults by measurement.
#
# For each DIR, `retention thumbnail DIR -s SIZE --jobs 1` makes the thumbnails once (their
# pixels do not depend on the encoder); then tools/baseline/encode-settings.c, which compiles in
# CPNG's own encoder (Sources/CPNG/writer.c, what PNGEncoder calls), encodes all of them with each
# setting, ROUNDS rounds with the order reversed every other round, timing CPU time around the
# encodes alone. Prints per folder and setting: the total size, the size against libpng's
# default (adaptive, level 6), the median CPU ms per thumbnail, and the median (min-max) of the
# per-round ratios of CPU time to the setting `retention thumbnail` uses (adaptive, rle; marked *).
#
# Environment: RETENTION (default .build/release/retention, built if missing), SIZE (256),
# ROUNDS (5).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: tools/encode-settings.sh DIR..." >&2; exit 2; }
folders=()
for folder in "$@"; do
  [ -d "$folder" ] || { echo "encode-settings: $folder is not a folder" >&2; exit 2; }
  folders+=("$(realpath "$folder")")
done
cd "$(dirname "$0")/.."
RETENTION=${RETENTION:-$PWD/.build/release/retention}
SIZE=${SIZE:-256}
ROUNDS=${ROUNDS:-5}
if [ ! -x "$RETENTION" ]; then
  echo "encode-settings: building retention (swift build -c release)" >&2
  swift build -c release --product retention >&2
fi
mkdir -p tools/bin
"${CC:-$(command -v clang || echo cc)}" -O2 -w -I Sources/CPNG/include -o tools/bin/encode-settings tools/baseline/encode-settings.c Sources/CPNG/writer.c Sources/CPNG/kernels.c -lpng16 -lz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for folder in "${folders[@]}"; do
  name=$(basename "$folder")
  "$RETENTION" thumbnail "$folder" -s "$SIZE" --jobs 1 -o "$work/$name" >/dev/null
  mapfile -t thumbnails < <(find "$work/$name" -type f -name '*.png' | sort)
  tools/bin/encode-settings "$ROUNDS" "${thumbnails[@]}" > "$work/$name.txt"
  python3 - "$work/$name.txt" "$name" "${#thumbnails[@]}" "$SIZE" <<'PY'
import statistics, sys
path, name, count, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
runs = {}
for line in open(path):
    round_, filter_, zlib, nbytes, seconds = line.split()
    runs.setdefault((filter_, zlib), {})[int(round_)] = (int(nbytes), float(seconds))
chosen = ('adaptive', 'rle')  # retention thumbnail's setting
reference = ('adaptive', '6')  # libpng's default
ref_bytes = next(iter(runs[reference].values()))[0]
print(f"{name}: {count} thumbnails (-s {size}), {len(runs[chosen])} rounds; * = retention thumbnail's setting")
print(f"{'filter':<9} {'zlib':>4} {'KB':>8} {'size vs adaptive/6':>19} {'CPU ms each':>12} {'CPU vs *, median (min-max)':>28}")
for (filter_, zlib), rounds in runs.items():
    nbytes = next(iter(rounds.values()))[0]
    ms = statistics.median(s for _, s in rounds.values()) * 1000 / count
    ratios = [rounds[r][1] / runs[chosen][r][1] for r in rounds]
    spread = f"{statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f})"
    mark = '*' if (filter_, zlib) == chosen else ''
    print(f"{filter_ + mark:<9} {zlib:>4} {nbytes / 1000:>8.0f} {nbytes / ref_bytes:>18.3f}x {ms:>12.3f} {spread:>28}")
PY
done
