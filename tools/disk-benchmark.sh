#!/usr/bin/env bash
# disk-benchmark.sh [bench|open]: the disk store's figures, printed.
#   bench  DiskStoreBenchmarks (Benchmarks/, package-benchmark, a release build): a warm hit of
#          4 KiB and of 64 KiB (wall time per hit, p0 to p100), puts of 4 KiB without and
#          with fsync (time per put, and puts per second), and 128 puts from two threads at
#          once (where the store's locks would show). Stores in $DISK_BENCH_TMP (default
#          /var/tmp; see the benchmark's header for why not /tmp; /dev/shm for A/B runs).
#   open   the open of a store of COUNT (default 1,000,000) entries of 100 bytes, ROUNDS
#          (default 5) times with the page cache dropped before each (root; said when not):
#          when init returns, when the first lookup has run, when the index is complete, with
#          the snapshot of a clean close and without one (rebuilt in the background). The
#          store is kept in $DISK_BENCH_DIR (default /var/tmp/retention-disk-1m, about 4.3 GB
#          for a million entries) so that later runs skip the fill (a few minutes).
# Without an argument, both. The first run resolves and builds the benchmark package.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
  export PATH=/opt/swift/usr/bin:$PATH
fi
what=${1:-all}
if [ "$what" = bench ] || [ "$what" = all ]; then
  cd "$root/Benchmarks"
  swift package --disable-sandbox benchmark --target DiskStoreBenchmarks --format markdown --no-progress 2>/dev/null \
    | grep -E '^(### |\|)'
fi
if [ "$what" = open ] || [ "$what" = all ]; then
  cd "$root"
  # A helper, not a product: the whole release build links it.
  swift build -c release >/dev/null
  "$root/.build/release/DiskStoreCheck" open-bench "${DISK_BENCH_DIR:-/var/tmp/retention-disk-1m}" "${COUNT:-1000000}" "${ROUNDS:-5}"
fi
