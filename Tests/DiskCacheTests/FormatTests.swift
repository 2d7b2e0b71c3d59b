import AssetGen
import Foundation
import RetentionTestSupport
import Testing
@testable import DiskCache

/// The pure layouts: entry files, the index snapshot, key hashes and names, the LRU index.
@Suite struct FormatTests {
    @Test func anEntryEncodesToTheDocumentedBytes() {
        let bytes = [UInt8]([1, 2, 3]).withUnsafeBytes { EntryFormat.encode(key: "ab", payload: $0) }
        #expect(bytes.count == 24 + 2 + 3 + 8)
        #expect(Array(bytes[0..<4]) == Array("RTNE".utf8))
        #expect(Array(bytes[4..<6]) == [1, 0])
        #expect(Array(bytes[8..<12]) == [2, 0, 0, 0])
        #expect(Array(bytes[16..<24]) == [3, 0, 0, 0, 0, 0, 0, 0])
        #expect(Array(bytes[24..<29]) == [97, 98, 1, 2, 3])
        #expect(Array(bytes[33..<37]) == Array("RTNF".utf8))
        let parts = bytes.withUnsafeBytes { EntryFormat.check($0) }
        #expect(parts == .success(EntryFormat.Parts(key: 24..<26, payload: 26..<29)))
    }

    @Test func theCRCIsZlibs() {
        // The CRC-32 check value: "123456789" → 0xCBF43926.
        let crc = Array("123456789".utf8).withUnsafeBytes { rtnCRC($0) }
        #expect(crc == 0xCBF4_3926)
    }

