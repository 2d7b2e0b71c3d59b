#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import DiskCache
import Imaging
import SystemIO

/// The cache's disk tier as one object: the store, the names of a key's entries, the order a
/// load looks in (a stored thumbnail, then the source's bytes), what it counts, and the one
/// writer thread. Reads run on the thread that runs the load (a decode worker, or the
/// appearing thread in `synchronous` mode), never under the cache's lock; writes run on the
/// writer, so a load never waits for one. Holds no mutable state of its own: a load's reads
/// are counted in its `LoadIO`, and what is pending and written in `CacheState`, under the
/// cache's lock.
final class CacheDiskTier<Key: Hashable & Sendable>: Sendable {
    let store: any ImageCacheDiskStore
    let tier: RetentionPolicy.DiskTier
    /// `thumbnail:256:good:fit:gamma:` when the tier keeps this policy's thumbnails, else nil.
    let thumbnailPrefix: String?
    /// The longest side a stored thumbnail may have (the representation's size).
    let thumbnailSize: Int
    /// How a key is named in the store (before the `source:` or thumbnail prefix).
    let name: @Sendable (Key) -> String
    /// The cache's caps and allocator, for decoding stored thumbnails.
    let decodeLimits: DecodeLimits
    let allocator: BitmapAllocator
    /// One writer thread: the store serializes one key's writes anyway, and one thread keeps
    /// the disk's work from competing with decodes for more than one core.
    let writer = WorkerPool(threads: 1, name: "retention.disk")

    init(store: any ImageCacheDiskStore, tier: RetentionPolicy.DiskTier, visible: RetentionPolicy.Representation,
         decodeLimits: DecodeLimits, allocator: BitmapAllocator, name: @escaping @Sendable (Key) -> String) {
        self.store = store
        self.tier = tier
        self.name = name
        self.decodeLimits = decodeLimits
        self.allocator = allocator
        thumbnailPrefix = tier.thumbnails ? RetentionPolicy.DiskTier.thumbnailPrefix(visible) : nil
        if case .thumbnail(let size, _, _) = visible { thumbnailSize = size } else { thumbnailSize = 0 }
    }

    /// The key of `key`'s source bytes. O(length).
    func sourceKey(_ key: Key) -> String { RetentionPolicy.DiskTier.sourceKey(name(key)) }

    /// The key of `key`'s stored thumbnail, when the tier keeps thumbnails. O(length).
    func thumbnailKey(_ key: Key) -> String? { thumbnailPrefix.map { $0 + name(key) } }

    /// True when the tier holds no entry for `key`, so a load will reach the source. One
    /// `fstatat` per entry kind.
    func lacks(_ key: Key) -> Bool {
        if let thumbnail = thumbnailKey(key), store.contains(thumbnail) { return false }
        return !(tier.source && store.contains(sourceKey(key)))
    }

    /// What a look in the tier found.
    enum Found {
        /// A usable entry: its bitmap, where it came from, the source's bytes when those were
        /// what it read, and the decode's CPU time.
        case bitmap(Bitmap, LoadOrigin, sourceBytes: Data?, decodeDuration: Duration)
        /// Nothing usable: the load goes on to the source.
        case missing
        /// The load was cancelled before a read or a decode.
        case cancelled
    }

    /// Looks for `key`: its stored thumbnail (decoded here, and usable only when no larger
    /// than the representation), then its source bytes (decoded by `decodeSource`). Each
    /// read is counted in `io` once: a hit when the entry proved usable, else a miss (and a
    /// damaged entry, removed from the store, when it read whole but did not decode). Read
    /// times add to `readDuration` (wall time: the disk may wait). Checks `isCancelled` before
    /// every read and decode. Costs one store lookup per kind tried, plus the decode.
    func find(_ key: Key, io: inout LoadIO, readDuration: inout Duration, isCancelled: () -> Bool,
              decodeSource: (Data) -> Bitmap?) -> Found {
        if let entryKey = thumbnailKey(key) {
            let found = look(entryKey, .diskThumbnail, &io, &readDuration, isCancelled) { data in
                guard let bitmap = try? PNGDecoder(limits: decodeLimits).decode(data, allocator: allocator),
                      max(bitmap.width, bitmap.height) <= thumbnailSize else { return nil }
                return bitmap
            }
            if case .missing = found {} else { return found }
        }
        guard tier.source else { return .missing }
        return look(sourceKey(key), .disk, &io, &readDuration, isCancelled, decodeSource)
    }

    /// One entry: read, decoded by `decode`, counted. See ``find(_:io:readDuration:isCancelled:decodeSource:)``.
    private func look(_ entryKey: String, _ origin: LoadOrigin, _ io: inout LoadIO, _ readDuration: inout Duration,
                      _ isCancelled: () -> Bool, _ decode: (Data) -> Bitmap?) -> Found {
        if isCancelled() { return .cancelled }
        let clock = ContinuousClock()
        let start = clock.now
        let data = store.data(for: entryKey)
        readDuration += start.duration(to: clock.now)
        guard let data else {
            io.diskMisses += 1
            return .missing
        }
        func hit() {
            io.diskHits += 1
            io.diskReadBytes += data.count
            if origin == .diskThumbnail { io.diskThumbnailHits += 1 }
        }
        if isCancelled() {
            hit()
            return .cancelled
        }
        let decodeStart = ThreadCPUTime.now()
        guard let bitmap = decode(data) else {
            // Read whole but unusable (the tier writes only bytes that decoded): a miss, and
            // removed so that the next load does not read it again.
            io.diskMisses += 1
            io.diskCorruptEntries += 1
            store.remove(entryKey)
            return .missing
        }
        hit()
        return .bitmap(bitmap, origin, sourceBytes: origin == .disk ? data : nil, decodeDuration: ThreadCPUTime.now() - decodeStart)
    }

    /// Writes `writes` (the thumbnail encoded first), then, when the store is over the tier's
    /// budget (a store larger than the budget), trims it to the budget. A failure of any kind
    /// (a full disk, a read-only or closed store, an entry over the limit, an encoding that
    /// failed) is counted and leaves the entry off the disk; a write refused because the store
    /// only reads is counted as dropped. Runs on the writer. Costs one
    /// store write per entry plus a PNG encode of the thumbnail.
    func write(_ writes: DiskWrites<Key>) -> DiskWriteResult {
        var result = DiskWriteResult()
        let start = ThreadCPUTime.now()
        func put(_ data: Data, _ entryKey: String) {
            do {
                try store.store(data, for: entryKey)
                result.writes += 1
                result.bytes += data.count
            } catch .readOnly {
                // Another process owns the folder (or it cannot be written): the entry is
                // dropped, not kept for later; the next load of the key fetches it again.
                result.dropped += 1
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
