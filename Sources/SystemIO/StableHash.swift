/// The package's one stable hash: 64-bit FNV-1a over bytes. Unlike Swift's `Hasher`, which is
/// seeded per process, it gives the same value in every run, process and machine, so it can
/// name files (a disk store's entries, the default scenario's folder), stand for string ids,
/// and assign inputs to slices. Not cryptographic: collisions are a caller's to handle.
public enum StableHash {
    /// FNV-1a (64 bits) of `bytes`. O(count).
    @inlinable
    public static func fnv1a64(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        fnv1a64(bytes, continuing: 0xcbf2_9ce4_8422_2325)
    }

    /// FNV-1a (64 bits) of `bytes` following bytes whose hash was `hash`: hashing a file in
    /// chunks gives the hash of the whole. O(count).
    @inlinable
    public static func fnv1a64(_ bytes: UnsafeRawBufferPointer, continuing hash: UInt64) -> UInt64 {
        var hash = hash
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// FNV-1a (64 bits) of `text`'s UTF-8 bytes. O(length).
    @inlinable
    public static func fnv1a64(_ text: String) -> UInt64 {
        var text = text
        return text.withUTF8 { fnv1a64(UnsafeRawBufferPointer($0)) }
    }
}
