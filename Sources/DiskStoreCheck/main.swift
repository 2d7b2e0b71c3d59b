// disk-store-check: writes and reads a DiskStore in a child process, for the tests that kill
// a writer (tests/DiskCacheTests/KillTests.swift, tools/disk-torture.sh) and that run four
// processes on one folder (ProcessTests.swift). Payloads are CheckablePayload's: every byte
// checkable from the key alone.
//
//   disk-store-check write DIR SEED KEYS
//       Owns DIR and stores entries of 1 KB to 2 MB under keys k0…k(KEYS-1) until killed,
//       printing "w" after each committed write.
//   disk-store-check fill DIR COUNT SIZE
//       Stores COUNT entries of SIZE bytes under keys f0…f(COUNT-1), closes and exits (the
//       `retention cache` tests' stores).
//   disk-store-check open-bench DIR COUNT ROUNDS
//       Fills DIR to COUNT entries of 100 bytes (once; kept for the next run), then times
//       ROUNDS opens with the page cache dropped (root): with the snapshot of a clean close,
//       and with no snapshot (the background rebuild). Prints one line per kind of open:
//       medians with min–max of init's return, the first lookup, and the index's completion.
//       tools/disk-benchmark.sh runs it from a release build.
//   disk-store-check mix DIR SECONDS LIMIT SEED
//       Opens DIR in automatic mode (owner, or a reader that takes over when the owner dies)
//       and runs random gets, puts and removes of 1 KB to 256 KB on keys m0…m199 for SECONDS,
//       then prints "reads N hits N bad N writes N refused N owner 0|1" and exits 1 on a bad read.
import AssetGen
import DiskCache
import Glibc
import RetentionTestSupport
import SystemIO

func fail(_ text: String) -> Never {
    StandardStreams.writeError("disk-store-check: \(text)\n")
    exit(2)
}

extension SplitMix64 {
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

/// Milliseconds on the monotonic clock.
func milliseconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) * 1e3 + Double(now.tv_nsec) / 1e6
}

/// Writes dirty pages out and drops the page cache, dentries and inodes; false when not allowed.
func dropCaches() -> Bool {
    sync()
    return (try? FileIO.replace("/proc/sys/vm/drop_caches", with: Array("3\n".utf8))) != nil
}

/// `median (min–max)` of `values`, in milliseconds with one decimal.
func spread(_ values: [Double]) -> String {
    let sorted = values.sorted()
    func text(_ v: Double) -> String { String(Double(Int((v * 10).rounded())) / 10) }
    let median = Median.of(sorted)
    return sorted.first == sorted.last ? "\(text(median)) ms" : "\(text(median)) ms (\(text(sorted.first!))–\(text(sorted.last!)))"
}

func openBenchmark(folder: String, count: Int, rounds: Int) {
    do {
        let store = try DiskStore(folder: folder, limit: ByteSize(bytes: 1 << 42), mode: .owner)
        store.waitForIndex()
        let have = store.metrics.entries
        if have < count {
            StandardStreams.writeError("disk-store-check: filling \(folder) from \(have) to \(count) entries …\n")
            let payload = [UInt8](repeating: 0x42, count: 100)
            for i in have..<count { try store.store(payload, for: "e\(i)") }
        }
        store.close()
    } catch {
        fail("\(error)")
    }
    var dropped = true
    var fresh: [[Double]] = [[], [], []], rebuilt: [[Double]] = [[], [], []]
    for _ in 0..<rounds {
        for withSnapshot in [true, false] {
            if !withSnapshot { try? FileIO.remove(folder + "/index") }
            dropped = dropCaches() && dropped
            let start = milliseconds()
            let store: DiskStore
            do { store = try DiskStore(folder: folder, limit: ByteSize(bytes: 1 << 42), mode: .owner) } catch { fail("\(error)") }
            let opened = milliseconds() - start
            guard store.data(for: "e\(count / 2)") != nil else { fail("entry e\(count / 2) is missing") }
            let firstLookup = milliseconds() - start
            store.waitForIndex()
            let indexed = milliseconds() - start
            let metrics = store.metrics
            guard metrics.entries >= count, metrics.indexState == (withSnapshot ? .fresh : .rebuilt) else {
                fail("the index holds \(metrics.entries) entries, state \(metrics.indexState)")
            }
            store.close()
            let figures = [opened, firstLookup, indexed]
            for i in 0..<3 {
                if withSnapshot { fresh[i].append(figures[i]) } else { rebuilt[i].append(figures[i]) }
            }
        }
    }
    let caches = dropped ? "page cache dropped before each open" : "page cache NOT dropped (not root)"
    print("open of \(count) entries, \(rounds) rounds, \(caches), medians (min–max):")
    print("  with the snapshot of a clean close: init returns \(spread(fresh[0])), first lookup \(spread(fresh[1])), index loaded \(spread(fresh[2]))")
    print("  without a snapshot (rebuilt in the background): init returns \(spread(rebuilt[0])), first lookup \(spread(rebuilt[1])), index rebuilt \(spread(rebuilt[2]))")
}

