#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import DiskCache
import Imaging
import SystemIO

/// The cache's side of its disk tier: the store, the keys of a key's entries, and the one
/// writer thread. Reads run on the thread that runs the load (a decode worker, or the
/// appearing thread in `synchronous` mode), never under the cache's lock; writes run on the
/// writer, so a load never waits for one. Holds no mutable state of its own: what is pending
/// and what was written is counted in `CacheStore`, under the cache's lock.
final class DiskTierIO<Key: Hashable & Sendable>: Sendable {
    let store: DiskStore
    let tier: RetentionPolicy.DiskTier
    /// `thumbnail:256:good:fit:gamma:` when the tier keeps this policy's thumbnails, else nil.
    let thumbnailPrefix: String?
    /// The longest side a stored thumbnail may have (the representation's size).
    let thumbnailSize: Int
    /// How a key is named in the store (before the `source:` or thumbnail prefix).
    let name: @Sendable (Key) -> String
    /// One writer thread: the store serializes one key's writes anyway, and one thread keeps
    /// the disk's work from competing with decodes for more than one core.
    let writer = DecodeWorkers(limit: 1)

    init(store: DiskStore, tier: RetentionPolicy.DiskTier, visible: RetentionPolicy.Representation, name: @escaping @Sendable (Key) -> String) {
        self.store = store
        self.tier = tier
        self.name = name
        thumbnailPrefix = tier.thumbnails ? RetentionPolicy.DiskTier.thumbnailPrefix(visible) : nil
        if case .thumbnail(let size, _, _) = visible { thumbnailSize = size } else { thumbnailSize = 0 }
    }

    /// The key of `key`'s source bytes. O(length).
    func sourceKey(_ key: Key) -> String { RetentionPolicy.DiskTier.sourceKey(name(key)) }

    /// The key of `key`'s stored thumbnail, when the tier keeps thumbnails. O(length).
    func thumbnailKey(_ key: Key) -> String? { thumbnailPrefix.map { $0 + name(key) } }

    /// The entry's bytes, or nil (no entry, or one the store found damaged and removed).
    /// Costs one `open` on a miss; on a hit an `fstat`, a `pread` and a CRC-32 (O(size)).
    func read(_ entryKey: String) -> Data? { store.data(for: entryKey) }

    /// `data` (a stored thumbnail) decoded under `limits`, or nil when it does not decode or
    /// is larger than the representation's size (not a thumbnail this policy made). O(pixels).
    func decodeThumbnail(_ data: Data, limits: DecodeLimits, allocator: BitmapAllocator) -> Bitmap? {
        guard let bitmap = try? PNGDecoder(limits: limits).decode(data, allocator: allocator),
              max(bitmap.width, bitmap.height) <= thumbnailSize else { return nil }
        return bitmap
    }

    /// Removes an entry that read whole but is unusable, so the next load does not read it
    /// again. One `unlink`.
    func discard(_ entryKey: String) { store.remove(entryKey) }

    /// Writes `writes` (the thumbnail encoded first), then, when the store is over the tier's
    /// budget (a store larger than the budget), trims it to the budget. A failure of any kind
    /// (a full disk, a read-only or closed store, an entry over the limit, an encoding that
    /// failed) is counted and leaves the entry off the disk. Runs on the writer. Costs one
    /// store write per entry plus a PNG encode of the thumbnail.
    func perform(_ writes: DiskWrites<Key>) -> DiskWriteResult {
        var result = DiskWriteResult()
        let start = ThreadCPUTime.now()
        func put(_ data: Data, _ entryKey: String) {
            do {
                try store.store(data, for: entryKey)
                result.writes += 1
                result.bytes += data.count
            } catch {
                result.failures += 1
            }
        }
        if let data = writes.source { put(data, sourceKey(writes.key)) }
        if let bitmap = writes.thumbnail, let entryKey = thumbnailKey(writes.key) {
            if let png = try? RetentionPolicy.DiskTier.thumbnailEncoder.encode(bitmap) {
                put(png, entryKey)
            } else {
                result.failures += 1
            }
        }
        if result.writes > 0, tier.budget.bytes < store.limit, store.usage > tier.budget.bytes {
            _ = store.trim(to: tier.budget)
        }
        result.cpuTime = ThreadCPUTime.now() - start
        return result
    }
}
