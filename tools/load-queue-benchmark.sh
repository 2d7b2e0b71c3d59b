#!/usr/bin/env bash
# load-queue-benchmark.sh: how long does a cache take to drop loads it was asked for? Builds
# tools/load-queue-benchmark/main.swift in release, as a client package of this checkout, and
# runs it: for each size N (default 10000 100000 1000000), an ImageCache over an asynchronous
# source (2 decode workers, 6 fetch slots) gets prefetch(0..<N), cancelPrefetch(0..<N) and
# idle(), and the wall time of each (with the process CPU time over it) is printed; the last line says whether the
# goal, each of the three over 100,000 keys under 1 s, is met. The client package lives in
# .build-load-queue-benchmark/ (ignored by git) so a second run rebuilds only what changed;
# the first release build takes a few minutes on 2 cores.
#
# Usage: tools/load-queue-benchmark.sh [N...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tools/client-package.sh"
folder="$root/.build-load-queue-benchmark"
client_release "$folder" LoadQueueBenchmark load-queue-benchmark "$root/tools/load-queue-benchmark/main.swift"
"$folder/client/.build/release/LoadQueueBenchmark" "$@"
