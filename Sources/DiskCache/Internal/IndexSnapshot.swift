import CChecksum

/// The index snapshot's layout, pure: no I/O, tested on fixed bytes.
///
/// ```
/// offset  size  field
///      0     4  magic "RTNI"
///      4     2  format version (2), little-endian like every integer here
///      6     2  flags: bit 0 = written at close (clean)
///      8     8  record count N
///     16     8  the entries folder's modification time when written, in ns since 1970
///     24     8  the entries folder's inode
///     32    16  the store's id, as in its marker (``StoreMarker``)
///     48  16×N  records, least recently used first: key hash (8), allocated size in
///               512-byte blocks (4), last use in seconds since 2020-01-01 (4)
///  48+16N    4  CRC-32 of bytes [0, 48+16N)
///  52+16N    4  footer magic "RTNJ"
/// ```
/// Any mismatch (magic, version, store id, count against the size, footer, CRC) makes the
/// snapshot unusable: the store then rebuilds its index from a listing of the entries folder.
/// The header is checked before the rest is read, so a file of the wrong size or another
/// store's costs one small read.
enum IndexSnapshot {
    static let magic: UInt32 = 0x494E_5452  // "RTNI"
    static let footerMagic: UInt32 = 0x4A4E_5452  // "RTNJ"
    static let version: UInt16 = 2
    static let headerSize = 48
    static let recordSize = 16
    static let footerSize = 8
    /// Seconds from 1970 to 2020-01-01, the origin of a record's last use.
    static let epoch = 1_577_836_800

    /// One entry of the index.
    struct Record: Equatable, Sendable {
        var hash: UInt64
        /// Allocated bytes on disk (a multiple of 512).
        var allocatedBytes: Int
        /// Seconds since 2020-01-01.
        var lastUse: UInt32
    }

    /// What the header says beside the records.
    struct Header: Equatable, Sendable {
        var clean: Bool
        var count: Int
        var folderModification: Int64
        var folderInode: UInt64
    }

    /// The bytes a snapshot of `count` records takes. O(1).
    static func fileSize(count: Int) -> Int { headerSize + recordSize * count + footerSize }

    /// The snapshot of `records` (least recently used first). O(records).
    static func encode(_ records: [Record], clean: Bool, storeID: [UInt8], folderModification: Int64, folderInode: UInt64) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: fileSize(count: records.count))
        bytes.withUnsafeMutableBytes { raw in
            LittleEndian.store(magic, raw, at: 0)
            LittleEndian.store(version, raw, at: 4)
            LittleEndian.store(UInt16(clean ? 1 : 0), raw, at: 6)
            LittleEndian.store(UInt64(records.count), raw, at: 8)
            LittleEndian.store(folderModification, raw, at: 16)
            LittleEndian.store(folderInode, raw, at: 24)
            for (i, byte) in storeID.prefix(StoreMarker.idSize).enumerated() { raw[32 + i] = byte }
            var offset = headerSize
            for record in records {
                LittleEndian.store(record.hash, raw, at: offset)
                LittleEndian.store(UInt32(clamping: record.allocatedBytes / 512), raw, at: offset + 8)
                LittleEndian.store(record.lastUse, raw, at: offset + 12)
                offset += recordSize
            }
            let crc = rtn_crc32(0, raw.baseAddress, offset)
            LittleEndian.store(crc, raw, at: offset)
            LittleEndian.store(footerMagic, raw, at: offset + 4)
        }
        return bytes
    }

    /// Why a snapshot cannot be used.
    enum Damage: Error, Equatable {
        case truncated, badMagic, unknownVersion, anotherStore, lengthMismatch, badFooter, checksumMismatch
    }

    /// The record count a snapshot's first ``headerSize`` bytes promise, when they are a
    /// header of this version naming the store `storeID`; nil otherwise. O(1).
    static func expectedCount(_ header: UnsafeRawBufferPointer, storeID: [UInt8]) -> Int? {
        guard header.count >= headerSize, LittleEndian.load(UInt32.self, header, at: 0) == magic,
              LittleEndian.load(UInt16.self, header, at: 4) == version,
              Array(header[32..<48]) == storeID else { return nil }
        let count = LittleEndian.load(UInt64.self, header, at: 8)
        guard count <= UInt64(Int.max / recordSize / 2) else { return nil }
        return Int(count)
    }

    /// Checks a whole snapshot of the store `storeID` and returns its header. O(size) (the CRC).
    static func check(_ bytes: UnsafeRawBufferPointer, storeID: [UInt8]) -> Result<Header, Damage> {
        guard bytes.count >= headerSize + footerSize else { return .failure(.truncated) }
        guard LittleEndian.load(UInt32.self, bytes, at: 0) == magic else { return .failure(.badMagic) }
        guard LittleEndian.load(UInt16.self, bytes, at: 4) == version else { return .failure(.unknownVersion) }
        guard Array(bytes[32..<48]) == storeID else { return .failure(.anotherStore) }
        let count = LittleEndian.load(UInt64.self, bytes, at: 8)
        guard count <= UInt64(bytes.count / recordSize), fileSize(count: Int(count)) == bytes.count else { return .failure(.lengthMismatch) }
        let body = bytes.count - footerSize
        guard LittleEndian.load(UInt32.self, bytes, at: body + 4) == footerMagic else { return .failure(.badFooter) }
        guard rtn_crc32(0, bytes.baseAddress, body) == LittleEndian.load(UInt32.self, bytes, at: body) else {
            return .failure(.checksumMismatch)
        }
        return .success(Header(clean: LittleEndian.load(UInt16.self, bytes, at: 6) & 1 == 1, count: Int(count),
                               folderModification: LittleEndian.load(Int64.self, bytes, at: 16),
                               folderInode: LittleEndian.load(UInt64.self, bytes, at: 24)))
    }

    /// Record `index` of a checked snapshot. O(1).
    static func record(_ bytes: UnsafeRawBufferPointer, _ index: Int) -> Record {
        let offset = headerSize + index * recordSize
        return Record(hash: LittleEndian.load(UInt64.self, bytes, at: offset),
                      allocatedBytes: Int(LittleEndian.load(UInt32.self, bytes, at: offset + 8)) * 512,
                      lastUse: LittleEndian.load(UInt32.self, bytes, at: offset + 12))
    }
}
