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
. "$root/tools/client-package.sh"
folder="$root/.build-cache-scaling-benchmark"
client_release "$folder" CacheScalingBenchmark cache-scaling-benchmark "$root/tools/cache-scaling-benchmark/Benchmark.swift"
"$folder/client/.build/release/CacheScalingBenchmark"
