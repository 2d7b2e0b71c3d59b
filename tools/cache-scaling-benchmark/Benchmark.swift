// The cache's thread-scaling benchmark (tools/cache-scaling-benchmark.sh builds it in release,
// as a client package of this checkout, so every call crosses the module boundary as a user's
// does). An ImageCache holds 64 decoded 64x64 images, all visible; T threads (1, 2, 4, … up to
// the cores, then 2x and 4x past them) each do N operations at once:
// - hits: cachedImage(for:) of a visible row;
// - mix: 9 such hits and one appeared + disappeared of the same row (it stays visible);
// - the baselines: the same lookups on a Synchronization.Mutex around a [Int: Bitmap] in this
//   module, and lock-free reads of a frozen dictionary, once only checked and once handed over
//   retained as the cache hands a hit over (what the machine allows a lookup that returns a
//   shared object);
// - loads: a cache with T decode workers loading 600x400 PNGs (prefetch, then idle());
// - thumbnails: T threads each making 256 px thumbnails of 1200x900 PNGs.
// Aggregate millions of operations a second (wall time over all threads, the median of ROUNDS
// rounds, with its spread), each row's scaling against one thread, and the goals met or not.
import Foundation
import Glibc
import Imaging
import Retention
import Synchronization

/// A Mutex around a dictionary, in this module: the baseline a hit is compared with.
final class LockedDictionary: Sendable {
    let mutex: Mutex<[Int: Bitmap]>
    init(_ value: [Int: Bitmap]) { mutex = Mutex(value) }
}

let keys = 64

/// A key sequence per thread that visits every key: (i × 7 + thread) mod 64.
@inline(__always) func key(_ i: Int, _ thread: Int) -> Int { (i &* 7 &+ thread) & (keys - 1) }

@main
enum CacheScalingBenchmark {
    static func main() throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let rounds = max(1, Int(ProcessInfo.processInfo.environment["ROUNDS"] ?? "5") ?? 5)
        /// ONLY=hits,mix,dictionary,frozen,frozen-retained,loads,thumbnails runs some rows (for a profile); default all.
        let only = Set((ProcessInfo.processInfo.environment["ONLY"] ?? "").split(separator: ",").map(String.init))
        func wanted(_ id: String) -> Bool { only.isEmpty || only.contains(id) }
        let operations = max(1000, Int(ProcessInfo.processInfo.environment["OPERATIONS"] ?? "400000") ?? 400_000)
        var threadCounts: [Int] = []
        var t = 1
        while t <= cores { threadCounts.append(t); t *= 2 }
        if threadCounts.last != cores { threadCounts.append(cores) }
        threadCounts += [cores * 2, cores * 4]

        /// Runs `body(thread)` on `threads` threads started together; returns the wall time from the
        /// start signal until the last one ended.
        func together(_ threads: Int, _ body: @escaping @Sendable (Int) -> Void) -> Duration {
            let ready = DispatchSemaphore(value: 0), go = DispatchSemaphore(value: 0), done = DispatchGroup()
            for index in 0..<threads {
                done.enter()
                let thread = Thread {
                    ready.signal()
                    go.wait()
                    body(index)
                    done.leave()
                }
                thread.stackSize = 1 << 20
                thread.start()
            }
            for _ in 0..<threads { ready.wait() }
            let clock = ContinuousClock()
            let start = clock.now
            for _ in 0..<threads { go.signal() }
            done.wait()
            return start.duration(to: clock.now)
        }

