#!/usr/bin/env bash
# Re-runs every findings table of the README and writes docs/results.md (stamped with commit,
# date, machine and cost tables), then rewrites the README's quoted tables from it.
#   tools/results.sh [--repeat N] [--only ID,ID]      (about 5 minutes on 2 cores)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
swift build -c release --product retention >/dev/null
exec python3 tools/results.py "$root/.build/release/retention" "$@"
