#!/usr/bin/env bash
# Fails when the module graph in docs/ARCHITECTURE.md (the ```graph block) differs from the
# targets' dependencies in Package.swift (test targets are not part of the graph), or when a
# target's sources import a module of this package it does not declare, or declare one (or
# ArgumentParser) that no source imports. C targets' headers are not read.
set -euo pipefail
cd "$(dirname "$0")/.."
swift package dump-package 2>/dev/null | python3 -c '
import json, re, sys
package = json.load(sys.stdin)
actual = {}
paths = {}
for target in package["targets"]:
    if target["type"] == "test":
        continue
    names = []
    for dependency in target["dependencies"]:
        kind, value = next(iter(dependency.items()))
        names.append(value[0])
    actual[target["name"]] = set(names)
    paths[target["name"]] = target.get("path") or "Sources/" + target["name"]
text = open("docs/ARCHITECTURE.md").read()
block = re.search(r"```graph\n(.*?)```", text, re.S)
if not block:
    sys.exit("check-architecture: docs/ARCHITECTURE.md has no ```graph block")
documented = {}
for line in block.group(1).strip().splitlines():
    name, _, rest = line.partition("->")
    documented[name.strip()] = {d.strip() for d in rest.split(",") if d.strip()}
problems = []
for name in sorted(set(actual) | set(documented)):
    if actual.get(name) != documented.get(name):
        problems.append(f"  {name}: Package.swift {sorted(actual.get(name, []))}, ARCHITECTURE.md {sorted(documented.get(name, []))}")
import os
for name, declared in sorted(actual.items()):
    imported = set()
    swift = False
    for folder, _, files in os.walk(paths[name]):
        for file in files:
            if file.endswith(".swift"):
                swift = True
                imported |= set(re.findall(r"^(?:@[\w()]+ )*(?:(?:public|package|internal|fileprivate|private) )?import (\w+)", open(os.path.join(folder, file)).read(), re.M))
    if not swift:
        continue
    undeclared = sorted((imported & set(actual)) - declared)
    unused = sorted(declared - imported)
    if undeclared:
        problems.append(f"  {name}: imports {undeclared} without declaring them")
    if unused:
        problems.append(f"  {name}: declares {unused} but no source imports them")
if problems:
    sys.exit("check-architecture: the graph differs:\n" + "\n".join(problems))
print(f"check-architecture: {len(actual)} targets, graph matches Package.swift and every target imports what it declares")
'