        func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }

        func median(_ values: [Double]) -> Double {
            let sorted = values.sorted()
            return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        }

        /// Millions of operations a second over `rounds` rounds: median, min, max.
        func measure(_ threads: Int, perThread: Int, _ body: @escaping @Sendable (Int) -> Void) -> (Double, Double, Double) {
            var rates: [Double] = []
            for _ in 0..<rounds {
                let wall = together(threads, body)
                rates.append(Double(threads * perThread) / seconds(wall) / 1e6)
            }
            return (median(rates), rates.min()!, rates.max()!)
        }

        let small = try PNGEncoder().encode(Bitmap(width: 64, height: 64, fill: RGBA(40, 80, 120)))
        let cache = try ImageCache<Int>(source: .memory(Dictionary(uniqueKeysWithValues: (0..<keys).map { ($0, small) })), configuration: .init(
                                        policy: .decodedLRU, mode: .asynchronous(workers: 2)))
        for key in 0..<keys { _ = cache.appeared(key) }
        cache.waitForIdle()
        guard (0..<keys).allSatisfy({ cache.cachedImage(for: $0) != nil }) else { fatalError("the 64 rows did not load") }
        let bitmaps = Dictionary(uniqueKeysWithValues: (0..<keys).map { ($0, cache.cachedImage(for: $0)!) })
        let locked = LockedDictionary(bitmaps)
        let frozen = bitmaps

        /// A key sequence per thread that visits every key: (i × 7 + thread) mod 64.


        struct Row { var name: String; var rates: [Int: (Double, Double, Double)] = [:] }
        var rows: [Row] = []

        /// The lookup rows, measured together below: each round runs every row at every thread
        /// count once, so a slow spell of the host (another VM, a frequency step) spreads over
        /// all of them instead of sinking the rows that happened to run in it.
        var lookups: [(name: String, perThread: Int, body: @Sendable (Int) -> Void)] = []
        func run(_ name: String, id: String, perThread: Int, _ body: @escaping @Sendable (Int) -> Void) {
            guard wanted(id) else { return }
            lookups.append((name, perThread, body))
        }

        run("cache hits", id: "hits", perThread: operations) { thread in
            var found = 0
            for i in 0..<operations where cache.cachedImage(for: key(i, thread)) != nil { found &+= 1 }
            precondition(found == operations)
        }
        run("Mutex'd dictionary", id: "dictionary", perThread: operations) { thread in
            var found = 0
            for i in 0..<operations where locked.mutex.withLock({ $0[key(i, thread)] }) != nil { found &+= 1 }
            precondition(found == operations)
        }
        run("frozen dictionary, no lock", id: "frozen", perThread: operations) { thread in
            var found = 0
            for i in 0..<operations where frozen[key(i, thread)] != nil { found &+= 1 }
            precondition(found == operations)
        }
        run("frozen dictionary, no lock, returning the bitmap", id: "frozen-retained", perThread: operations) { thread in
            // As cachedImage(for:) does: the bitmap handed over retained (an atomic on its
            // count, a line the threads hitting that row share), then released by the caller.
            var found = 0
            for i in 0..<operations where taken(frozen[key(i, thread)]) { found &+= 1 }
            precondition(found == operations)
        }
        run("cache mix (9 hits : 1 appear + disappear)", id: "mix", perThread: operations) { thread in
            for i in 0..<operations {
                let k = key(i, thread)
                if i % 10 == 9 {
                    _ = cache.appeared(k)
                    cache.disappeared(k)
                } else {
                    precondition(cache.cachedImage(for: k) != nil)
                }
            }
        }

        var samples = lookups.map { _ in [Int: [Double]]() }
        for round in 0..<rounds where !lookups.isEmpty {
            FileHandle.standardError.write("cache-scaling-benchmark: lookups, round \(round + 1) of \(rounds): every row at \(threadCounts.map(String.init).joined(separator: ", ")) threads\n".data(using: .utf8)!)
            for (index, row) in lookups.enumerated() {
                for threads in threadCounts {
                    let wall = together(threads, row.body)
                    samples[index][threads, default: []].append(Double(threads * row.perThread) / seconds(wall) / 1e6)
                }
            }
        }
        for (index, row) in lookups.enumerated() {
            var measured = Row(name: row.name)
            for threads in threadCounts {
                let rates = samples[index][threads]!
                measured.rates[threads] = (median(rates), rates.min()!, rates.max()!)
            }
            rows.append(measured)
        }

        // Loads: 600x400 PNGs decoded by a cache with T workers.
        let photo = try PNGEncoder().encode(Bitmap(width: 600, height: 400, fill: RGBA(10, 120, 200)))
        let loadsPerRound = 240
        var loadRow = Row(name: "cache loads (600x400, T workers), thousands a second")
        for threads in threadCounts where wanted("loads") {
            FileHandle.standardError.write("cache-scaling-benchmark: loads, \(threads) workers\n".data(using: .utf8)!)
            var rates: [Double] = []
            for _ in 0..<rounds {
                let loader = try ImageCache<Int>(source: ImageSource { _ in photo }, configuration: .init(policy: .decodedRelease, mode: .asynchronous(workers: threads)))
                let clock = ContinuousClock()
                let start = clock.now
                loader.prefetch(0..<(loadsPerRound * threads))
                loader.waitForIdle()
                rates.append(Double(loadsPerRound * threads) / seconds(start.duration(to: clock.now)) / 1e3)
            }
            loadRow.rates[threads] = (median(rates), rates.min()!, rates.max()!)
        }
        if wanted("loads") { rows.append(loadRow) }

        // Thumbnails: T threads, each 256 px thumbnails of a 1200x900 PNG.
        let large = try PNGEncoder().encode(Bitmap(width: 1200, height: 900, fill: RGBA(200, 90, 30)))
        let thumbnailsPerThread = 24
        var thumbRow = Row(name: "thumbnails (1200x900 to 256 px), thousands a second")
        for threads in threadCounts where wanted("thumbnails") {
            FileHandle.standardError.write("cache-scaling-benchmark: thumbnails, \(threads) threads\n".data(using: .utf8)!)
            let rate = measure(threads, perThread: thumbnailsPerThread) { _ in
                let thumbnailer = Thumbnailer(maxPixelSize: 256)
                for _ in 0..<thumbnailsPerThread { _ = try! thumbnailer.thumbnail(large) }
            }
            thumbRow.rates[threads] = (rate.0 * 1e3, rate.1 * 1e3, rate.2 * 1e3)
        }
        if wanted("thumbnails") { rows.append(thumbRow) }

        print("| operation | " + threadCounts.map { "\($0) thread\($0 == 1 ? "" : "s")" }.joined(separator: " | ") + " |")
        print("|---|" + threadCounts.map { _ in "---|" }.joined())
        func cell(_ rate: (Double, Double, Double), _ one: Double, _ threads: Int) -> String {
            let text = rate.0 >= 100 ? String(format: "%.0f", rate.0) : String(format: "%.2f", rate.0)
            return threads == 1 ? "\(text) (\(String(format: "%.2f", rate.1))–\(String(format: "%.2f", rate.2)))"
                : "\(text) (\(String(format: "%.1f", rate.0 / one))×)"
        }
        for row in rows {
            let one = row.rates[1]!.0
            print("| \(row.name) | " + threadCounts.map { cell(row.rates[$0]!, one, $0) }.joined(separator: " | ") + " |")
        }
        print("")
        let byName = Dictionary(uniqueKeysWithValues: rows.map { ($0.name, $0) })
        guard let hits = byName["cache hits"], let mutexed = byName["Mutex'd dictionary"],
              let mix = byName["cache mix (9 hits : 1 appear + disappear)"], wanted("thumbnails") else { return }
        print("Goals (on \(cores) cores, \(rounds) rounds, \(operations) operations a thread; millions of operations a second unless said):")
        let hitCost = 1 / hits.rates[1]!.0, dictCost = 1 / mutexed.rates[1]!.0
        print("- a visible-row hit from a client module ≤ 2× a mutexed dictionary lookup, one thread: \(hitCost <= 2 * dictCost ? "met" : "not met") (\(String(format: "%.0f", hitCost * 1000)) ns against \(String(format: "%.0f", dictCost * 1000)) ns, \(String(format: "%.2f", hitCost / dictCost))×)")
        /// Whether `row` reaches `factor` × T × one thread's at every T up to the cores (and, with
        /// `pastCores`, one thread's at every T past them), and its closest point.
        func scaling(_ row: Row, _ factor: Double, pastCores: Bool = false) -> (Bool, String) {
            let one = row.rates[1]!.0
            var met = true
            var worst = ""
            var worstRatio = Double.infinity
            for threads in threadCounts where threads > 1 && (threads <= cores || pastCores) {
                let rate = row.rates[threads]!.0
                let wanted = threads <= cores ? factor * Double(threads) * one : one
                let ratio = rate / wanted
                if ratio < 1 { met = false }
                if ratio < worstRatio { worstRatio = ratio; worst = "\(threads) threads: \(String(format: "%.2f", rate / one))× one thread's" }
            }
            return (met, worst)
        }
        let (hitsMet, hitsWorst) = scaling(hits, 0.6, pastCores: true)
        print("- hits at T threads ≥ 0.6 × T × one thread's up to the cores, never below one thread's past them: \(hitsMet ? "met" : "not met") (closest: \(hitsWorst))")
        let (mixMet, mixWorst) = scaling(mix, 0.4)
        print("- the 10 % mix ≥ 0.4 × T × one thread's up to the cores: \(mixMet ? "met" : "not met") (closest: \(mixWorst))")
        let (thumbMet, thumbWorst) = scaling(thumbRow, 0.7)
        print("- thumbnails ≥ 0.7 × T × one thread's up to the cores: \(thumbMet ? "met" : "not met") (closest: \(thumbWorst))")
        if cores < 4 { print("- on \(cores) cores these say little about 8 or 16 cores; the frozen dictionary, with no lock at all, shows what the machine allows, and its second row what it allows a lookup that hands the bitmap over retained, as a hit does (an atomic on the bitmap's count, a line every thread hitting that row shares)") }
    }
}

/// Takes `bitmap` owned (the caller retains it, this releases it), as a caller of
/// `cachedImage(for:)` does; not inlined, so the optimizer cannot drop the retain.
@inline(never)
func taken(_ bitmap: consuming Bitmap?) -> Bool {
    bitmap != nil
}
