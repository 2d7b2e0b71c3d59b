import AssetGen
import Foundation
import SystemIO
import Testing
@testable import DiskCache

/// Damage done to the files behind the store's back: every damaged entry reads as a miss and
/// is removed, every other entry survives, and a damaged or missing snapshot is rebuilt from
/// the folder without wiping anything.
@Suite struct FaultInjectionTests {
    /// Ways to damage an entry file, drawn at random.
    enum Damage: CaseIterable {
        case truncate, zeroTail, flipByte, empty
    }

    static func damage(_ path: String, _ kind: Damage, _ random: inout SplitMix64) throws {
        var bytes = [UInt8](try FileIO.readAll(path))
        switch kind {
        case .truncate:
            bytes.removeLast(1 + random.below(bytes.count - 1))
        case .zeroTail:
            let from = random.below(bytes.count - 1)
            for i in from..<bytes.count { bytes[i] = 0 }
            if bytes.allSatisfy({ $0 == 0 }) == false, from == bytes.count - 1, bytes[from] == 0 { bytes[0] ^= 1 }
        case .flipByte:
            bytes[random.below(bytes.count)] ^= UInt8(1 << random.below(8))
        case .empty:
            bytes = []
        }
        // In place, as a torn disk write would leave it (same inode).
        let fd = try FileDescriptor.open(path, .writeOnly)
        try fd.truncate(to: 0)
        try fd.write(bytes)
    }

    @Test(arguments: [1, 2, 3])
    func damagedEntriesAreMissesAndRemovedAndTheRestSurvive(seed: Int) throws {
        try DiskTest.withFolder("faults-\(seed)") { folder in
            var random = SplitMix64(seed: UInt64(seed))
            let keys = (0..<60).map { "image-\($0)" }
            var payloads: [String: [UInt8]] = [:]
            do {
                let store = try DiskStore(folder: folder, limit: ByteSize(bytes: 100_000_000))
                for key in keys {
                    payloads[key] = CheckablePayloadBytes.make(key, &random)
                    try store.store(payloads[key]!, for: key)
                }
                store.close()
            }
            var damaged: Set<String> = []
            for key in keys where random.below(3) == 0 {
                let path = folder + "/entries/" + KeyHash.fileName(KeyHash.fnv1a64(key))
                let kind = Damage.allCases[random.below(Damage.allCases.count)]
                try Self.damage(path, kind, &random)
                // A zeroed tail that zeroed nothing new can leave the file whole; only count real damage.
                if [UInt8](try FileIO.readAll(path)) != EntryBytes.of(key, payloads[key]!) { damaged.insert(key) }
            }
            #expect(!damaged.isEmpty)
            let store = try DiskStore(folder: folder, limit: ByteSize(bytes: 100_000_000))
            defer { store.close() }
            for key in keys {
                let data = store.data(for: key)
                if damaged.contains(key) {
                    #expect(data == nil, "damaged \(key) was read")
                    #expect(!FileIO.exists(folder + "/entries/" + KeyHash.fileName(KeyHash.fnv1a64(key))), "damaged \(key) was kept")
                } else {
                    #expect(data == Data(payloads[key]!), "\(key) did not survive")
                }
            }
            #expect(store.metrics.corruptEntries == damaged.count)
            store.waitForIndex()
            #expect(store.metrics.entries == keys.count - damaged.count)
        }
    }

    @Test(arguments: ["delete", "truncate", "flip", "garbage", "stale"])
    func aDamagedOrMissingSnapshotIsRebuiltWithoutAWipe(kind: String) throws {
        try DiskTest.withFolder("snapshot-\(kind)") { folder in
            do {
                let store = try DiskStore(folder: folder, limit: ByteSize(bytes: 100_000_000))
                for i in 0..<30 { try store.store(DiskTest.bytes(2_000 + i, seed: i), for: "k\(i)") }
                store.close()
            }
            let snapshot = folder + "/index"
            var bytes = [UInt8](try FileIO.readAll(snapshot))
            switch kind {
            case "delete": try FileIO.remove(snapshot)
            case "truncate": try FileIO.replace(snapshot, with: Array(bytes.prefix(bytes.count / 2)))
            case "flip":
                bytes[40] ^= 0x10
                try FileIO.replace(snapshot, with: bytes)
            case "garbage": try FileIO.replace(snapshot, with: DiskTest.bytes(5_000, seed: 9))
            default:
                // A snapshot from before the last change: an entry removed behind its back.
                try FileIO.remove(folder + "/entries/" + KeyHash.fileName(KeyHash.fnv1a64("k3")))
            }
            let store = try DiskStore(folder: folder, limit: ByteSize(bytes: 100_000_000))
            defer { store.close() }
            // Lookups work while the index is rebuilt.
            #expect(store.data(for: "k7") == Data(DiskTest.bytes(2_007, seed: 7)))
            store.waitForIndex()
            #expect(store.metrics.indexState == .rebuilt)
            let expected = kind == "stale" ? 29 : 30
            #expect(store.metrics.entries == expected)
            for i in 0..<30 where !(kind == "stale" && i == 3) {
                #expect(store.data(for: "k\(i)") == Data(DiskTest.bytes(2_000 + i, seed: i)))
            }
            #expect(store.usage <= DiskTest.allocatedBytes(under: folder) + 8192)
        }
    }
}

/// Test payloads of 100 B to 200 KB.
enum CheckablePayloadBytes {
    static func make(_ key: String, _ random: inout SplitMix64) -> [UInt8] {
        DiskTest.bytes(random.size(100, 200_000), seed: Int(random.next() % 1000))
    }
}

/// The exact bytes of an entry file.
enum EntryBytes {
    static func of(_ key: String, _ payload: [UInt8]) -> [UInt8] {
        payload.withUnsafeBytes { EntryFormat.encode(key: key, payload: $0) }
    }
}
