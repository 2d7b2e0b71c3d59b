#!/usr/bin/env bash
# cache-scaling-benchmark.sh: does the cache scale with cores? Builds
# tools/cache-scaling-benchmark/Benchmark.swift in release, as a client package of this checkout (every
# call crosses the module boundary as a user's does), and runs it: cache hits, a 9:1 mix of hits
# and appear + disappear, the same lookups on a mutexed dictionary and a lock-free frozen one,
# loads through the cache and thumbnails, at 1, 2, 4, … threads up to the cores and 2x and 4x
# past them; a markdown table of aggregate rates (median of ROUNDS rounds, default 5) and the
# goals met or not. The client lives in .build-cache-scaling-benchmark/ (ignored by git); the
# first release build takes a few minutes on 2 cores. With STATIC=1 it links the Swift runtime
# statically (--static-swift-stdlib), for a machine without Swift.
#
# Usage: tools/cache-scaling-benchmark.sh   (ROUNDS=N, OPERATIONS=N per thread, default 400000)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
  export PATH=/opt/swift/usr/bin:$PATH
fi
folder="$root/.build-cache-scaling-benchmark"
mkdir -p "$folder"
. "$root/tools/client-package.sh"
if [ ! -e "$folder/client/Package.swift" ]; then
  rm -rf "$folder/client" "$folder/retention"
  client_package "$folder" CacheScalingBenchmark CacheScalingBenchmark
fi
rm -f "$folder/client/Sources/CacheScalingBenchmark/main.swift"
cp "$root/tools/cache-scaling-benchmark/Benchmark.swift" "$folder/client/Sources/CacheScalingBenchmark/Benchmark.swift"
flags=(-c release)
[ "${STATIC:-0}" = 1 ] && flags+=(--static-swift-stdlib)
if ! (cd "$folder/client" && swift build "${flags[@]}" > "$folder/build.log" 2>&1); then
  grep -E -A3 "error:" "$folder/build.log" >&2 || tail -n 20 "$folder/build.log" >&2
  echo "cache-scaling-benchmark: the benchmark does not build" >&2
  exit 1
fi
"$folder/client/.build/release/CacheScalingBenchmark"
