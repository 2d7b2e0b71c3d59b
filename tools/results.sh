#!/usr/bin/env bash
# Re-runs every figure the README quotes and writes docs/results.md (each section stamped with
# its commit, date, machine and cost tables), then rewrites the README's quoted blocks from it.
#   tools/results.sh [--repeat N] [--only ID,ID] [--long]
# Without --only: every section but the long ones (about 30 minutes on 2 cores); --long adds a
# 30-minute soak and the cache benchmarks. tools/results.py --sync / --check copy or compare
# the README's blocks without running anything. Exit 1 when a section could not be measured
# (it keeps its last text). CORPUS and FLATCORPUS: corpora already made by tools/make-corpus.sh
# (and --flat) for the sections that use them, instead of making both in every run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
swift build -c release --product retention >/dev/null
exec python3 tools/results.py "$root/.build/release/retention" "$@"