    @Test func theFoldedCRCEqualsZlibsAtEveryLengthAndOffset() {
        var random = SplitMix64(seed: 7)
        let bytes = (0..<70_000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        bytes.withUnsafeBytes { raw in
            for _ in 0..<2_000 {
                let offset = random.below(64), count = random.below(random.below(2) == 0 ? 300 : 69_000)
                let seed = UInt32(truncatingIfNeeded: random.next())
                let slice = UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + count)])
                let folded = rtn_crc32(seed, slice.baseAddress, slice.count), zlib = rtn_crc32_zlib(seed, slice.baseAddress, slice.count)
                #expect(folded == zlib, "offset \(offset), \(count) bytes")
                if folded != zlib { return }
            }
        }
    }

    @Test func everyDamageToAnEntryIsFound() {
        let good = [UInt8](repeating: 7, count: 100).withUnsafeBytes { EntryFormat.encode(key: "key", payload: $0) }
        func check(_ bytes: [UInt8]) -> EntryFormat.Damage? {
            if case .failure(let damage) = bytes.withUnsafeBytes({ EntryFormat.check($0) }) { return damage }
            return nil
        }
        #expect(check(good) == nil)
        #expect(check(Array(good.prefix(20))) == .truncated)
        #expect(check(Array(good.dropLast(1))) == .lengthMismatch)
        var magic = good
        magic[0] = 0
        #expect(check(magic) == .badMagic)
        var version = good
        version[4] = 9
        #expect(check(version) == .unknownVersion(9))
        var footer = good
        footer[footer.count - 1] ^= 1
        #expect(check(footer) == .badFooter)
        for offset in [8, 20, 24, 30, 120, good.count - 8] {
            var flipped = good
            flipped[offset] ^= 0x40
            #expect(check(flipped) != nil, "a flipped byte at \(offset) was not found")
        }
        var zeroed = good
        for i in 60..<zeroed.count { zeroed[i] = 0 }
        #expect(check(zeroed) != nil)
    }

    @Test func aSnapshotRoundTripsAndRefusesDamage() {
        let id = [UInt8](1...16)
        let records = [IndexSnapshot.Record(hash: 1, allocatedBytes: 4096, lastUse: 10),
                       IndexSnapshot.Record(hash: .max, allocatedBytes: 512 * 9000, lastUse: 20)]
        let bytes = IndexSnapshot.encode(records, clean: true, storeID: id, folderModification: 123, folderInode: 456)
        #expect(bytes.count == 48 + 32 + 8)
        bytes.withUnsafeBytes { raw in
            #expect(IndexSnapshot.check(raw, storeID: id) == .success(.init(clean: true, count: 2, folderModification: 123, folderInode: 456)))
            #expect(IndexSnapshot.record(raw, 0) == records[0])
            #expect(IndexSnapshot.record(raw, 1) == records[1])
            #expect(IndexSnapshot.expectedCount(UnsafeRawBufferPointer(rebasing: raw[0..<48]), storeID: id) == 2)
        }
        var flipped = bytes
        flipped[56] ^= 1
        #expect(flipped.withUnsafeBytes { IndexSnapshot.check($0, storeID: id) } == .failure(.checksumMismatch))
        #expect(Array(bytes.dropLast(3)).withUnsafeBytes { IndexSnapshot.check($0, storeID: id) } == .failure(.lengthMismatch))
        // Another store's snapshot: refused whole, and its header promises nothing.
        let other = [UInt8](repeating: 7, count: 16)
        #expect(bytes.withUnsafeBytes { IndexSnapshot.check($0, storeID: other) } == .failure(.anotherStore))
        #expect(bytes.withUnsafeBytes { IndexSnapshot.expectedCount($0, storeID: other) } == nil)
    }

    @Test func aMarkerHoldsItsIDAndNothingElseIsOne() {
        let id = [UInt8](100..<116)
        let bytes = StoreMarker.encode(id: id)
        #expect(bytes.count == 32)
        #expect(Array(bytes[0..<8]) == Array("RTNSTORE".utf8))
        #expect(bytes.withUnsafeBytes { StoreMarker.id($0) } == id)
        var flipped = bytes
        flipped[20] ^= 0x10
        #expect(flipped.withUnsafeBytes { StoreMarker.id($0) } == nil)
        #expect((bytes + [0]).withUnsafeBytes { StoreMarker.id($0) } == nil)
        #expect(Array(bytes.dropLast()).withUnsafeBytes { StoreMarker.id($0) } == nil)
        #expect(StoreMarker.newID() != StoreMarker.newID())
        #expect(String(decoding: StoreMarker.cacheDirectoryTag, as: UTF8.self).hasPrefix("Signature: 8a477f597d28d172789f06886806bc55"))
    }

    @Test func fileNamesAreSixteenHexDigitsOfTheHash() {
        #expect(KeyHash.fileName(0xAB) == "00000000000000ab")
        #expect(KeyHash.hash(fileName: "00000000000000ab") == 0xAB)
        #expect(KeyHash.hash(fileName: "00000000000000AB") == nil)
        #expect(KeyHash.hash(fileName: "index") == nil)
        // FNV-1a 64 of "a".
        #expect(KeyHash.fnv1a64("a") == 0xaf63_dc4c_8601_ec8c)
    }

    @Test func theIndexKeepsLeastRecentlyUsedOrder() {
        var index = StoreIndex()
        for hash in UInt64(1)...4 { index.insert(hash, allocatedBytes: Int(hash) * 512, lastUse: UInt32(hash)) }
        #expect(index.bytes == 10 * 512)
        #expect(index.coldest?.hash == 1)
        index.touch(1, now: 9)
        #expect(index.coldest?.hash == 2)
        index.insert(5, allocatedBytes: 512, lastUse: 0, coldest: true)
        #expect(index.coldest?.hash == 5)
        #expect(index.records().map(\.hash) == [5, 2, 3, 4, 1])
        #expect(index.insert(3, allocatedBytes: 4096, lastUse: 11) == 3 * 512)
        #expect(index.records().map(\.hash) == [5, 2, 4, 1, 3])
        #expect(index.remove(2) == 1024)
        #expect(index.remove(2) == nil)
        #expect(index.count == 4)
        #expect(index.bytes == 512 + 4 * 512 + 512 + 4096)
    }

    @Test func theSlotTableAgreesWithADictionaryUnderRandomChurn() {
        var table = SlotTable()
        var model: [UInt64: Int32] = [:]
        var keyOf: [UInt64] = []  // slot → key, as the index keeps it
        var random = SplitMix64(seed: 3)
        for step in 0..<20_000 {
            // Few distinct keys, many colliding homes: low bits only, so probe runs are long.
            let key = random.next() % 512 &* (1 << 40)
            keyOf.append(key)
            switch random.below(3) {
            case 0:
                table.set(key, Int32(step)) { keyOf[Int($0)] }
                model[key] = Int32(step)
            case 1:
                #expect(table.remove(key) { keyOf[Int($0)] } == model.removeValue(forKey: key))
            default:
                #expect(table.find(key) { keyOf[Int($0)] } == model[key])
            }
        }
        #expect(table.count == model.count)
        for (key, value) in model { #expect(table.find(key) { keyOf[Int($0)] } == value) }
    }

    /// A version 2 snapshot as the format's first writer laid it out, byte for byte (three
    /// records, written at a clean close): it must keep loading, in its order.
    @Test func aVersionTwoSnapshotFromFixedBytesLoadsInItsOrder() {
        let bytes: [UInt8] = [
            0x52, 0x54, 0x4E, 0x49, 0x02, 0x00, 0x01, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x2A, 0x36, 0xFE, 0x9C, 0x97, 0x17, 0x4D, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x10,
            0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45, 0x23, 0x01, 0x08, 0x00, 0x00, 0x00, 0x64, 0x00, 0x00, 0x00,
            0x2A, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0xC8, 0x00, 0x00, 0x00,
            0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02, 0x00, 0x00, 0x00, 0x2C, 0x01, 0x00, 0x00,
            0xF6, 0x67, 0x02, 0x31, 0x52, 0x54, 0x4E, 0x4A,
        ]
        let expected = [IndexSnapshot.Record(hash: 0x0123_4567_89AB_CDEF, allocatedBytes: 4096, lastUse: 100),
                        IndexSnapshot.Record(hash: 42, allocatedBytes: 512, lastUse: 200),
                        IndexSnapshot.Record(hash: .max, allocatedBytes: 1024, lastUse: 300)]
        let id = [UInt8](1...16)
        #expect(IndexSnapshot.encode(expected, clean: true, storeID: id, folderModification: 1_700_000_000_000_000_000, folderInode: 77) == bytes)
        bytes.withUnsafeBytes { raw in
            guard case .success(let header) = IndexSnapshot.check(raw, storeID: id) else {
                Issue.record("the fixed snapshot does not check")
                return
            }
            #expect(header == .init(clean: true, count: 3, folderModification: 1_700_000_000_000_000_000, folderInode: 77))
            var index = StoreIndex()
            index.fill(count: header.count) { IndexSnapshot.record(raw, header.count - 1 - $0) }
            #expect(index.records() == expected)
            #expect(index.bytes == 4096 + 512 + 1024)
            #expect(index.coldest?.hash == expected[0].hash)
        }
    }

    /// The loader's one-pass fill gives the index that inserting the records one by one, newest
    /// first, each as the coldest unless present, gives: same order, sizes and totals, and the
    /// same behaviour after touches, inserts and removals. A repeated hash keeps its newest record.
    @Test func fillingInOnePassMatchesInsertingOneByOne() {
        var random = SplitMix64(seed: 11)
        for count in [0, 1, 2, 17, 5_000] {
            // Newest first; a few hashes repeat (only a forged snapshot has such).
            let records = (0..<count).map { i in
                IndexSnapshot.Record(hash: random.below(10) == 0 ? UInt64(random.below(40)) : random.next(),
                                     allocatedBytes: 512 * (1 + random.below(100)), lastUse: UInt32(count - i))
            }
            var filled = StoreIndex()
            filled.fill(count: count) { records[$0] }
            var inserted = StoreIndex()
            for record in records {
                inserted.insertColdestIfAbsent(record.hash, allocatedBytes: record.allocatedBytes, lastUse: record.lastUse)
            }
            #expect(filled.records() == inserted.records())
            #expect(filled.count == inserted.count)
            #expect(filled.bytes == inserted.bytes)
            for step in 0..<200 where count > 0 {
                let hash = records[random.below(count)].hash
                switch step % 3 {
                case 0: #expect(filled.touch(hash, now: 9_999) == inserted.touch(hash, now: 9_999))
                case 1: #expect(filled.remove(hash) == inserted.remove(hash))
                default:
                    filled.insert(hash &+ 1, allocatedBytes: 512, lastUse: 1)
                    inserted.insert(hash &+ 1, allocatedBytes: 512, lastUse: 1)
                }
            }
            #expect(filled.records() == inserted.records())
            #expect(filled.bytes == inserted.bytes)
        }
    }

    @Test func checkablePayloadsFindAnyChangedByte() {
        let payload = CheckablePayload.make(key: "k1", generation: 42, minimum: 1_000, maximum: 2_000_000)
        #expect(payload.count >= 1_000 && payload.count <= 2_000_000)
        #expect(CheckablePayload.check(key: "k1", payload, minimum: 1_000, maximum: 2_000_000))
        #expect(!CheckablePayload.check(key: "k2", payload, minimum: 1_000, maximum: 2_000_000))
        var changed = payload
        changed[changed.count / 2] ^= 1
        #expect(!CheckablePayload.check(key: "k1", changed, minimum: 1_000, maximum: 2_000_000))
    }
}

import CChecksum
private func rtnCRC(_ bytes: UnsafeRawBufferPointer) -> UInt32 { rtn_crc32(0, bytes.baseAddress, bytes.count) }