ChildProcess.dieWithParent()
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "write":
    guard arguments.count == 4, let seed = UInt64(arguments[2]), let keys = Int(arguments[3]) else { fail("usage: write DIR SEED KEYS") }
    let store: DiskStore
    do { store = try DiskStore(folder: arguments[1], limit: ByteSize(bytes: 1 << 40), mode: .owner) } catch { fail("\(error)") }
    var random = SplitMix64(seed: seed)
    let mark = Array("w\n".utf8)
    while true {
        let key = "k\(random.below(keys))"
        let payload = CheckablePayload.make(key: key, generation: random.next(), minimum: 1_000, maximum: 2_000_000)
        do { try store.store(payload, for: key) } catch { fail("\(error)") }
        try? FileIO.writeAll(mark, to: 1, path: "standard output")
    }
case "fill":
    guard arguments.count == 4, let count = Int(arguments[2]), let size = Int(arguments[3]) else { fail("usage: fill DIR COUNT SIZE") }
    do {
        let store = try DiskStore(folder: arguments[1], limit: ByteSize(bytes: 1 << 40), mode: .owner)
        for i in 0..<count { try store.store([UInt8](repeating: UInt8(truncatingIfNeeded: i), count: size), for: "f\(i)") }
        store.close()
    } catch {
        fail("\(error)")
    }
case "open-bench":
    guard arguments.count == 4, let count = Int(arguments[2]), let rounds = Int(arguments[3]), rounds > 0 else {
        fail("usage: open-bench DIR COUNT ROUNDS")
    }
    openBenchmark(folder: arguments[1], count: count, rounds: rounds)
case "mix":
    guard arguments.count == 5, let seconds = Double(arguments[2]), let limit = Int(arguments[3]), let seed = UInt64(arguments[4]) else {
        fail("usage: mix DIR SECONDS LIMIT SEED")
    }
    let store: DiskStore
    do { store = try DiskStore(folder: arguments[1], limit: ByteSize(bytes: limit), mode: .automatic) } catch { fail("\(error)") }
    var random = SplitMix64(seed: seed)
    var reads = 0, hits = 0, bad = 0, writes = 0, refused = 0
    var start = timespec()
    clock_gettime(CLOCK_MONOTONIC, &start)
    func elapsed() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec - start.tv_sec) + Double(now.tv_nsec - start.tv_nsec) / 1e9
    }
    while elapsed() < seconds {
        let key = "m\(random.below(200))"
        let roll = random.below(100)
        if roll < 60 {
            reads += 1
            if let data = store.data(for: key) {
                hits += 1
                if !CheckablePayload.check(key: key, data, minimum: 1_000, maximum: 256_000) {
                    bad += 1
                    StandardStreams.writeError("disk-store-check: bad read of \(key) (\(data.count) bytes)\n")
                }
            }
        } else if roll < 95 {
            let payload = CheckablePayload.make(key: key, generation: random.next(), minimum: 1_000, maximum: 256_000)
            do {
                try store.store(payload, for: key)
                writes += 1
            } catch {
                refused += 1
                Pause.microseconds(2_000)
            }
        } else {
            store.remove(key)
        }
    }
    let owner = store.isOwner
    store.close()
    print("reads \(reads) hits \(hits) bad \(bad) writes \(writes) refused \(refused) owner \(owner ? 1 : 0)")
    exit(bad == 0 ? 0 : 1)
default:
    fail("usage: disk-store-check write DIR SEED KEYS | fill DIR COUNT SIZE | mix DIR SECONDS LIMIT SEED")
}
