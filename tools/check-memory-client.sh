#!/usr/bin/env bash
# check-memory-client.sh: docs/libraries.md's "Bounding resident memory" example, run as a user
# would. A package in a temporary folder depends on this checkout by path; the section's ```swift
# block becomes its program, with `photos` the paths of the 1200x900 photos in assets/images. The
# program is built and run, and its output must have the form of the section's ```text block:
# "budget 32.0 MB, holding N MB (loads N KB, allocator N MB free), process resident N MB" with
# a holding within the budget plus the three visible bitmaps, then "true". Exit 0 when it does,
# 1 otherwise. About 2 minutes on 2 cores (a debug build of the libraries).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tools/scratch.sh"
. "$root/tools/client-package.sh"
client_package "$scratch" MemoryClient Memory

python3 - "$root/docs/libraries.md" "$scratch/client/Sources/Memory" "$root/assets/images" <<'PY'
import glob, json, re, sys
page, out, images = sys.argv[1:]
text = open(page, encoding="utf-8").read()
found = re.search(r"^### Bounding resident memory\n(.*?)(?=^##+ )", text, flags=re.S | re.M)
if not found:
    sys.exit("check-memory-client: docs/libraries.md has no section '### Bounding resident memory'")
blocks = re.findall(r"^```swift\n(.*?)^```", found.group(1), flags=re.S | re.M)
if len(blocks) != 1:
    sys.exit(f"check-memory-client: expected one ```swift block in the section, found {len(blocks)}")
photos = sorted(glob.glob(images + "/photo-1200x900-*.png"))
if not photos:
    sys.exit("check-memory-client: no photo-1200x900-*.png in assets/images")
lines = blocks[0].splitlines()
imports = [l for l in lines if l.startswith("import ")]
body = [l for l in lines if not l.startswith("import ")]
with open(out + "/main.swift", "w") as f:
    f.write("\n".join(imports) + "\n\n// The names the section takes as given.\n")
    f.write(f"let photos: [String] = {json.dumps(photos)}\n\n")
    f.write("\n".join(body) + "\n")
print(f"check-memory-client: the section's block, with {len(photos)} photos")
PY
client_build "$scratch" check-memory-client "the section's example does not build" || exit 1
client_run "$scratch" check-memory-client Memory 300 || exit 1
python3 - "$scratch/output.txt" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
pattern = r"budget 32\.0 MB, holding ([0-9.]+) MB \(loads [0-9.]+ [KM]B, allocator [0-9.]+ [KM]B free\), process resident ([0-9.]+) MB"
if len(lines) != 2 or not re.fullmatch(pattern, lines[0]) or lines[1] != "true":
    sys.exit("check-memory-client: expected the report line and 'true', got:\n" + "\n".join(lines))
holding, resident = map(float, re.fullmatch(pattern, lines[0]).groups())
# The budget and three visible 1200x900 bitmaps (4.32 MB each).
if holding > 32.0 + 3 * 4.32 + 0.1:
    sys.exit(f"check-memory-client: the cache holds {holding} MB, past its budget and the visible rows")
print(f"check-memory-client: the example prints the budget, the cache's holding ({holding} MB) and the process's resident memory ({resident} MB)")
PY
