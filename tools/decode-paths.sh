#!/usr/bin/env bash
# The two decode paths (the whole-image fast path and libpng alone) at length, beyond what
# `swift test` runs:
#   tools/decode-paths.sh --fuzz [ROUNDS] [SEED]
#     PNGFuzzTests' "mutated PNGs give the same pixels or the same error …" over ROUNDS mutants
#     (default 100,000; `swift test` runs 3,000): each mutant (a lying chunk length, a broken
#     CRC, a truncation, an IHDR field or random bytes, half of them with every CRC made to match
#     so the inflate sees the damage) of twelve originals (PngSuite's 8-bit colour types, tRNS
#     and palette files, a 4-bit and a 2-bit palette, an interlaced one, an encoder-written flat
#     image and photo, the photo's data in several IDATs) is decoded by both paths, which must
#     agree. About 30 s a 100,000.
#   tools/decode-paths.sh DIR...
#     DecodePathTests' "the assets and generated images …" test, which then also decodes every
#     PNG below each DIR both ways, from memory and from its path, and fails on any file whose
#     pixels or error differ: for corpora too large to vendor (tools/make-corpus.sh's photos,
#     tools/make-corpus.sh --flat's flat images).
set -euo pipefail
if [ "${1:-}" = --fuzz ]; then
  export RETENTION_FUZZ_ROUNDS=${2:-100000}
  [ -n "${3:-}" ] && export RETENTION_FUZZ_SEED=$3
  filter='PNGFuzzTests/mutantsAgreeOnBothPaths'
else
  [ $# -ge 1 ] || { echo "usage: tools/decode-paths.sh --fuzz [ROUNDS] [SEED] | DIR..." >&2; exit 2; }
  folders=()
  for dir in "$@"; do
    [ -d "$dir" ] || { echo "decode-paths: $dir is not a folder" >&2; exit 2; }
    folders+=("$(realpath "$dir")")
  done
  RETENTION_DECODE_CORPORA=$(IFS=:; echo "${folders[*]}")
  export RETENTION_DECODE_CORPORA
  filter='DecodePathTests/generated'
fi
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
swift test --filter "$filter" > "$log" 2>&1 || status=$?
grep -E 'fuzz|decode paths:|✘|Test run' "$log" | head -50
exit $status
