import AssetGen
import Foundation
import RetentionTestSupport
import Glibc
import SystemIO
import Testing
@testable import DiskCache

/// What the store promises in one process: round trips, replacement, removal, collisions,
/// ownership, the index snapshot, maintenance and metrics.
@Suite struct DiskStoreTests {
    @Test func whatIsStoredReadsBackExactly() throws {
        try DiskTest.withFolder("roundtrip") { folder in
            let store = try DiskStore(folder: folder, limit: ByteSize(bytes: 10_000_000))
            defer { store.close() }
            let payload = DiskTest.bytes(70_000, seed: 1)
            try store.store(payload, for: "https://example.com/a.png")
            try store.store([UInt8](), for: "empty")
            #expect(store.data(for: "https://example.com/a.png") == Data(payload))
            #expect(store.data(for: "empty") == Data())
            #expect(store.data(for: "absent") == nil)
            let metrics = store.metrics
            #expect(metrics.hits == 2 && metrics.misses == 1 && metrics.writes == 2)
            #expect(metrics.entries == 2)
            #expect(DiskTest.entryFiles(in: folder).count == 2)
            #expect(DiskTest.temporaryFiles(in: folder).isEmpty)
        }
    }

    @Test func aSecondStoreReplacesTheFirstAndRemoveForgetsIt() throws {
        try DiskTest.withFolder("replace") { folder in
            let store = try DiskStore(folder: folder, limit: ByteSize(bytes: 10_000_000), durable: true)
            defer { store.close() }
            try store.store(DiskTest.bytes(5_000, seed: 1), for: "k")
            try store.store(DiskTest.bytes(9_000, seed: 2), for: "k")
            #expect(store.data(for: "k") == Data(DiskTest.bytes(9_000, seed: 2)))
            #expect(store.metrics.entries == 1)
            #expect(store.remove("k"))
            #expect(!store.remove("k"))
            #expect(store.data(for: "k") == nil)
            #expect(store.metrics.entries == 0)
            #expect(DiskTest.entryFiles(in: folder).isEmpty)
        }
    }

    @Test func aHashCollisionIsAMissNeverAWrongHit() throws {
        try DiskTest.withFolder("collision") { folder in
            var options = DiskStore.Options()
            options.keyHash = { _ in 42 }
            let store = try DiskStore(folder: folder, limit: ByteSize(bytes: 10_000_000), options: options)
            defer { store.close() }
            try store.store(Array("first".utf8), for: "a")
            #expect(store.data(for: "b") == nil)
            #expect(store.data(for: "a") == Data("first".utf8))
            // The second key takes the file; the first is then a miss, not the second's bytes.
            try store.store(Array("second".utf8), for: "b")
            #expect(store.data(for: "a") == nil)
            #expect(store.data(for: "b") == Data("second".utf8))
            #expect(store.metrics.corruptEntries == 0)
            #expect(DiskTest.entryFiles(in: folder) == [KeyHash.fileName(42)])
        }
    }

    @Test func aCleanCloseGivesAFreshIndexAndACrashARebuiltOne() throws {
        try DiskTest.withFolder("snapshot") { folder in
            do {
                let store = try DiskStore(folder: folder, limit: ByteSize(bytes: 10_000_000))
                for i in 0..<20 { try store.store(DiskTest.bytes(1_000 + i, seed: i), for: "k\(i)") }
                _ = store.data(for: "k0")  // k0 becomes the most recently used
                store.close()
            }
            #expect(FileIO.exists(folder + "/index"))
            let reopened = try DiskStore(folder: folder, limit: ByteSize(bytes: 10_000_000))
            reopened.waitForIndex()
            #expect(reopened.metrics.indexState == .fresh)
            #expect(reopened.metrics.entries == 20)
            #expect(reopened.metrics.indexNanoseconds != nil)
            #expect(!FileIO.exists(folder + "/index"), "an open store leaves no snapshot that looks current")
            // The order survived: trimming keeps the most recently used.
            reopened.trim(to: ByteSize(bytes: reopened.usage - 1))
            #expect(reopened.data(for: "k0") != nil)
            #expect(reopened.data(for: "k1") == nil)
            reopened.close()

            // An entry added behind the store's back (as a crashed owner would leave it) makes
            // the snapshot stale: the index is rebuilt from the folder, and nothing is lost.
            try FileIO.rename(folder + "/entries/" + KeyHash.fileName(KeyHash.fnv1a64("k5")),
                              to: folder + "/entries/" + KeyHash.fileName(KeyHash.fnv1a64("k5")))
            let extra = [UInt8](repeating: 1, count: 10).withUnsafeBytes { EntryFormat.encode(key: "extra", payload: $0) }
            try FileIO.replace(folder + "/entries/" + KeyHash.fileName(KeyHash.fnv1a64("extra")), with: extra)
            let rebuilt = try DiskStore(folder: folder, limit: ByteSize(bytes: 10_000_000))
            rebuilt.waitForIndex()
            #expect(rebuilt.metrics.indexState == .rebuilt)
            #expect(rebuilt.metrics.entries == 20)
            #expect(rebuilt.data(for: "extra") == Data(repeating: 1, count: 10))
            rebuilt.close()
        }
    }

