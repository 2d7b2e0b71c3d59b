#!/usr/bin/env bash
# encoder-benchmark.sh [--check] [DIR...]: the fast PNG encoder (CPNG's rtn_png_encode_fast, what
# `retention thumbnail` writes with by default) against the zlib path it replaced and libdeflate:
# encode CPU per megapixel and file size, on thumbnails. Prints a markdown table (results.md,
# section `encoder`).
#
# First a check, before any figure: tools/baseline/encoder-bench.c (which compiles in
# Sources/CPNG/encoder.c, writer.c and kernels.c) encodes some 1,500 generated bitmaps (noise,
# flat, gradients, blocks; 1x1, 1xN, Nx1, odd widths; every 8-bit color type) and decodes each
# with libpng to the exact pixels; pngcheck, when installed, must pass every file, and stb_image
# (Debian's libstb-dev), when installed, must decode each to libpng's bytes
# (tools/baseline/stb-decode.c and png-simplified-decode.c, with --dump). Exit 1 when any fails.
# With --check, only this (a few seconds; CI runs it), and one line saying what passed.
#
# Then the sets: `synthetic`, twelve 256x256 bitmaps made in the tool (noise, flat, two
# gradients, blocks, sparse noise; opaque and with alpha); `committed`, the 256 px thumbnails of
# assets/images (`retention thumbnail --size 256`, their pixels do not depend on the encoder);
# and one set per DIR given (its 256 px thumbnails). Each set is encoded by every encoder ROUNDS
# rounds, the order reversed every other round; the time is the thread's CPU time around each
# encoder's pass over the set. Encoders: fast; zlib-rle (libpng's adaptive filter, zlib level 6
# with Z_RLE: `retention thumbnail --compression zlib`, the default before); zlib-6 (zlib's full
# search at level 6, PNGEncoder's default); libdeflate-1 (the same filtered rows, libdeflate's
# zlib stream at level 1, plus the 57 bytes of a file's chunks). Every fast file is decoded and
# compared with its pixels before timing.
#
# Environment: RETENTION (default .build/release/retention, built if missing), ROUNDS (9), SIZE (256).
set -euo pipefail
check_only=0
if [ "${1:-}" = --check ]; then
  check_only=1
  shift
fi
extra=()
for folder in "$@"; do
  [ -d "$folder" ] || { echo "encoder-benchmark: $folder is not a folder" >&2; exit 2; }
  extra+=("$(realpath "$folder")")
done
cd "$(dirname "$0")/.."
RETENTION=${RETENTION:-$PWD/.build/release/retention}
ROUNDS=${ROUNDS:-9}
SIZE=${SIZE:-256}
if [ "$check_only" = 0 ] && [ ! -x "$RETENTION" ]; then
  echo "encoder-benchmark: building retention (swift build -c release)" >&2
  swift build -c release --product retention >&2
fi
CC=${CC:-$(command -v clang || echo cc)}
mkdir -p tools/bin
"$CC" -O2 -w -I Sources/CPNG/include -o tools/bin/encoder-bench tools/baseline/encoder-bench.c \
  Sources/CPNG/encoder.c Sources/CPNG/writer.c Sources/CPNG/kernels.c -lpng16 -lz -ldeflate
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The check.
mkdir -p "$work/check"
checked=$(tools/bin/encoder-bench check "$work/check")
notes=("check: $checked (libpng)")
mapfile -t files < <(find "$work/check" -name '*.png' | sort)
if command -v pngcheck >/dev/null 2>&1; then
  if ! pngcheck -q "${files[@]}" >"$work/pngcheck.txt" 2>&1; then
    cat "$work/pngcheck.txt" >&2
    echo "encoder-benchmark: pngcheck refused a fast encoder's file" >&2
    exit 1
  fi
  notes+=("pngcheck: all ${#files[@]} files OK")
