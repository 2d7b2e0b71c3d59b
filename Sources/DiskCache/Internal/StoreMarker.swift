import CChecksum

/// The marker file that makes a folder a store, pure: no I/O, tested on fixed bytes. A store
/// acts only in a folder that holds a valid marker, or in an empty (or new) folder, where it
/// writes one before anything else; a folder with other files and no marker is refused whole.
///
/// ```
/// offset  size  field
///      0     8  magic "RTNSTORE"
///      8     2  format version (1), little-endian
///     10     2  flags (0)
///     12    16  the store's id: random bytes drawn when the folder became a store
///     28     4  CRC-32 of bytes [0, 28)
/// ```
/// The index snapshot carries the same id, so a snapshot copied from another store is not
/// trusted. Exactly 32 bytes: any other size is not a marker.
enum StoreMarker {
    static let magic: [UInt8] = Array("RTNSTORE".utf8)
    static let version: UInt16 = 1
    static let size = 32
    static let idSize = 16

    /// A new random store id. O(1).
    static func newID() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<idSize).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// The marker's bytes for `id` (16 bytes). O(1).
    static func encode(id: [UInt8]) -> [UInt8] {
        precondition(id.count == idSize, "a store id is 16 bytes")
        var bytes = magic + [UInt8(truncatingIfNeeded: version), UInt8(truncatingIfNeeded: version >> 8), 0, 0] + id
        bytes.append(contentsOf: [UInt8](repeating: 0, count: 4))
        bytes.withUnsafeMutableBytes { raw in
            LittleEndian.store(rtn_crc32(0, raw.baseAddress, 28), raw, at: 28)
        }
        return bytes
    }

    /// The store id a marker holds, or nil when `bytes` is not a whole, current marker. O(1).
    static func id(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        guard bytes.count == size, Array(bytes[0..<8]) == magic,
              LittleEndian.load(UInt16.self, bytes, at: 8) == version,
              LittleEndian.load(UInt32.self, bytes, at: 28) == rtn_crc32(0, bytes.baseAddress, 28) else { return nil }
        return Array(bytes[12..<28])
    }

    /// The `CACHEDIR.TAG` file of the Cache Directory Tagging Specification, which tells backup
    /// tools (tar `--exclude-caches`, borg, restic) to skip the folder.
    static let cacheDirectoryTag = Array("""
        Signature: 8a477f597d28d172789f06886806bc55
        # This file is a cache directory tag created by Retention's disk store.
        # For information about cache directory tags, see https://bford.info/cachedir/

        """.utf8)
}
