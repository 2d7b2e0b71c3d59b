// The load queue's benchmark (tools/load-queue-benchmark.sh builds and runs it in release):
// for each size N, an ImageCache over an asynchronous source with 2 decode workers and the
// default 6 fetch slots is given prefetch(0..<N), then cancelPrefetch(0..<N), then idle(); the
// wall time of each, with the process's CPU time over it (user + system, every thread: the work
// done, which other processes' load does not inflate as it does wall time; on 2 busy cores the
// wall time of one run was seen to grow 5x), and the goal (each of the three over 100,000 keys
// under 1 s, as a caller waits for it) is said met or not met.
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

var goal: [(String, Duration)]?
for size in sizes.isEmpty ? [10_000, 100_000, 1_000_000] : sizes {
    let cache = try ImageCache<Int>(source: ImageSource(fetch: { _ in png }), configuration: .init(policy: .decodedLRU,
                                    mode: .asynchronous(workers: 2)))
    var steps: [(String, Duration, Duration)] = []
    func step(_ name: String, _ body: () async -> Void) async {
        let (start, startCPU) = (clock.now, processCPU())
        await body()
        steps.append((name, start.duration(to: clock.now), processCPU() - startCPU))
    }
    await step("prefetch") { cache.prefetch(0..<size) }
    await step("cancelPrefetch") { cache.cancelPrefetch(0..<size) }
    await step("idle") { await cache.idle() }
    let text = steps.map { "\($0.0) \(seconds($0.1)) (CPU \(seconds($0.2)))" }.joined(separator: ", ")
    print("\(size) keys: \(text); total \(seconds(steps.map(\.1).reduce(.zero, +))) wall, \(seconds(steps.map(\.2).reduce(.zero, +))) CPU")
    if size == 100_000 { goal = steps.map { ($0.0, $0.1) } }
}
if let goal {
    let slowest = goal.max { $0.1 < $1.1 }!
    let met = goal.allSatisfy { $0.1 < .seconds(1) }
    print("goal: prefetch, cancelPrefetch and idle() over 100,000 keys each under 1 s: \(met ? "met" : "not met") (slowest: \(slowest.0), \(seconds(slowest.1)))")
} else {
    print("goal: prefetch, cancelPrefetch and idle() over 100,000 keys each under 1 s: not measured (give 100000 among the sizes)")
}