fi
if [ -f /usr/include/stb/stb_image.h ]; then
  "$CC" -O2 -w -I/usr/include/stb -o tools/bin/stb-decode tools/baseline/stb-decode.c -lstb
  "$CC" -O2 -w -o tools/bin/png-simplified-decode tools/baseline/png-simplified-decode.c -lpng16
  mkdir -p "$work/stb" "$work/libpng"
  tools/bin/stb-decode --dump "$work/stb" "${files[@]}" >/dev/null
  tools/bin/png-simplified-decode --dump "$work/libpng" "${files[@]}" >/dev/null
  if ! diff -r -q "$work/stb" "$work/libpng" >&2; then
    echo "encoder-benchmark: stb_image and libpng decode a fast encoder's file differently" >&2
    exit 1
  fi
  notes+=("stb_image: all ${#files[@]} files decode to libpng's RGBA bytes")
fi

if [ "$check_only" = 1 ]; then
  line="encoder-benchmark --check: ${notes[0]}"
  for note in "${notes[@]:1}"; do line+="; $note"; done
  echo "$line"
  exit 0
fi

# The sets.
: > "$work/runs.txt"
tools/bin/encoder-bench bench "$ROUNDS" synthetic >> "$work/runs.txt"
thumbs() {  # thumbs NAME FOLDER: the set's thumbnails, made once
  "$RETENTION" thumbnail "$2" --size "$SIZE" --jobs 1 -o "$work/$1" >/dev/null 2>"$work/$1.err" || { cat "$work/$1.err" >&2; exit 1; }
  mapfile -t thumbnails < <(find "$work/$1" -type f -name '*.png' | sort)
  tools/bin/encoder-bench bench "$ROUNDS" "$1" "${thumbnails[@]}" >> "$work/runs.txt"
}
thumbs committed assets/images
for folder in "${extra[@]}"; do thumbs "$(basename "$folder")" "$folder"; done

python3 - "$work/runs.txt" "$ROUNDS" "$SIZE" "${notes[@]}" <<'PY'
import statistics, sys
path, rounds, size, notes = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
runs = {}
for line in open(path):
    set_, round_, encoder, nbytes, seconds, pixels = line.split()
    runs.setdefault(set_, {}).setdefault(encoder, []).append((int(nbytes), float(seconds), int(pixels)))
print("| set | images MP | encoder | ms per MP | KB | size ÷ zlib-rle | CPU ÷ zlib-rle |")
print("|---|---:|---|---:|---:|---:|---:|")
verdicts = []
for set_, encoders in runs.items():
    ref = encoders["zlib-rle"]
    ref_ms = statistics.median(s for _, s, _ in ref)
    ref_bytes = ref[0][0]
    for encoder, values in encoders.items():
        megapixels = values[0][2] / 1e6
        per_mp = [s * 1000 / megapixels for _, s, _ in values]
        median = statistics.median(per_mp)
        ratio = values[0][0] / ref_bytes
        cpu = statistics.median(s for _, s, _ in values) / ref_ms
        name = f"**{encoder}**" if encoder == "fast" else encoder
        print(f"| {set_} | {megapixels:.2f} | {name} | {median:.2f} ({min(per_mp):.2f}-{max(per_mp):.2f}) | "
              f"{values[0][0] / 1000:.0f} | {ratio:.3f} | {cpu:.2f} |")
    fast = encoders["fast"][0][0] / ref_bytes
    verdicts.append((set_, fast))
worst = max(verdicts, key=lambda v: v[1])
met = all(v[1] <= 1.15 for v in verdicts)
print()
print("Goals (the fast encoder against zlib-rle, `retention thumbnail`'s encoder before it):")
print(f"- its files within 15 % of zlib-rle's on every set: **{'met' if met else 'not met'}** "
      f"(largest: {worst[0]}, {worst[1]:.3f}x)")
print(f"- ms per MP: the thread's CPU time per megapixel encoded, median of {rounds} paired rounds (min-max); "
      f"`synthetic`: twelve 256x256 bitmaps made in the tool, `committed`: the {size} px thumbnails of assets/images")
print("- checked first: " + "; ".join(notes))
PY