    @Test func aSecondOwnerIsRefusedWithOneLineAndAReaderOnlyReads() throws {
        try DiskTest.withFolder("owner") { folder in
            let owner = try DiskStore(folder: folder, limit: ByteSize(bytes: 10_000_000), mode: .owner)
            try owner.store([1, 2, 3], for: "k")
            #expect(throws: DiskStoreError.ownedByAnotherProcess(folder: folder, processID: getpid())) {
                _ = try DiskStore(folder: folder, limit: ByteSize(bytes: 10_000_000), mode: .owner)
            }
            let message = DiskStoreError.ownedByAnotherProcess(folder: folder, processID: getpid()).description
            #expect(message == "cannot open the disk store \(folder): this process already has the store open (holds its lock)")
            #expect(DiskStoreError.ownedByAnotherProcess(folder: folder, processID: getpid() + 1).description
                == "cannot open the disk store \(folder): process \(getpid() + 1) owns it (holds its lock)")
            let reader = try DiskStore(folder: folder, limit: ByteSize(bytes: 10_000_000), mode: .automatic)
            #expect(!reader.isOwner)
            #expect(reader.data(for: "k") == Data([1, 2, 3]))
            #expect(throws: DiskStoreError.readOnly(folder: folder)) { try reader.store([4], for: "j") }
            #expect(!reader.remove("k"))
            owner.close()
            // The owner's lock is released: the reader takes over on its next write.
            usleep(120_000)
            try reader.store([4], for: "j")
            #expect(reader.isOwner)
            #expect(reader.data(for: "j") == Data([4]))
            reader.close()
            let readOnly = try DiskStore(folder: folder, limit: ByteSize(bytes: 10_000_000), mode: .readOnly)
            #expect(readOnly.data(for: "k") == Data([1, 2, 3]))
            #expect(throws: DiskStoreError.readOnly(folder: folder)) { try readOnly.store([4], for: "j") }
            readOnly.close()
        }
    }

    @Test func aStoreDroppedWhileItsIndexLoadsClosesWithoutAHang() throws {
        try DiskTest.withFolder("dropped") { folder in
            do {
                let store = try DiskStore(folder: folder, limit: ByteSize(bytes: 10_000_000))
                for i in 0..<200 { try store.store([UInt8(i)], for: "k\(i)") }
                store.close()
            }
            // The last reference goes while the background queue loads the index: the store
            // closes from that queue, and must not wait on itself.
            for _ in 0..<20 { _ = try DiskStore(folder: folder, limit: ByteSize(bytes: 10_000_000)) }
            // Each closes once its loader finishes, releasing the lock: an owner gets in.
            var owner: DiskStore?
            for _ in 0..<500 where owner == nil {
                owner = try? DiskStore(folder: folder, limit: ByteSize(bytes: 10_000_000), mode: .owner)
                if owner == nil { usleep(10_000) }
            }
            let store = try #require(owner, "a dropped store kept the folder's lock")
            store.waitForIndex()
            #expect(store.metrics.entries == 200)
            store.close()
        }
    }

    @Test func aMissingFolderOrAFileIsAOneLineError() throws {
        try DiskTest.withFolder("errors") { folder in
            var options = DiskStore.Options()
            options.createFolder = false
            #expect(throws: DiskStoreError.missingFolder(folder + "/none")) {
                _ = try DiskStore(folder: folder + "/none", limit: ByteSize(bytes: 1_000_000), options: options)
            }
            try FileIO.replace(folder + "/file", with: [UInt8]([1]))
            #expect(throws: DiskStoreError.notAFolder(folder + "/file")) {
                _ = try DiskStore(folder: folder + "/file", limit: ByteSize(bytes: 1_000_000))
            }
            #expect(DiskStoreError.notAFolder("x").description == "cannot open the disk store x: it is a file, not a folder")
        }
    }

    @Test func anEntryLargerThanTheLimitIsRefused() throws {
        try DiskTest.withFolder("toolarge") { folder in
            let store = try DiskStore(folder: folder, limit: ByteSize(bytes: 100_000))
            defer { store.close() }
            #expect(throws: DiskStoreError.self) { try store.store(DiskTest.bytes(200_000, seed: 1), for: "big") }
            #expect(DiskTest.temporaryFiles(in: folder).isEmpty)
        }
    }

    @Test func verifyReportsAndRemovesBadEntriesAndClearEmptiesTheStore() throws {
        try DiskTest.withFolder("verify") { folder in
            let store = try DiskStore(folder: folder, limit: ByteSize(bytes: 10_000_000))
            defer { store.close() }
            for i in 0..<5 { try store.store(DiskTest.bytes(3_000, seed: i), for: "k\(i)") }
            let victim = folder + "/entries/" + KeyHash.fileName(KeyHash.fnv1a64("k2"))
            let fd = try FileDescriptor.open(victim, .writeOnly)
            try fd.truncate(to: 100)
            try FileIO.replace(folder + "/entries/stray.txt", with: Array("x".utf8))
            let report = store.verify()
            #expect(report.checked == 6)
            #expect(report.bad.map(\.name).sorted() == [KeyHash.fileName(KeyHash.fnv1a64("k2")), "stray.txt"].sorted())
            #expect(report.removed)
            #expect(!FileIO.exists(victim))
            // A name the store never gives an entry is listed and left alone, every time.
            #expect(report.bad.first { $0.name == "stray.txt" }?.removed == false)
            #expect(report.bad.first { $0.name != "stray.txt" }?.removed == true)
            #expect(store.verify().bad.map(\.name) == ["stray.txt"])
            #expect(store.metrics.entries == 4)
            #expect(store.clear() == 4)
            #expect(store.metrics.entries == 0)
            #expect(DiskTest.entryFiles(in: folder) == ["stray.txt"])
        }
    }

    @Test func manyThreadsReadAndWriteAtOnce() async throws {
        let folder = try DiskTest.withFolder("threads") { $0 + "-kept" }
        try FileIO.createDirectories(folder)
        defer { try? FileIO.removeTree(folder) }
        let store = try DiskStore(folder: folder, limit: ByteSize(bytes: 4_000_000))
        let bad = try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    try await DiskTest.onThread {
                        var random = SplitMix64(seed: UInt64(worker))
                        var bad = 0
                        for _ in 0..<300 {
                            let key = "k\(random.below(40))"
                            if random.below(2) == 0 {
                                try? store.store(CheckablePayload.make(key: key, generation: random.next(), minimum: 100, maximum: 200_000), for: key)
                            } else if let data = store.data(for: key), !CheckablePayload.check(key: key, data, minimum: 100, maximum: 200_000) {
                                bad += 1
                            }
                        }
                        return bad
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(bad == 0)
        store.close()
        #expect(DiskTest.allocatedBytes(under: folder) <= 4_000_000)
        #expect(DiskTest.temporaryFiles(in: folder).isEmpty)
    }

    @Test func twoTrimsAtOnceEachReportTheirOwnEvictions() async throws {
        let folder = try DiskTest.withFolder("trims") { $0 + "-kept" }
        try FileIO.createDirectories(folder)
        defer { try? FileIO.removeTree(folder) }
        let store = try DiskStore(folder: folder, limit: .megabytes(100))
        defer { store.close() }
        for i in 0..<60 { try store.store(DiskTest.bytes(10_000, seed: i), for: "k\(i)") }
        let start = store.usage
        async let first = DiskTest.onThread { store.trim(to: ByteSize(bytes: start / 2)) }
        async let second = DiskTest.onThread { store.trim(to: ByteSize(bytes: start / 4)) }
        let (a, b) = try await (first, second)
        #expect(a + b == store.metrics.evictions[.trim], "\(a) + \(b) against \(store.metrics.evictions[.trim] ?? 0)")
        #expect(store.usage <= start / 4)
    }
}
