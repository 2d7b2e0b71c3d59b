#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Imaging

/// Entries a finished load hands to the disk tier's writer: the source's bytes it read, and
/// the thumbnail it made (encoded on the writer thread). Each is marked pending under the
/// lock until written, so one key is never written twice at once.
struct DiskWrites<Key: Hashable & Sendable>: Sendable {
    let key: Key
    var source: Data?
    var thumbnail: Bitmap?

    /// The pending marks these writes hold (``DiskWrites/sourceMark``, ``DiskWrites/thumbnailMark``).
    var marks: UInt8 { (source != nil ? Self.sourceMark : 0) | (thumbnail != nil ? Self.thumbnailMark : 0) }

    static var sourceMark: UInt8 { 1 }
    static var thumbnailMark: UInt8 { 2 }
}

/// What the writer did with one ``DiskWrites``.
struct DiskWriteResult: Sendable {
    var writes = 0
    var bytes = 0
    var failures = 0
    /// Writes the store refused because it only reads (another process owns its folder, or it
    /// cannot be written): dropped, not failed.
    var dropped = 0
    /// The writer thread's CPU time for them (encoding a thumbnail, the writes).
    var cpuTime = Duration.zero
}

extension CacheDiskTier {
    /// What ``admit(_:tier:origin:readData:thumbnail:pending:keysPending:)`` decided.
    enum Admission: Sendable {
        /// Nothing to write: the tier keeps neither, or a write of each is already pending.
        case nothing
        /// Entries dropped because too many keys already wait for the writer.
        case dropped(entries: Int)
        /// Entries to write; the caller marks them pending.
        case write(DiskWrites<Key>)
    }

    /// The tier's write admission after a successful load, a pure function the cache calls
    /// under its lock: the source's bytes when they came from the source and the tier keeps
    /// them, the thumbnail when the load made one (`thumbnail`) and the tier keeps them — each
    /// only when no write of it for this key is `pending` — and nothing but a count of what is
    /// dropped when ``ImageCache/maximumPendingDiskWrites`` keys already wait (`keysPending`)
    /// and this key is not among them. O(1).
    static func admit(_ key: Key, tier: RetentionPolicy.DiskTier, origin: LoadOrigin, readData: Data?, thumbnail: Bitmap?,
                      pending: UInt8, keysPending: Int) -> Admission {
        var writes = DiskWrites(key: key)
        if tier.source, origin == .source, pending & DiskWrites<Key>.sourceMark == 0 { writes.source = readData }
        if tier.thumbnails, pending & DiskWrites<Key>.thumbnailMark == 0 { writes.thumbnail = thumbnail }
        guard writes.marks != 0 else { return .nothing }
        if pending == 0 && keysPending >= ImageCache<Key>.maximumPendingDiskWrites {
            return .dropped(entries: (writes.source != nil ? 1 : 0) + (writes.thumbnail != nil ? 1 : 0))
        }
        return .write(writes)
    }
}
