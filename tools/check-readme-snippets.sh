#!/usr/bin/env bash
# Compiles the Swift library snippets of the README and the libraries' guide as a client package would: a new package in a
# temporary folder depends on this checkout by path, and every ```swift block becomes the body
# of a function in it (imports hoisted to the top, shared by all). The
# snippets are type-checked and built, not run; names they take as given (`paths`, `pngData`,
# the `cache` of the cache example, `cacheFolder`, `network`, `url` of the disk tier's, and `photos` of
# the resident-memory example) are declared here. A block whose first line is `// Package.swift` is the manifest example and
# is checked for the product names instead. Exit 0 when everything builds, 1 otherwise.
#   tools/check-readme-snippets.sh [PAGE.md ...]   (default: README.md and docs/libraries.md, the
#   libraries' guide, disk tier included; recording-traces.md's SwiftUI code is for an app, not Linux)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -gt 0 ]; then pages=("$@"); else pages=("$root/README.md" "$root/docs/libraries.md"); fi
. "$root/tools/scratch.sh"
. "$root/tools/client-package.sh"
client_package "$scratch" SnippetClient Snippets

python3 - "$scratch/client/Sources/Snippets" "${pages[@]}" <<'PY'
import re, sys
out, pages = sys.argv[1], sys.argv[2:]
blocks = []
for page in pages:
    text = open(page, encoding="utf-8").read()
    blocks += re.findall(r"^```swift\n(.*?)^```", text, flags=re.S | re.M)
readme = ", ".join(pages)
imports, bodies, manifests = set(), [], 0
for block in blocks:
    lines = block.splitlines()
    if lines and lines[0].startswith("// Package.swift"):
        manifests += 1
        for product in re.findall(r'\.product\(name: "(\w+)", package: "retention"\)', block):
            if product not in ("Imaging", "Retention", "MemoryProbe", "Visibility", "Lab", "DiskCache"):
                sys.exit(f"a manifest example names an unknown product {product}")
        continue
    imports.update(l for l in lines if l.startswith("import "))
    bodies.append("\n".join("    " + l for l in lines if not l.startswith("import ")))
if not bodies:
    sys.exit("no ```swift blocks found in " + readme)
with open(out + "/Snippets.swift", "w") as f:
    f.write("\n".join(sorted(imports | {"import Foundation", "import Retention"})) + "\n\n")
    f.write("// Names the README's snippets take as given.\nlet paths = [\"photo.png\"]\nlet pngData = Data()\nlet cache = try! ImageCache<Int>(source: .files { _ in \"photo.png\" }, configuration: .default)\nlet cacheFolder = \"/tmp/cache\"\nlet network = ImageSource<URL> { url in try Data(contentsOf: url) }\nlet url = URL(fileURLWithPath: \"/tmp/photo.png\")\nlet photos = [\"photo.png\"]\n\n")
    for i, body in enumerate(bodies):
        f.write(f"func snippet{i}() async throws {{\n{body}\n}}\n\n")
with open(out + "/main.swift", "w") as f:
    f.write("// Built, not run: the snippets need files that are not here.\n")
print(f"{len(bodies)} snippets, {manifests} manifest example(s)")
PY
client_build "$scratch" check-readme-snippets \
  "a snippet does not compile (above; snippetN is the N-th swift block, from 0, of the pages in order)" || exit 1
tail -n 1 "$scratch/build.log"
echo "check-readme-snippets: every snippet compiles"
