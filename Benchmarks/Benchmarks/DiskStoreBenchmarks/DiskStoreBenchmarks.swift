// DiskStore costs on the machine's own disk: a warm hit of 4 KiB and of 64 KiB (one sample per
// lookup, so the percentiles are per hit), puts of 4 KiB without and with fsync (one sample per
// put; the throughput metric is puts per second; 4,096 keys, so most puts replace an entry, as a
// cache's do), and 128 puts of 4 KiB from two threads at once (64 each, distinct keys; one
// sample per 128 puts), where the store's locks would show. Each store lives in a fresh folder under $DISK_BENCH_TMP
// (default /var/tmp: on this machine /tmp's ext4 block group makes every file creation cost
// about 0.5 ms of inode search, which would measure /tmp rather than the store), made in the
// benchmark's setup and removed in its teardown. Hits read files the page cache holds.
// Run from Benchmarks/:
//   swift package benchmark --target DiskStoreBenchmarks
import Benchmark
import DiskCache
import Foundation

/// A store made in a benchmark's setup and removed in its teardown.
private final class Fixture {
    let name: String
    var store: DiskStore?
    var keys: [String] = []
    var next = 0

    init(_ name: String) { self.name = name }

    /// A fresh store; with `count` entries of `size` bytes under keys "k0"…, read once so the
    /// page cache holds them.
    func open(durable: Bool = false, count: Int = 0, size: Int = 0) throws {
        let base = ProcessInfo.processInfo.environment["DISK_BENCH_TMP"] ?? "/var/tmp"
        let folder = "\(base)/retention-disk-benchmark-\(name)-\(getpid())"
        try? FileManager.default.removeItem(atPath: folder)
        let store = try DiskStore(folder: folder, limit: ByteSize(bytes: 1 << 40), durable: durable)
        let payload = [UInt8](repeating: 0x5A, count: size)
        keys = (0..<max(count, 4_096)).map { "k\($0)" }
        for key in keys.prefix(count) { try store.store(payload, for: key) }
        for key in keys.prefix(count) { blackHole(store.data(for: key)) }
        self.store = store
    }

    func close() {
        guard let store else { return }
        store.close()
        try? FileManager.default.removeItem(atPath: store.folder)
        self.store = nil
    }
}

let benchmarks: @Sendable () -> Void = {
    // MARK: - Warm hits

    for size in [4_096, 65_536] {
        let fixture = Fixture("hit-\(size)")
        Benchmark("warm hit, \(size / 1024) KiB",
                  configuration: .init(metrics: [.wallClock, .throughput], timeUnits: .microseconds,
                                       maxDuration: .seconds(3), maxIterations: 20_000)) { _ in
            blackHole(fixture.store!.data(for: fixture.keys[fixture.next & 255]))
            fixture.next &+= 1
        } setup: {
            try fixture.open(count: 256, size: size)
        } teardown: {
            fixture.close()
        }
    }

    // MARK: - Puts

    for durable in [false, true] {
        let fixture = Fixture(durable ? "put-durable" : "put")
        let payload = [UInt8](repeating: 0xA5, count: 4_096)
        Benchmark("put, 4 KiB, \(durable ? "durable (fsync)" : "no fsync")",
                  configuration: .init(metrics: [.wallClock, .throughput], timeUnits: .microseconds,
                                       maxDuration: .seconds(3), maxIterations: durable ? 2_000 : 20_000)) { _ in
            try! fixture.store!.store(payload, for: fixture.keys[fixture.next & 4095])
            fixture.next &+= 1
        } setup: {
            try fixture.open(durable: durable)
        } teardown: {
            fixture.close()
        }
    }

    // MARK: - Puts from two threads

    let pair = Fixture("put-two-threads")
    let payload = [UInt8](repeating: 0xA5, count: 4_096)
    Benchmark("put, 4 KiB, two threads, 128 puts",
              configuration: .init(metrics: [.wallClock, .throughput], timeUnits: .microseconds,
                                   maxDuration: .seconds(3), maxIterations: 1_000)) { _ in
        let store = pair.store!, keys = pair.keys, base = pair.next
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            for i in 0..<64 { try! store.store(payload, for: keys[(thread * 2_048 + base + i) & 4095]) }
        }
        pair.next &+= 64
    } setup: {
        try pair.open()
    } teardown: {
        pair.close()
    }
}
