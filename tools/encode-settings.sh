#!/usr/bin/env bash
# encode-settings.sh DIR... : the size and encode time of thumbnails under every PNG filter
# (none, sub, up, average, paeth, adaptive) and zlib setting (rle; the standard search at
# levels 1, 3, 6 and 9), to choose the thumbnail encoder's defaults by measurement.
#
# For each DIR, `retention thumbnail DIR -s SIZE --jobs 1` makes the thumbnails once (their
# pixels do not depend on the encoder); then tools/baseline/encode-settings.c, which compiles in
# CPNG's own encoder (Sources/CPNG/writer.c, what PNGEncoder calls), encodes all of them with each
# setting, ROUNDS rounds with the order reversed every other round, timing CPU time around the
# encodes alone. Prints per folder one table, a row per filter and a column per zlib setting,
# each cell the total size against libpng's default (adaptive, level 6) and the median CPU ms
# per thumbnail; the setting `retention thumbnail` uses (adaptive, rle) is marked *, and its
# median with the min-max of the rounds follows.
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
filters = list(dict.fromkeys(f for f, _ in runs))
levels = list(dict.fromkeys(z for _, z in runs))
def ms(key):
    return [s * 1000 / count for _, s in runs[key].values()]
print(f"{name}: {count} thumbnails (-s {size}), {len(runs[chosen])} rounds; each cell: size against adaptive at level 6, "
      f"median CPU ms per thumbnail; * = retention thumbnail's setting")
print(f"{'filter':<9}" + "".join(f"{'zlib ' + z:>14}" for z in levels))
for f in filters:
    cells = []
    for z in levels:
        nbytes = next(iter(runs[(f, z)].values()))[0]
        mark = '*' if (f, z) == chosen else ' '
        cells.append(f"{nbytes / ref_bytes:5.2f}x {statistics.median(ms((f, z))):5.2f}{mark}")
    print((f"{f:<9}" + "".join(f"{c:>14}" for c in cells)).rstrip())
best = ms(chosen)
print(f"* {statistics.median(best):.3f} ms ({min(best):.3f}-{max(best):.3f}), "
      f"{next(iter(runs[chosen].values()))[0] / 1000:.0f} KB for the {count} thumbnails")
PY
done
