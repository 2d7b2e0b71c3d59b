// The load queue's benchmark (tools/load-queue-benchmark.sh builds and runs it in release):
// for each size N, an ImageCache over an asynchronous source with 2 decode workers and the
// default 6 fetch slots is given prefetch(0..<N), then cancelPrefetch(0..<N), then idle(); the
// three wall times and their total are printed, one line per size, with the process's CPU time
// (user + system, every thread) over the three; the goal (100,000 keys in under 1 s in all) is
// judged on that CPU time, which other processes' load does not inflate as it does wall time
// (on 2 busy cores the wall time of the same run was seen to grow 5x).
import Foundation
import Glibc
import Imaging
import Retention

/// The process's CPU time so far (user + system, all threads), from `getrusage`.
func processCPU() -> Duration {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let micro = Int64(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1_000_000 + Int64(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
    return .microseconds(micro)
}

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
    let startCPU = processCPU()
    cache.prefetch(0..<size)
    let prefetched = clock.now
    cache.cancelPrefetch(0..<size)
    let cancelled = clock.now
    await cache.idle()
    let idle = clock.now
    let total = start.duration(to: idle)
    let cpu = processCPU() - startCPU
    print("\(size) keys: prefetch \(seconds(start.duration(to: prefetched))), cancelPrefetch \(seconds(prefetched.duration(to: cancelled))), idle \(seconds(cancelled.duration(to: idle))), total \(seconds(total)) wall, \(seconds(cpu)) CPU")
    if size == 100_000 { goal = (cpu, cpu < .seconds(1)) }
}
if let goal {
    print("goal: 100,000 keys under 1 s of CPU in all: \(goal.met ? "met" : "not met") (\(seconds(goal.total)))")
} else {
    print("goal: 100,000 keys under 1 s of CPU in all: not measured (give 100000 among the sizes)")
}
