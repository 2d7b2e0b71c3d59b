import AssetGen
import Foundation
import SystemIO
import Testing
@testable import DiskCache

/// The store's files never take more than its limit at rest, nor more than the limit plus one
/// entry per concurrent writer at any moment: checked after every operation of random
/// workloads (entries of 100 B to 4 MB) against allocated bytes summed from `stat`.
@Suite struct BoundedSizeTests {
    /// Random puts, gets and removes; after each, the files on disk must fit the limit.
    static func randomWorkload(in folder: String, limit: Int, operations: Int, seed: UInt64) throws -> (evictions: Int, worst: Int) {
        let store = try DiskStore(folder: folder, limit: ByteSize(bytes: limit))
        var random = SplitMix64(seed: seed)
        var worst = 0
        for _ in 0..<operations {
            let key = "k\(random.below(50))"
            switch random.below(10) {
            case 0..<5:
                let size = random.size(100, 4_000_000)
                try store.store(DiskTest.bytes(size, seed: size), for: key)
            case 5..<9:
                if let data = store.data(for: key) {
                    #expect(data == Data(DiskTest.bytes(data.count, seed: data.count)), "\(key) read back wrong")
                }
            default:
                store.remove(key)
            }
            let onDisk = DiskTest.allocatedBytes(under: folder)
            worst = max(worst, onDisk)
            #expect(onDisk <= limit, "the files take \(onDisk) bytes, past the limit of \(limit)")
        }
        let evictions = store.metrics.evictions[.size] ?? 0
        store.close()
        let atRest = DiskTest.allocatedBytes(under: folder)
        #expect(atRest <= limit, "after close the files take \(atRest) bytes, past the limit of \(limit)")
        return (evictions, worst)
    }

    @Test func randomWorkloadsStayWithinTheLimitAfterEveryOperation() throws {
        try DiskTest.withFolder("bounded") { folder in
            let limit = 12_000_000
            let result = try Self.randomWorkload(in: folder, limit: limit, operations: 400, seed: 11)
            #expect(result.evictions > 0, "the workload never reached the limit")
            #expect(result.worst > limit * 8 / 10)
        }
    }

    @Test(.enabled(if: Tmpfs.available, Tmpfs.skipReason))
    func theLimitHoldsOnANoatimeTmpfs() throws {
        try Tmpfs.with("size=64m,noatime") { mount in
            let limit = 12_000_000
            let result = try Self.randomWorkload(in: mount + "/store", limit: limit, operations: 300, seed: 12)
            #expect(result.evictions > 0)
        }
    }

    @Test func concurrentWritersPassTheLimitByAtMostOneEntryEach() async throws {
        let folder = try TestPathsFolder.make("bounded-threads")
        defer { try? FileIO.removeTree(folder) }
        let limit = 16_000_000, writers = 4, largest = 4_000_000
        let store = try DiskStore(folder: folder, limit: ByteSize(bytes: limit))
        let done = AtomicFlag()
        // A sampler sums the files while the writers run.
        async let worst: Int = DiskTest.onThread {
            var worst = 0
            while !done.isSet {
                worst = max(worst, DiskTest.allocatedBytes(under: folder))
            }
            return worst
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    try await DiskTest.onThread {
                        var random = SplitMix64(seed: UInt64(100 + writer))
                        for _ in 0..<60 {
                            let key = "k\(random.below(40))"
                            if random.below(4) == 0 {
                                store.remove(key)
                            } else {
                                let size = random.size(100, largest)
                                try store.store(DiskTest.bytes(size, seed: size), for: key)
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        done.set()
        let sampled = try await worst
        // Each writer's entry file (header and footer included) rounds up to whole blocks.
        let slack = writers * (largest + 65_536)
        #expect(sampled <= limit + slack, "the files took \(sampled) bytes while writing, past \(limit) + \(slack)")
        store.close()
        #expect(DiskTest.allocatedBytes(under: folder) <= limit)
    }
}

/// A flag one thread sets and another polls. An `Atomic`, as the sampler polls it in a loop.
final class AtomicFlag: Sendable {
    private let value = Synchronization.Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}

import RetentionTestSupport
import Synchronization

/// A fresh folder the caller removes.
enum TestPathsFolder {
    static func make(_ name: String) throws -> String { try TestPaths.temporaryFolder(name) }
}
