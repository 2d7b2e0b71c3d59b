#!/usr/bin/env bash
# check-network-client.sh: docs/libraries.md's "A network-backed cache, step by step", run as a
# user would. A package in a temporary folder depends on this checkout by path (as
# check-readme-snippets.sh's does, which only compiles); every ```swift block of that section
# becomes one step of a program (a function each, called in order), with `url` a 600x400 PNG of
# assets/images and `cacheFolder` a new folder; the program is built, run, and what it prints
# must equal the section's ```text block line for line. Exit 0 when it does, 1 otherwise. About
# 2 minutes on 2 cores (a debug build of the libraries).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tools/scratch.sh"
. "$root/tools/client-package.sh"
client_package "$scratch" NetworkClient Network

python3 - "$root/docs/libraries.md" "$scratch/client/Sources/Network" "$root/assets/images/photo-600x400-01.png" \
  "$scratch/cache" "$scratch/expected.txt" <<'PY'
import json, re, sys
page, out, image, folder, expected = sys.argv[1:]
text = open(page, encoding="utf-8").read()
found = re.search(r"^### A network-backed cache, step by step\n(.*?)(?=^### )", text, flags=re.S | re.M)
if not found:
    sys.exit("check-network-client: docs/libraries.md has no section '### A network-backed cache, step by step'")
section = found.group(1)
blocks = re.findall(r"^```swift\n(.*?)^```", section, flags=re.S | re.M)
outputs = re.findall(r"^```text\n(.*?)^```", section, flags=re.S | re.M)
if not blocks or len(outputs) != 1:
    sys.exit(f"check-network-client: expected ```swift blocks and one ```text block (what they print), found {len(blocks)} and {len(outputs)}")
imports = set()
steps = []
for block in blocks:
    lines = block.splitlines()
    imports.update(l for l in lines if l.startswith("import "))
    steps.append("\n".join("    " + l for l in lines if not l.startswith("import ")))
with open(out + "/Given.swift", "w") as f:
    f.write("import Foundation\n\n// The names the section takes as given.\n")
    f.write(f"let url = URL(fileURLWithPath: {json.dumps(image)})\nlet cacheFolder = {json.dumps(folder)}\n")
with open(out + "/Steps.swift", "w") as f:
    f.write("\n".join(sorted(imports | {"import Foundation"})) + "\n\n")
    for index, body in enumerate(steps):
        f.write(f"func step{index + 1}() async throws {{\n{body}\n}}\n\n")
with open(out + "/main.swift", "w") as f:
    f.write("".join(f"try await step{index + 1}()\n" for index in range(len(steps))))
open(expected, "w").write(outputs[0])
print(f"check-network-client: {len(steps)} blocks of docs/libraries.md's network section")
PY
client_build "$scratch" check-network-client "the network section does not build (stepN is its N-th swift block)" || exit 1
client_run "$scratch" check-network-client Network 120 || exit 1
if ! diff -u "$scratch/expected.txt" "$scratch/output.txt" >&2; then
  echo "check-network-client: the program's output (+) differs from what docs/libraries.md says it prints (-)" >&2
  exit 1
fi
echo "check-network-client: the network section runs from a client package and prints what the page says ($(wc -l < "$scratch/output.txt") lines)"
