#!/usr/bin/env bash
# check-old-client.sh: a client written against the libraries' 0.1.0 API (the calls as they were,
# with `try` before ImageCache's throwing init) still compiles and runs against this checkout,
# with deprecation warnings only. A new package in a temporary folder depends on the checkout by
# path; its one file uses the API as 0.1.0 clients did (Int limits, isVisible, callerThreadCost,
# DiskTier's budget argument, String keys with a disk tier); it is built, every warning must be a
# deprecation, and it is run, exiting 0 when its checks hold. Exit 0 when all of that holds.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tools/scratch.sh"
. "$root/tools/client-package.sh"
client_package "$scratch" OldClient OldClient
cat > "$scratch/client/Sources/OldClient/main.swift" <<'SWIFT'
import DiskCache
import Foundation
import Imaging
import Retention

// As a 0.1.0 client wrote it.
let folder = NSTemporaryDirectory() + "old-client-\(getpid())"
defer { try? FileManager.default.removeItem(atPath: folder) }
let png = try PNGEncoder().encode(try Bitmap(width: 8, height: 8, fill: RGBA(200, 10, 10)))
let store = try DiskStore(folder: folder, limit: 50_000_000)
let budget: Retention.ByteSize = .megabytes(10)
var policy = RetentionPolicy.decodedLRUDisk
policy.disk = RetentionPolicy.DiskTier(source: true, thumbnails: false, budget: budget)
let cache = try ImageCache(source: ImageSource<String> { _ in png }, policy: policy, mode: .synchronous, disk: store)
let outcome = cache.appeared("a")
precondition(cache.isVisible("a"), "isVisible answers")
precondition(outcome.callerThreadCost >= .zero)
precondition(cache.cachedImage(for: "a")?.width == 8)
cache.disappeared("a")
precondition(!cache.isVisible("a"))
_ = store.trim(to: 1_000_000)
store.close()
// A bare 150 meant as megabytes is refused, not a store that holds nothing.
do {
    _ = try DiskStore(folder: folder + "-tiny", limit: 150)
    preconditionFailure("a 150-byte store was made")
} catch {
    precondition("\(error)".hasPrefix("a disk store limit of 150 bytes holds nothing; give at least 65536 bytes"), "\(error)")
}
print("old client: ran")
SWIFT
cd "$scratch/client"
if ! swift build > "$scratch/build.log" 2>&1; then
  grep -E -A3 "error:" "$scratch/build.log" >&2 || tail -n 20 "$scratch/build.log" >&2
  echo "check-old-client: a 0.1.0 client no longer compiles (above)" >&2
  exit 1
fi
warnings=$(grep -E "OldClient/main.swift:[0-9]+:[0-9]+: warning:" "$scratch/build.log" | sort -u || true)
others=$(printf '%s\n' "$warnings" | grep -v "is deprecated" | grep . || true)
if [ -n "$others" ]; then
  printf '%s\n' "$others" >&2
  echo "check-old-client: warnings other than deprecations (above)" >&2
  exit 1
fi
"$scratch/client/.build/debug/OldClient"
echo "check-old-client: a 0.1.0 client compiles with $(printf '%s\n' "$warnings" | grep -c . || true) deprecation warnings and runs"
