import DiskCache
import Imaging
import Retention
import SystemIO
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The thumbnails a batch made before, kept in a `DiskStore` (`retention thumbnail --cache
/// DIR`), so a batch that runs again over files it has seen writes their thumbnails without
/// decoding them.
///
/// An entry's key is everything that decides the thumbnail's bytes plus the input's identity:
/// the transform as the image cache's disk tier names it
/// (`RetentionPolicy.DiskTier.thumbnailTransformPrefix`, `thumbnail:<box>:<quality>:<mode>:<light>:`),
/// then `png/<format> level=<level> zlib=<strategy> filter=<filter>` (and ` encoder=fast` for
/// the fast encoder's files), then `<device>:<inode> <size>
/// <mtime in ns> <ctime in ns>`. A changed file misses and is made again: new contents
/// make a new modification time and change time; a file replaced by rename gets a new inode
/// or, when the file system hands the old inode back to a new file of the same size and a
/// normalised mtime (`tar --mtime`, `SOURCE_DATE_EPOCH`, Nix), a new change time, which no
/// program can set back. So does a file copied or moved to another file system. The identity
/// is taken before the thumbnail is made and again after, and the entry is stored only when
/// both agree, so a file changing while it is read is never cached under its old identity.
///
/// Not seen by the identity key: a file whose contents change while its inode's change time
/// does not, which takes a clock set back or a file system that does not keep change times
/// (some network and FUSE file systems). ``Verification/content`` keys by a hash of the input's
/// bytes instead, at the cost of reading every input in full on every run.
///
/// An entry's value is a 16-byte header (magic `RTHM`, the source's width and height as
/// little-endian `UInt32`s, 4 reserved bytes) and the thumbnail's PNG file as written. Every
/// entry checks itself (the store's CRC-32), so a damaged one is a miss.
package final class ThumbnailCache: Sendable {
    /// How an input is recognised as one the cache has seen.
    package enum Verification: String, Sendable, CaseIterable {
        /// By its identity: device, inode, size, modification and change times. One `stat`.
        case identity
        /// By a 64-bit hash (FNV-1a) of its bytes and its size: the input is read in full on
        /// every run, and a file copied elsewhere hits too.
        case content
    }

    /// The folder the store keeps.
    package let folder: String
    /// How inputs are recognised.
    package let verification: Verification
    private let store: DiskStore
    private let settings: String

    /// Bumped when the thumbnail of the same input and options would differ (a new resampler,
    /// a new encoder), or the key's form changes, so old entries miss (4: the transform named
    /// as the image cache's disk tier names it).
    static let formatVersion = 4
    static let magic: [UInt8] = Array("RTHM".utf8)

    /// Opens (creating it if missing) the store in `folder`, at most `limit` bytes on disk, for
    /// thumbnails made by `thumbnailer` and written by `encoder`. A folder another process
    /// owns, or one this process cannot write, opens for reading: hits work, new thumbnails are
    /// not added (``writeState``). Throws the store's `DiskStoreError` (a file in the way, a
    /// folder that is not a cache, a folder that cannot be made). Costs the store's open (its
    /// index loads in the background).
    /// `onWriteStateChange` hears of later changes (the store's ``DiskStore/Options/onWriteStateChange``).
    package init(folder: String, limit: Int, thumbnailer: Thumbnailer, encoder: PNGEncoder,
                verification: Verification = .identity,
                onWriteStateChange: (@Sendable (DiskStore.WriteState) -> Void)? = nil) throws(DiskStoreError) {
        self.folder = folder
        self.verification = verification
        var options = DiskStore.Options()
        options.onWriteStateChange = onWriteStateChange
        store = try DiskStore(folder: folder, limit: ByteSize(bytes: limit), options: options)
        settings = RetentionPolicy.DiskTier.thumbnailTransformPrefix(width: thumbnailer.width, height: thumbnailer.height, mode: thumbnailer.mode,
                                                                     quality: thumbnailer.quality, linearLight: thumbnailer.linearLight)
            + "png/\(Self.formatVersion) level=\(encoder.compressionLevel) zlib=\(encoder.strategy.rawValue) filter=\(encoder.filter.rawValue)"
            // The fast encoder's files differ from zlib's; zlib's entries keep their keys.
            + (encoder.compression == .fast ? " encoder=fast" : "")
    }

    /// True when nothing is added: another process owns the folder, or it cannot be written. O(1).
    package var isReadOnly: Bool { !store.isOwner }

    /// Whether the store writes, and if not, why. O(1) (a small read for a reader).
    package var writeState: DiskStore.WriteState { store.writeState }

    /// The store's counters: hits, misses, writes, write failures. O(1).
    package var metrics: DiskStoreMetrics { store.metrics }

    /// The identity part of a key: what `stat` says of the file. O(1).
    func identity(of status: FileIO.Status) -> String {
        "\(status.device):\(status.inode) \(status.size) \(status.modificationNanoseconds) \(status.changeNanoseconds)"
    }

    /// The key for the file at `path` whose status is `status`: by identity, or by a hash of
    /// its bytes (read in 64 KiB chunks; nil when it cannot be read). O(1) by identity;
    /// O(size) by content.
    func key(for status: FileIO.Status, path: String) -> String? {
        switch verification {
        case .identity:
            return "\(settings) \(identity(of: status))"
        case .content:
            guard let (hash, size) = Self.contentHash(path) else { return nil }
            return "\(settings) content=\(String(hash, radix: 16)) \(size)"
        }
    }

    /// FNV-1a (64 bits) and size of the regular file at `path`, read in 64 KiB chunks (never
    /// a FIFO, never more than 64 KiB in memory). O(size).
    static func contentHash(_ path: String) -> (hash: UInt64, size: Int)? {
        guard let file = try? FileDescriptor.openRegularFile(path) else { return nil }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var size = 0
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { (try? file.read(into: $0)) ?? -1 }
            if n < 0 { return nil }
            if n == 0 { return (hash, size) }
            size += n
            hash = buffer.withUnsafeBytes { StableHash.fnv1a64(UnsafeRawBufferPointer(rebasing: $0[0..<n]), continuing: hash) }
        }
    }

    /// A cached thumbnail: the PNG bytes and the source's size.
    struct Entry {
        var png: Data
        var sourceWidth: Int, sourceHeight: Int
    }

    /// The entry stored under `key`, or nil (a miss, or an entry that is not one of ours).
    /// Costs one file read of the entry.
    func entry(forKey key: String) -> Entry? {
        guard let value = store.data(for: key), value.count > 16, Array(value.prefix(4)) == Self.magic else { return nil }
        let bytes = Array(value.prefix(16))
        func word(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        return Entry(png: value.dropFirst(16), sourceWidth: word(4), sourceHeight: word(8))
    }

    /// Stores `png`, the thumbnail of a source of the given size, under `key`. Throws the
    /// store's error (read-only, full, too large); the batch counts it and goes on. Costs one
    /// entry write (a temporary file and a rename).
    func store(_ png: Data, sourceWidth: Int, sourceHeight: Int, forKey key: String) throws(DiskStoreError) {
        var value = Data(capacity: png.count + 16)
        value.append(contentsOf: Self.magic)
        for word in [UInt32(clamping: sourceWidth), UInt32(clamping: sourceHeight), 0] {
            value.append(contentsOf: [UInt8(truncatingIfNeeded: word), UInt8(truncatingIfNeeded: word >> 8), UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 24)])
        }
        value.append(png)
        try store.store(value, for: key)
    }

    /// Writes the index snapshot and releases the folder. Costs the snapshot's write.
    package func close() {
        store.close()
    }
}
