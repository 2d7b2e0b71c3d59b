// The load queue's benchmark (tools/load-queue-benchmark.sh builds and runs it in release):
// for each size N, an ImageCache over an asynchronous source with 2 decode workers and the
// default 6 fetch slots is given prefetch(0..<N), then cancelPrefetch(0..<N), then idle(); the
// three wall times and their total are printed, one line per size, and the goal (100,000 keys
// in under 1 s in all) is said met or not met. Wall time, on purpose: idle() waits for threads.
import Foundation
import Imaging
import Retention

let sizes = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let png = try PNGEncoder().encode(Bitmap(width: 1, height: 1, fill: RGBA(9, 9, 9)))
let clock = ContinuousClock()

func seconds(_ duration: Duration) -> String {
    let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    return String(format: "%.3f s", value)
}

var goal: (total: Duration, met: Bool)?
for size in sizes.isEmpty ? [10_000, 100_000, 1_000_000] : sizes {
    let cache = try ImageCache<Int>(source: ImageSource(fetch: { _ in png }), policy: .decodedLRU,
                                    mode: .asynchronous(workers: 2))
    let start = clock.now
    cache.prefetch(0..<size)
    let prefetched = clock.now
    cache.cancelPrefetch(0..<size)
    let cancelled = clock.now
    await cache.idle()
    let idle = clock.now
    let total = start.duration(to: idle)
    print("\(size) keys: prefetch \(seconds(start.duration(to: prefetched))), cancelPrefetch \(seconds(prefetched.duration(to: cancelled))), idle \(seconds(cancelled.duration(to: idle))), total \(seconds(total))")
    if size == 100_000 { goal = (total, total < .seconds(1)) }
}
if let goal {
    print("goal: 100,000 keys under 1 s in all: \(goal.met ? "met" : "not met") (\(seconds(goal.total)))")
} else {
    print("goal: 100,000 keys under 1 s in all: not measured (give 100000 among the sizes)")
}
