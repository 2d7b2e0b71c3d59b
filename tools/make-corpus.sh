#!/usr/bin/env bash
# make-corpus.sh DIR: fills DIR with a corpus of ordinary 0.8-2.5 MP PNGs for timing thumbnails
# (tools/thumbnail-vs-decode.sh DIR, tools/compare-peers.sh --corpus DIR). Never committed.
# make-corpus.sh --flat DIR: the flat-colour corpus instead (below).
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
# --flat: 0.7-1.2 MP flat-colour PNGs (clip art, screenshots) in DIR/rgb, DIR/rgba and
# DIR/palette, 70 files each, as their packages ship them (no re-encoding) where one fits:
#   rgba:    openclipart-png's RGBA clip art (Inkscape exports; public domain);
#   palette: openclipart-png's palette clip art (most with tRNS transparency);
#   rgb:     debian-edu-doc-en's screenshots of the Debian Edu manual (1024x768 and 1280x800,
#            GPL-2+) and openclipart-png's RGB flags; those are 66 distinct files, so 4 RGBA clip
#            art files flattened onto white by Pillow (saved at zlib level 6) make the 70.
# Only files of 0.7-1.2 MP count; duplicates (the same bytes under two names) count once; each
# kind takes files spread evenly over the sorted list, so the same packages give the same
# corpus. DIR/MANIFEST.tsv records each file's kind, size, package, version, licence, the path
# inside the package and what was done to it. Needs apt-get download (Debian's archive) and
# python3-pil (installed if missing); nothing is ever committed.
#
# Environment: RETENTION (the binary; default .build/release/retention, built if missing).
set -euo pipefail
flat=0
if [ "${1:-}" = --flat ]; then flat=1; shift; fi
[ $# -eq 1 ] || { echo "usage: tools/make-corpus.sh [--flat] DIR" >&2; exit 2; }
mkdir -p "$1"
out=$(realpath "$1")
cd "$(dirname "$0")/.."
RETENTION=${RETENTION:-$PWD/.build/release/retention}
if [ $flat = 0 ] && [ ! -x "$RETENTION" ]; then
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

if [ $flat = 1 ]; then
  packages=(openclipart-png debian-edu-doc-en)
  (cd "$deb" && apt-get download -qq "${packages[@]}" >&2)
  : > "$deb/packages.tsv"
  for package in "${packages[@]}"; do
    file=$(ls "$deb/${package}"_*.deb)
    dpkg-deb -x "$file" "$deb/$package"
    echo "$package	$(dpkg-deb -f "$file" Version)	$deb/$package" >> "$deb/packages.tsv"
  done
  /usr/bin/python3 - "$deb/packages.tsv" "$out" <<'PY'
import glob, hashlib, os, re, sys, warnings
from PIL import Image
warnings.simplefilter('ignore')  # Pillow's decompression-bomb warning on openclipart's 168 MP posters
Image.MAX_IMAGE_PIXELS = None
listing, out = sys.argv[1:]
PER_KIND = 70

def licence(root, package):
    text = open(f'{root}/usr/share/doc/{package}/copyright', errors='replace').read()
    found = re.search(r'^License:\s*(\S.*)$', text, re.M)
    if found:
        return found.group(1).strip()
    return 'public domain' if 'public domain' in text.lower() else 'see /usr/share/doc/%s/copyright' % package

candidates = {'rgb': [], 'rgba': [], 'palette': []}
seen = set()
for line in open(listing):
    package, version, root = line.rstrip('\n').split('\t')
    terms = licence(root, package)
    for path in sorted(glob.glob(root + '/usr/share/**/*.png', recursive=True)):
        if os.path.islink(path):
            continue
        try:
            im = Image.open(path)
        except Exception:
            continue
        w, h = im.size
        if not 0.7e6 <= w * h <= 1.2e6:
            continue
        digest = hashlib.sha256(open(path, 'rb').read()).hexdigest()
        if digest in seen:
            continue
        seen.add(digest)
        kind = {'RGB': 'rgb', 'RGBA': 'rgba', 'P': 'palette'}.get(im.mode)
        if kind:
            candidates[kind].append((package, version, terms, root, path, w, h))

def spread(items, n):
    """n items spread evenly over the sorted list (all of them when there are fewer)."""
    if len(items) <= n:
        return list(items)
    return [items[i * len(items) // n] for i in range(n)]

rows = []
def take(kind, item, flatten=False):
    package, version, terms, root, path, w, h = item
    inside = os.path.relpath(path, root)
    name = package + '-' + os.path.splitext(os.path.basename(path))[0] + ('-on-white' if flatten else '') + '.png'
    os.makedirs(f'{out}/{kind}', exist_ok=True)
    taken = {row[0] for row in rows}
    stem, number = name[:-4], 2
    while f'{kind}/{name}' in taken:  # two files of one name in different folders
        name, number = f'{stem}-{number}.png', number + 1
    target = f'{out}/{kind}/{name}'
    if flatten:
        im = Image.open(path).convert('RGBA')
        white = Image.new('RGBA', im.size, (255, 255, 255, 255))
        Image.alpha_composite(white, im).convert('RGB').save(target, compress_level=6)
        how = 'flattened onto white by Pillow, zlib level 6'
    else:
        with open(path, 'rb') as src, open(target, 'wb') as dst:
            dst.write(src.read())
        how = 'as shipped'
    rows.append((f'{kind}/{name}', kind, f'{w}x{h}', package, version, terms, '/' + inside, how))

rgba = spread(candidates['rgba'], PER_KIND)
for item in rgba:
    take('rgba', item)
for item in spread(candidates['palette'], PER_KIND):
    take('palette', item)
rgb = spread(candidates['rgb'], PER_KIND)
for item in rgb:
    take('rgb', item)
unused = [item for item in candidates['rgba'] if item not in rgba]
for item in spread(unused, PER_KIND - len(rgb)) if len(rgb) < PER_KIND else []:
    take('rgb', item, flatten=True)
with open(f'{out}/MANIFEST.tsv', 'w') as manifest:
    manifest.write('file\tkind\tsize\tpackage\tversion\tlicence\tpath in the package\tmade\n')
    for row in rows:
        manifest.write('\t'.join(row) + '\n')
counts = {kind: sum(1 for r in rows if r[1] == kind) for kind in ('rgb', 'rgba', 'palette')}
print('make-corpus: flat corpus: ' + ', '.join(f'{n} {kind}' for kind, n in counts.items()) + f' in {out}', file=sys.stderr)
PY
  exit 0
fi
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
