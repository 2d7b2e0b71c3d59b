#!/usr/bin/env bash
# The decode-path fuzz at length: PNGFuzzTests' "mutated PNGs give the same pixels or the same
# error on the fast path and on libpng" over ROUNDS mutants (default 100,000; `swift test` runs
# 3,000). Each mutant (a lying chunk length, a broken CRC, a truncation, an IHDR field or random
# bytes, half of them with every CRC made to match so the inflate sees the damage) of ten
# originals (PngSuite's 8-bit colour types, tRNS and palette files, an interlaced one, and an
# encoder-written flat image and photo, the photo's data in several IDATs) is decoded by both
# paths, which must give the same pixels or the same error.
# Usage: tools/fuzz-decode-paths.sh [ROUNDS] [SEED]     (about 2 minutes per 100,000 in a debug build)
set -euo pipefail
cd "$(dirname "$0")/.."
export RETENTION_FUZZ_ROUNDS=${1:-100000}
[ -n "${2:-}" ] && export RETENTION_FUZZ_SEED=$2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
swift test --filter 'PNGFuzzTests/mutantsAgreeOnBothPaths' > "$log" 2>&1 || status=$?
grep -E 'fuzz|✘|Test run' "$log" | head -50
exit $status
