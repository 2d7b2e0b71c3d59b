import CChecksum

/// The layout of one entry file, pure: no I/O, tested on fixed bytes.
///
/// ```
/// offset  size  field
///      0     4  magic "RTNE"
///      4     2  format version (1), little-endian like every integer here
///      6     2  flags (0)
///      8     4  key length K in bytes (UTF-8)
///     12     4  reserved (0)
///     16     8  payload length P
///     24     K  the key
///   24+K     P  the payload
/// 24+K+P     4  CRC-32 of bytes [0, 24+K+P)
/// 28+K+P     4  footer magic "RTNF"
/// ```
/// A file whose magic, version, lengths (against the file's size), CRC or footer disagree is
/// damaged; one whose key differs from the key looked up is another key's entry (a hash
/// collision): a miss, not damage.
enum EntryFormat {
    static let magic: UInt32 = 0x454E_5452  // "RTNE" as little-endian bytes
    static let footerMagic: UInt32 = 0x464E_5452  // "RTNF"
    static let version: UInt16 = 1
    static let headerSize = 24
    static let footerSize = 8
    /// The longest key accepted, in UTF-8 bytes.
    static let maximumKeyBytes = 65_536

    /// Bytes an entry file takes for a key of `keyBytes` and a payload of `payloadBytes`. O(1).
    static func fileSize(keyBytes: Int, payloadBytes: Int) -> Int { headerSize + keyBytes + payloadBytes + footerSize }

    /// The header (with the key) for `key` and a payload of `payloadBytes`. O(key).
    static func header(key: [UInt8], payloadBytes: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: headerSize + key.count)
        bytes.withUnsafeMutableBytes { raw in
            LittleEndian.store(magic, raw, at: 0)
            LittleEndian.store(version, raw, at: 4)
            LittleEndian.store(UInt32(key.count), raw, at: 8)
            LittleEndian.store(UInt64(payloadBytes), raw, at: 16)
            key.withUnsafeBytes { raw.baseAddress!.advanced(by: headerSize).copyMemory(from: $0.baseAddress!, byteCount: key.count) }
        }
        return bytes
    }

    /// The footer for a file whose header and payload have CRC-32 `crc`. O(1).
    static func footer(crc: UInt32) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: footerSize)
        bytes.withUnsafeMutableBytes { raw in
            LittleEndian.store(crc, raw, at: 0)
            LittleEndian.store(footerMagic, raw, at: 4)
        }
        return bytes
    }

    /// The whole file for `key` and `payload`, for tests and small entries. O(size).
    static func encode(key: String, payload: UnsafeRawBufferPointer) -> [UInt8] {
        let header = header(key: Array(key.utf8), payloadBytes: payload.count)
        var crc = header.withUnsafeBytes { rtn_crc32(0, $0.baseAddress, $0.count) }
        crc = rtn_crc32(crc, payload.baseAddress, payload.count)
        return header + Array(payload) + footer(crc: crc)
    }

    /// What is wrong with a damaged entry file.
    enum Damage: Error, Equatable, Sendable {
        /// Shorter than a header and footer.
        case truncated
        /// The first four bytes are not the entry magic.
        case badMagic
        /// A format version this code does not read.
        case unknownVersion(UInt16)
        /// The lengths in the header do not add up to the file's size.
        case lengthMismatch
        /// The footer's magic is wrong.
        case badFooter
        /// The CRC-32 of header and payload differs from the footer's.
        case checksumMismatch
        /// A symbolic link, folder or special file where an entry file should be: never
        /// opened, never followed.
        case notAFile
        /// Larger than the store's limit: never read.
        case tooLarge

        /// A few words for reports ("checksum mismatch").
        var text: String {
            switch self {
            case .truncated: return "truncated"
            case .badMagic: return "not an entry (bad magic)"
            case .unknownVersion(let v): return "unknown format version \(v)"
            case .lengthMismatch: return "lengths do not match the file size"
            case .badFooter: return "bad footer"
            case .checksumMismatch: return "checksum mismatch"
            case .notAFile: return "not a regular file (a link, folder or special file)"
            case .tooLarge: return "larger than the store's limit"
            }
        }
    }

    /// Where the key and payload sit in a whole, checked entry file.
    struct Parts: Equatable {
        var key: Range<Int>
        var payload: Range<Int>
    }

    /// Checks a whole entry file: magic, version, lengths against `bytes.count`, footer and
    /// CRC. O(size) (the CRC).
    static func check(_ bytes: UnsafeRawBufferPointer) -> Result<Parts, Damage> {
        guard bytes.count >= headerSize + footerSize else { return .failure(.truncated) }
        guard LittleEndian.load(UInt32.self, bytes, at: 0) == magic else { return .failure(.badMagic) }
        let fileVersion = LittleEndian.load(UInt16.self, bytes, at: 4)
        guard fileVersion == version else { return .failure(.unknownVersion(fileVersion)) }
        let keyBytes = Int(LittleEndian.load(UInt32.self, bytes, at: 8))
        let payloadBytes = LittleEndian.load(UInt64.self, bytes, at: 16)
        guard keyBytes <= maximumKeyBytes, payloadBytes <= UInt64(bytes.count),
              fileSize(keyBytes: keyBytes, payloadBytes: Int(payloadBytes)) == bytes.count else { return .failure(.lengthMismatch) }
        let body = bytes.count - footerSize
        guard LittleEndian.load(UInt32.self, bytes, at: body + 4) == footerMagic else { return .failure(.badFooter) }
        guard rtn_crc32(0, bytes.baseAddress, body) == LittleEndian.load(UInt32.self, bytes, at: body) else {
            return .failure(.checksumMismatch)
        }
        return .success(Parts(key: headerSize..<(headerSize + keyBytes), payload: (headerSize + keyBytes)..<body))
    }

    /// True when the key stored at `range` of `bytes` is `key`. O(key).
    static func keyMatches(_ key: String, _ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Bool {
        var text = key
        return text.withUTF8 { utf8 in
            utf8.count == range.count && memcmpEqual(utf8.baseAddress, bytes.baseAddress.map { $0 + range.lowerBound }, utf8.count)
        }
    }

    private static func memcmpEqual(_ a: UnsafePointer<UInt8>?, _ b: UnsafeRawPointer?, _ count: Int) -> Bool {
        guard count > 0 else { return true }
        guard let a, let b else { return false }
        return UnsafeRawBufferPointer(start: a, count: count).elementsEqual(UnsafeRawBufferPointer(start: b, count: count))
    }
}
