#!/usr/bin/env bash
# make-corpus.sh DIR: fills DIR with a corpus of ordinary 0.8-2.5 MP PNGs for timing thumbnails
# (tools/thumbnail-vs-decode.sh DIR, tools/compare-peers.sh --corpus DIR). Never committed.
#
# The pictures are the wallpapers of Debian's desktop-base and mate-backgrounds packages
# (fetched with `apt-get download`, JPEG and PNG), each scaled with Lanczos to a size between
# 0.8 and 2.5 MP that varies from file to file, saved by Pillow as PNG at zlib level 6: RGBA when
# the source has alpha, otherwise RGB, plus for every third RGB source a 256-color palette copy
# (median cut, dithered, level 9) and for every fifth an RGBA copy with a radial alpha vignette.
# Four generated photos and a UI image (`retention assets generate`, 1200x900) complete it: 57
# files, 31 RGB, 17 RGBA, 9 palette. Pillow comes from Debian's python3-pil (installed if
# missing); another Pillow version may give other bytes, not other pictures.
#
# Environment: RETENTION (the binary; default .build/release/retention, built if missing).
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: tools/make-corpus.sh DIR" >&2; exit 2; }
mkdir -p "$1"
out=$(realpath "$1")
cd "$(dirname "$0")/.."
RETENTION=${RETENTION:-$PWD/.build/release/retention}
if [ ! -x "$RETENTION" ]; then
  echo "make-corpus: building retention (swift build -c release)" >&2
  swift build -c release --product retention >&2
fi
if ! /usr/bin/python3 -c 'import PIL' 2>/dev/null; then
  echo "make-corpus: installing python3-pil with apt-get" >&2
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pil >&2
fi
deb=$(mktemp -d)
trap 'rm -rf "$deb"' EXIT
chmod 777 "$deb"  # apt's _apt user writes here
(cd "$deb" && apt-get download -qq desktop-base mate-backgrounds >&2)
for package in "$deb"/*.deb; do dpkg-deb -x "$package" "$deb/root"; done

/usr/bin/python3 - "$deb/root" "$out" <<'PY'
import glob, os, sys
from PIL import Image
root, out = sys.argv[1:]
files = sorted(glob.glob(root + '/usr/share/backgrounds/mate/**/*.*', recursive=True) +
               glob.glob(root + '/usr/share/plymouth/themes/*/*background*.png') +
               glob.glob(root + '/usr/share/desktop-base/*/grub/grub-16x9.png'))
n = 0  # pictures taken so far
for path in files:
    try:
        im = Image.open(path)
        im.load()
    except Exception:
        continue  # not a picture (an XML slideshow, an SVG)
    base = os.path.splitext(os.path.basename(path))[0]
    if im.size[0] * im.size[1] < 0.7e6 or 'Elephants_' in base:  # too small; Elephants_* repeat Elephants
        continue
    name = os.path.basename(os.path.dirname(path)) + '-' + base
    target = (0.8 + 1.7 * ((n * 7) % 11) / 10) * 1e6  # 0.8-2.5 MP, varied
    w, h = im.size
    if w * h > target:
        s = (target / (w * h)) ** 0.5
        im = im.resize((round(w * s), round(h * s)), Image.LANCZOS)
    if im.mode in ('RGBA', 'LA'):
        im.convert('RGBA').save(f'{out}/{name}-rgba.png', compress_level=6)
    else:
        rgb = im.convert('RGB')
        rgb.save(f'{out}/{name}-rgb.png', compress_level=6)
        if n % 3 == 0:
            rgb.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.FLOYDSTEINBERG).save(f'{out}/{name}-pal.png', compress_level=9)
        if n % 5 == 1:
            vignette = Image.radial_gradient('L').resize(rgb.size).point(lambda v: 255 - v)
            rgba = rgb.copy()
            rgba.putalpha(vignette)
            rgba.save(f'{out}/{name}-vignette-rgba.png', compress_level=6)
    n += 1
PY
"$RETENTION" assets generate "$out" --only photo-1200x900-01.png --only photo-1200x900-02.png \
  --only photo-1200x900-03.png --only photo-1200x900-04.png --only ui-1200x900-01.png >/dev/null
rm -f "$out/MANIFEST.tsv"
echo "make-corpus: $(find "$out" -name '*.png' | wc -l) PNGs in $out" >&2
