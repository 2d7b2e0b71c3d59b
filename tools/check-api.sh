#!/usr/bin/env bash
# check-api.sh [BASELINE]: the public API of the versioned libraries that the last release had
# (Imaging, Retention, DiskCache, MemoryProbe, Visibility; SoakProbe is newer than the 0.1.0
# baseline, so it is checked from the first release that records it) against the last release, by `swift package
# diagnose-api-breaking-changes`. BASELINE defaults to the commit in tools/api-baseline (the
# last release's; 0.1.0 until a later one is recorded). Every break the tool reports must be
# named in CHANGELOG.md's "Unreleased" section by the qualified name it prints (`Type.member`,
# such as `ImageCache.init` or `DiskStoreError.notAStore`); exit 1 listing those that are not,
# or when the tool reported nothing. About 2 minutes on 2 cores (it builds the baseline).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
  export PATH=/opt/swift/usr/bin:$PATH
fi
baseline=${1:-$(tr -d '[:space:]' < tools/api-baseline)}
if ! git cat-file -e "$baseline^{commit}" 2>/dev/null; then
  if [ "$(git rev-parse --is-shallow-repository 2>/dev/null)" = true ]; then
    # A shallow clone (a CI service's default) cannot see the release: say so, loudly.
    echo "check-api: NOT RUN: this clone is shallow and lacks the baseline $baseline; clone with history to check the API"
    exit 0
  fi
  echo "check-api: the baseline $baseline is not in this clone's history" >&2
  exit 1
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# The tool exits 1 on any break; the changelog decides which are accepted.
swift package diagnose-api-breaking-changes "$baseline" --products Imaging Retention DiskCache MemoryProbe Visibility >"$log" 2>&1 || true
python3 - "$log" CHANGELOG.md "$baseline" <<'PY'
import re, sys
log, changelog, baseline = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3]
products = ["Imaging", "Retention", "DiskCache", "MemoryProbe", "Visibility"]
judged = [p for p in products if re.search(rf"(No breaking changes detected|\d+ breaking changes? detected) in {p}\b", log)]
if len(judged) != len(products):
    print("\n".join(log.splitlines()[-20:]), file=sys.stderr)
    print(f"check-api: the diagnosis did not finish for {', '.join(p for p in products if p not in judged)}", file=sys.stderr)
    sys.exit(1)
section = re.search(r"^## Unreleased\b.*?(?=^## |\Z)", changelog, re.S | re.M)
unreleased = section.group(0) if section else ""
breaks = re.findall(r"API breakage: (\w+) ([\w.]+)(.*)", log)
missing = [f"{kind} {name}{rest}" for kind, name, rest in breaks if name not in unreleased]
print(f"check-api: {len(breaks)} API breaks against {baseline[:10]} in {', '.join(products)}; "
      f"{len(breaks) - len(missing)} named in CHANGELOG.md's Unreleased section, {len(missing)} not")
for line in missing:
    print(f"  not in the changelog: {line}", file=sys.stderr)
sys.exit(1 if missing else 0)
PY
