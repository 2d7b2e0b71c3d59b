import AssetGen
import Glibc

/// Payloads whose every byte can be checked from the key alone, for the disk store's kill and
/// multi-process tests and their helper executable. The first 8 bytes hold a generation
/// (little-endian); the size (log-uniform between a minimum and a maximum) and the rest (a
/// 61-byte pattern, so a shifted or mixed copy shows) follow from the key and that generation,
/// drawn from SplitMix64. O(size) to make or check, by doubling copies and `memcmp`, fast even
/// in a debug build.
public enum CheckablePayload {
    /// The payload of `key` at `generation`, between `minimum` and `maximum` bytes (at least 8).
    public static func make(key: String, generation: UInt64, minimum: Int, maximum: Int) -> [UInt8] {
        var random = SplitMix64(seed: generation)
        for byte in key.utf8 { random = SplitMix64(seed: random.next() ^ UInt64(byte)) }
        let unit = Double(random.next() >> 11) / Double(1 << 53)
        let low = log(Double(max(8, minimum))), high = log(Double(max(8, minimum, maximum)))
        let size = max(8, min(maximum, Int(exp(low + unit * (high - low)))))
        var bytes = withUnsafeBytes(of: generation.littleEndian) { Array($0) }
        bytes.reserveCapacity(size)
        for _ in 0..<min(61, size - 8) { bytes.append(UInt8(truncatingIfNeeded: random.next() >> 56)) }
        while bytes.count < size {
            let take = min(bytes.count - 8, size - bytes.count)
            bytes.append(contentsOf: bytes[8..<(8 + take)])
        }
        return bytes
    }

    /// True when `bytes` is exactly the payload ``make(key:generation:minimum:maximum:)``
    /// gives for `key` and the generation in its first 8 bytes.
    public static func check(key: String, _ bytes: some Collection<UInt8>, minimum: Int, maximum: Int) -> Bool {
        guard bytes.count >= 8 else { return false }
        var generation: UInt64 = 0
        for (i, byte) in bytes.prefix(8).enumerated() { generation |= UInt64(byte) << (8 * UInt64(i)) }
        let expected = make(key: key, generation: generation, minimum: minimum, maximum: maximum)
        let actual = Array(bytes)
        return expected.count == actual.count && memcmp(expected, actual, actual.count) == 0
    }
}
