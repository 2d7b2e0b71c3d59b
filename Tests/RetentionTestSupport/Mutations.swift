import AssetGen
import Foundation

/// Seeded mutations for the fuzz tests: scenario documents (in-process in LabTests, through the
/// tool in RetentionCLITests) and PNG files (ImagingTests and RetentionCLITests).
public enum Mutations {
    /// Values that once reached a trap or an unbounded loop somewhere.
    nonisolated(unsafe) public static let extremes: [Any] = [
        0, -1, 1, 2.5, 1e300, -1e300, 1e16, 9_223_372_036_854_775_807, 1_000_000_000, 1e-300,
        "", "x", [Any](), [String: Any](), NSNull(), true, [1e300, 0], ["repeat": ["times": 1_000_000_000, "steps": []]],
        // Round three: repeats of steps that take no frame, checkpoint storms, names that
        // would split a list or a line.
        ["repeat": ["times": 9_000_000_000_000_000_000, "steps": [["checkpoint": ["name": "c"]]]]],
        [["repeat": ["times": 5000, "steps": [["checkpoint": ["name": "c"]]]]]], "lru, 16MB", "two\nlines",
        ["name": "lru, 16MB", "base": "decoded-lru"],
    ]

    /// A JSON tree (`JSONSerialization`'s objects) with one randomly chosen member replaced by an
    /// extreme, deleted or wrapped in an array.
    public static func scenario(_ value: Any, _ random: inout SplitMix64, depth: Int = 0) -> Any {
        let pick = random.next()
        if var object = value as? [String: Any], !object.isEmpty {
            let keys = object.keys.sorted()
            let key = keys[Int(pick % UInt64(keys.count))]
            switch (pick >> 8) % 6 {
            case 0: object.removeValue(forKey: key)
            case 1: object[key] = extremes[Int((pick >> 16) % UInt64(extremes.count))]
            case 2: object[key] = [object[key] as Any]
            default: object[key] = scenario(object[key] as Any, &random, depth: depth + 1)
            }
            return object
        }
        if var array = value as? [Any], !array.isEmpty {
            let index = Int(pick % UInt64(array.count))
            switch (pick >> 8) % 5 {
            case 0: array.remove(at: index)
            case 1: array.append(array[index])
            default: array[index] = scenario(array[index], &random, depth: depth + 1)
            }
            return array
        }
        return extremes[Int(pick % UInt64(extremes.count))]
    }

    /// One mutation: a lying chunk length, a broken CRC, a truncation, an IHDR field or a byte.
    public static func png(_ original: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        var bytes = original
        let chunks = chunkOffsets(bytes)
        let pick = random.next()
        switch pick % 6 {
        case 0 where !chunks.isEmpty:  // a chunk's length field
            let at = chunks[Int((pick >> 8) % UInt64(chunks.count))]
            let lengths: [UInt32] = [0, 1, 0x7FFF_FFFF, 0xFFFF_FFFF, UInt32(truncatingIfNeeded: random.next())]
            let value = lengths[Int((pick >> 16) % UInt64(lengths.count))]
            for k in 0..<4 { bytes[at + k] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(k))) }
        case 1 where !chunks.isEmpty:  // a CRC byte
            let at = chunks[Int((pick >> 8) % UInt64(chunks.count))]
            let length = Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            let crc = at + 8 + length
            if crc < bytes.count { bytes[crc] ^= 0xFF }
        case 2:  // truncation
            bytes = Array(bytes.prefix(Int((pick >> 8) % UInt64(bytes.count))))
        case 3 where bytes.count > 29:  // IHDR width, height, depth, color type, interlace
            let fields = [16, 17, 20, 21, 24, 25, 28]
            bytes[fields[Int((pick >> 8) % UInt64(fields.count))]] = UInt8(truncatingIfNeeded: random.next())
        default:  // random bytes anywhere
            for _ in 0..<(1 + (pick >> 8) % 8) {
                bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
            }
        }
        return bytes
    }

    /// Offsets of each chunk's length field, walking the chunk list from the signature.
    public static func chunkOffsets(_ bytes: [UInt8]) -> [Int] {
        var offsets: [Int] = [], at = 8
        while at + 8 <= bytes.count {
            offsets.append(at)
            let length = Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            at += 12 + length
        }
        return offsets
    }
}
