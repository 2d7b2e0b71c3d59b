import DiskCache
import Imaging
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
/// `thumbnail/<format> <box> <mode> <quality> <light> <level> <zlib> <device>:<inode>
/// <size> <mtime in ns>`. A changed file (new contents make a new modification time; a file
/// replaced by rename gets a new inode) misses and is made again; so does a file copied or
/// moved to another file system. The identity is taken before the thumbnail is made and again
/// after, and the entry is stored only when both agree, so a file changing while it is read is
/// never cached under its old identity. Not covered: a file rewritten in place to the same size
/// within one tick of the file system's clock with its modification time set back (`touch
/// -d`); clear the cache after such a change.
///
/// An entry's value is a 16-byte header (magic `RTHM`, the source's width and height as
/// little-endian `UInt32`s, 4 reserved bytes) and the thumbnail's PNG file as written. Every
/// entry checks itself (the store's CRC-32), so a damaged one is a miss.
public final class ThumbnailCache: Sendable {
    /// The folder the store keeps.
    public let folder: String
    private let store: DiskStore
    private let settings: String

    /// Bumped when the thumbnail of the same input and options would differ (a new resampler,
    /// a new encoder), so old entries miss.
    static let formatVersion = 2
    static let magic: [UInt8] = Array("RTHM".utf8)

    /// Opens (creating it if missing) the store in `folder`, at most `limit` bytes on disk, for
    /// thumbnails made by `thumbnailer` and written by `encoder`. A folder another process
    /// owns opens for reading: hits work, new thumbnails are not added (``isReadOnly``).
    /// Throws the store's `DiskStoreError` (a file in the way, a folder that cannot be made).
    /// Costs the store's open (its index loads in the background).
    public init(folder: String, limit: Int, thumbnailer: Thumbnailer, encoder: PNGEncoder) throws(DiskStoreError) {
        self.folder = folder
        store = try DiskStore(folder: folder, limit: limit)
        settings = "thumbnail/\(Self.formatVersion) \(thumbnailer.width)x\(thumbnailer.height) \(thumbnailer.mode.rawValue) \(thumbnailer.quality.rawValue) "
            + "\(thumbnailer.linearLight ? "linear" : "stored") level=\(encoder.compressionLevel) zlib=\(encoder.strategy.rawValue) filter=\(encoder.filter.rawValue)"
    }

    /// True when another process owns the folder, so nothing is added. O(1).
    public var isReadOnly: Bool { !store.isOwner }

    /// The store's counters: hits, misses, writes, write failures. O(1).
    public var metrics: DiskStoreMetrics { store.metrics }

    /// The key for the file whose identity is `status`. O(1).
    func key(for status: FileIO.Status) -> String {
        "\(settings) \(status.device):\(status.inode) \(status.size) \(status.modificationNanoseconds)"
    }

    /// A cached thumbnail: the PNG bytes and the source's size.
    struct Entry {
        var png: Data
        var sourceWidth: Int, sourceHeight: Int
    }

    /// The entry for the file whose identity is `status`, or nil (a miss, or an entry that is
    /// not one of ours). Costs one file read of the entry.
    func entry(for status: FileIO.Status) -> Entry? {
        guard let value = store.data(for: key(for: status)), value.count > 16, Array(value.prefix(4)) == Self.magic else { return nil }
        let bytes = Array(value.prefix(16))
        func word(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        return Entry(png: value.dropFirst(16), sourceWidth: word(4), sourceHeight: word(8))
    }

    /// Stores `png`, the thumbnail of a source of the given size, for the file whose identity
    /// is `status`. Throws the store's error (read-only, full, too large); the batch counts
    /// it and goes on. Costs one entry write (a temporary file and a rename).
    func store(_ png: Data, sourceWidth: Int, sourceHeight: Int, for status: FileIO.Status) throws(DiskStoreError) {
        var value = Data(capacity: png.count + 16)
        value.append(contentsOf: Self.magic)
        for word in [UInt32(clamping: sourceWidth), UInt32(clamping: sourceHeight), 0] {
            value.append(contentsOf: [UInt8(truncatingIfNeeded: word), UInt8(truncatingIfNeeded: word >> 8), UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 24)])
        }
        value.append(png)
        try store.store(value, for: key(for: status))
    }

    /// Writes the index snapshot and releases the folder. Costs the snapshot's write.
    public func close() {
        store.close()
    }
}
