#!/usr/bin/env bash
# cache-benchmark.sh: runs the ImageCache benchmarks (Benchmarks/, ordo-one/package-benchmark with
# its malloc interposer) in a release build and prints their markdown tables: wall time and
# mallocs per cached hit, per miss, per appear + disappear, under eviction churn, and the
# bookkeeping bytes per entry (from the heap over 10,000 entries, and from the type layouts).
# The first run resolves and builds the benchmark package (a few minutes).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root/Benchmarks"
swift package --disable-sandbox benchmark --target CacheBenchmarks --format markdown --no-progress --time-units nanoseconds 2>/dev/null \
  | grep -E '^(### |\|)'
