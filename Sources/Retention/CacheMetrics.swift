import DiskCache
/// Counters an ``ImageCache`` keeps from its creation; read a snapshot with
/// ``ImageCache/metrics`` (O(1), one lock acquisition, no allocation).
///
/// Hits and misses are counted where a bitmap is looked for (`appeared`, `cachedImage(for:)`,
/// `image(for:)`) against the tier the policy displays (decoded or thumbnail), where a load
/// looks for compressed bytes in memory, and where it looks on disk (a policy with a disk
/// tier) before reading the source. Per tier: ``bitmapHits`` (memory, the bitmap),
/// ``compressedHits`` (memory, the compressed bytes), ``diskHits`` (disk), ``sourceReads``.
public struct CacheMetrics: Sendable, Hashable {
    /// Why bytes left the cache.
    public struct Evictions: Sendable, Hashable {
        /// Representations dropped by the LRU budget, count limit or admission cap.
        public var budget = 0
        /// Representations dropped by ``ImageCache/memoryWarning(_:)``.
        public var memoryWarning = 0
        /// Representations dropped because the policy releases them on disappear, or the row
        /// was released or its container destroyed.
        public var release = 0
        /// Bytes dropped by the budget.
        public var budgetBytes = 0
        /// Bytes dropped by memory warnings.
        public var memoryWarningBytes = 0
        /// Bytes dropped by release.
        public var releaseBytes = 0

        /// All evictions.
        public var total: Int { budget + memoryWarning + release }
    }

    /// Lookups that found a decoded bitmap (policies showing `decoded` or `compressedAndDecoded`).
    public var decodedHits = 0
    /// Lookups of a decoded bitmap that found none.
    public var decodedMisses = 0
    /// Lookups that found a thumbnail (policies showing `thumbnail`).
    public var thumbnailHits = 0
    /// Lookups of a thumbnail that found none.
    public var thumbnailMisses = 0
    /// Loads that found the compressed bytes in the cache (no source read).
    public var compressedHits = 0
    /// Loads that found no compressed bytes in memory: they looked on disk (a policy with a
    /// disk tier), then read the source.
    public var compressedMisses = 0
    /// Loads that read the source (each counted when the read ran, cancelled loads too).
    public var sourceReads = 0
    /// Disk lookups that found a usable entry: the source's bytes or an encoded thumbnail.
    public var diskHits = 0
    /// Of ``diskHits``, encoded thumbnails (decoded instead of made again from the original).
    public var diskThumbnailHits = 0
    /// Disk lookups that found nothing usable: no entry (one failed `open`), a damaged one
    /// (the store removes it), or one that would not decode (see ``diskCorruptEntries``).
    public var diskMisses = 0
    /// Bytes the disk hits read.
    public var diskReadBytes = 0
    /// Entries written to the disk tier (the source's bytes or an encoded thumbnail).
    public var diskWrites = 0
    /// Bytes of the entries written (payloads, before the store's header and block rounding).
    public var diskWriteBytes = 0
    /// Writes the store refused or that failed (a full disk, a read-only or closed store, an
    /// entry over the limit): the entry is not on disk and nothing else changes.
    public var diskWriteFailures = 0
    /// CPU time the disk tier's writer thread spent: encoding thumbnails and writing entries
    /// (`ThreadCPUTime`). Off the caller's and the decode workers' threads, but not free.
    public var diskWriteTime: Duration = .zero
    /// Whether the disk tier writes, and if not, why (``ImageCache/diskWriteState``); nil
    /// without a disk tier. A tier that only reads drops its would-be writes
    /// (``diskWritesDropped``).
    public var diskWriteState: DiskStore.WriteState?
    /// Writes dropped, never retried: not attempted because
    /// ``ImageCache/maximumPendingDiskWrites`` were already waiting, or refused because the
    /// store only reads (another process owns its folder, or it cannot be written). The next
    /// load of such a key reads the source again.
    public var diskWritesDropped = 0
    /// Entries that read whole but did not decode (or decoded to the wrong size): removed from
    /// the store and read as misses, so the load went on to the next tier.
    public var diskCorruptEntries = 0
    /// Loads started (each ends decoded, failed or cancelled).
    public var loads = 0
    /// Successful decodes (full decodes or thumbnails).
    public var decodes = 0
    /// CPU time spent decoding in successful decodes (each loading thread's `ThreadCPUTime`),
    /// summed over all threads: decode work, which other processes' load does not inflate.
    public var decodeTime: Duration = .zero
    /// Wall time spent reading the disk tier and the source (excluding simulated latency),
    /// summed over all threads: it includes waiting, for a network or a disk.
    public var readTime: Duration = .zero
    /// Decodes that failed; the key's failure is recorded until the row is released.
    public var failedDecodes = 0
    /// Source reads that failed, timed-out fetches included; recorded per key like failed
    /// decodes.
    public var failedReads = 0
    /// Fetches of an asynchronous source stopped by their fetch timeout
    /// (``ImageCache/fetchTimeout``, or a request's): each freed its slot and failed its load
    /// with ``ImageCacheError/fetchTimedOut(key:after:)``. Also counted in ``failedReads``,
    /// unless the load had been cancelled meanwhile.
    public var timedOutFetches = 0
    /// Requests that joined a load already in flight instead of starting one.
    public var coalescedRequests = 0
    /// Loads cancelled because their last requester went away (a row disappeared or was
    /// released, a prefetch was withdrawn, an ``ImageCache/image(for:)`` caller's task was
    /// cancelled), whether the load waited for a fetch slot, fetched, or waited to decode.
    public var cancelledLoads = 0
    /// ``ImageCache/image(for:)`` calls that threw `CancellationError` because their task was
    /// cancelled before the image arrived, one per call (the load went on while anyone else
    /// wanted it: the last such call of a load also counts one of ``cancelledLoads``).
    public var cancelledRequests = 0
    /// Loads of an asynchronous source waiting for one of the ``ImageCache/fetchLimit`` slots
    /// at the moment ``ImageCache/metrics`` was read (a gauge, not a counter).
    public var fetchesWaiting = 0
    /// Fetch slots held at the moment ``ImageCache/metrics`` was read (a gauge, not a
    /// counter): fetches running, at most ``ImageCache/fetchLimit``. A fetch that timed out
    /// no longer holds its slot, even while a source that ignores cancellation still runs it.
    public var fetchesInFlight = 0
    /// `cachedImage(for:)` calls for a visible row whose image was not ready (a placeholder frame).
    public var placeholderLookups = 0
    /// Bitmaps or compressed entries refused by the admission cap on their way to an LRU.
    public var admissionRejections = 0
    /// Evictions by cause.
    public var evictions = Evictions()
    /// The most bytes (all representations, all states) the cache has held at once.
    public var peakBytes = 0

    /// A zeroed set of counters. O(1).
    public init() {}

    /// Hits on the displayed bitmap tier, decoded or thumbnail.
    public var bitmapHits: Int { decodedHits + thumbnailHits }
    /// Misses on the displayed bitmap tier.
    public var bitmapMisses: Int { decodedMisses + thumbnailMisses }
    /// Disk lookups: ``diskHits`` + ``diskMisses``.
    public var diskReads: Int { diskHits + diskMisses }
}
