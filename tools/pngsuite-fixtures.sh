#!/usr/bin/env bash
# Makes Tests/ImagingTests/Fixtures/pngsuite-imagemagick.tsv: for each PngSuite file that must
# decode, the FNV-1a 64 hash of the RGBA8 pixels ImageMagick gives, an expectation made
# independently of our decoder. ImageMagick 6 applies a file's gAMA chunk on read, so each file
# is first copied without its gAMA/cHRM/sRGB/iCCP chunks (tools/strip-color-chunks.py); then
# ImageMagick reports the stored samples. Its own `-depth 8` truncates 16-bit samples
# (0x0900 becomes 8, not 9), so samples are taken at 16 bits and rounded to 8 here,
# round(v / 257), as libpng's png_set_scale_16 does.
# Usage: tools/pngsuite-fixtures.sh [PNGSUITE_DIR]   (default Tests/Fixtures/pngsuite)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
suite=${1:-$here/Tests/Fixtures/pngsuite}
out=$here/Tests/ImagingTests/Fixtures/pngsuite-imagemagick.tsv
command -v convert-im6.q16 >/dev/null || { echo "needs ImageMagick 6: apt-get install imagemagick" >&2; exit 1; }
{
  echo "# file	width	height	fnv1a64(RGBA8)"
  echo "# made by tools/pngsuite-fixtures.sh with: tools/strip-color-chunks.py FILE T.png; convert-im6.q16 T.png -depth 16 -endian MSB rgba:- | tools/fnv1a64.py --from16"
  echo "# $(convert-im6.q16 -version | head -1)"
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  for original in "$suite"/*.png; do
    name=$(basename "$original")
    case "$name" in x*) continue ;; esac
    f=$tmp/$name
    python3 "$here/tools/strip-color-chunks.py" "$original" "$f"
    size=$(convert-im6.q16 "$f" -format '%w	%h' info: 2>/dev/null | head -1) || continue
    hash=$(convert-im6.q16 "$f" -depth 16 -endian MSB rgba:- 2>/dev/null | python3 "$here/tools/fnv1a64.py" --from16) || continue
    printf '%s\t%s\t%s\n' "$name" "$size" "$hash"
  done
} > "$out"
echo "wrote $out ($(grep -vc '^#' "$out") files)"
