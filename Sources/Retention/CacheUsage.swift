
/// What an ``ImageCache`` holds right now, by state and by representation; read with
/// ``ImageCache/usage`` (O(1), one lock acquisition, no allocation).
///
/// States partition the bytes: every stored representation is in exactly one of `active`,
/// `rowHeld` or `lru`, so `active.total + rowHeld.total + lru.total == totalBytes`.
public struct CacheUsage: Sendable, Hashable {
    /// Held for visible rows: never evicted.
    public var active = ByteBreakdown()
    /// Held for rows that are not visible until they are released (`keepUntilReleased`, and
    /// the bitmaps `strandUntilReleased` rows let go of).
    public var rowHeld = ByteBreakdown()
    /// In the app-level LRUs: bitmaps in the bitmap LRU, compressed bytes in the compressed LRU.
    public var lru = ByteBreakdown()
    /// Keys with an entry (anything stored, visible, loading or a recorded failure).
    public var entryCount = 0
    /// Rows currently visible.
    public var visibleCount = 0
    /// Bitmaps in the bitmap LRU.
    public var evictableCount = 0
    /// Entries in the compressed LRU.
    public var compressedLRUCount = 0
    /// Loads in flight (queued or running).
    public var loadsInFlight = 0
    /// Bitmaps rows let go of that stay allocated until the row is released
    /// (`strandUntilReleased`); their bytes are in `rowHeld`.
    public var strandedCount = 0
    /// Bytes loads in flight hold outside the states above: the compressed bytes they read
    /// (from the source or disk, while they wait for a decode worker and while they decode),
    /// the decode's working memory and the bitmap it is making (estimated from the image's
    /// header: the whole-image inflate's buffer and the bitmap). Not part of ``totalBytes``;
    /// see ``accountedBytes``. Bytes waiting for the disk writer are not counted here
    /// (at most ``ImageCache/maximumPendingDiskWrites`` entries).
    public var loadingBytes = 0

    /// A zero usage. O(1).
    public init() {}

    /// Bytes by representation over all states.
    public var byRepresentation: ByteBreakdown {
        ByteBreakdown(decoded: active.decoded + rowHeld.decoded + lru.decoded,
                      thumbnail: active.thumbnail + rowHeld.thumbnail + lru.thumbnail,
                      compressed: active.compressed + rowHeld.compressed + lru.compressed)
    }
    /// Everything the cache holds.
    public var totalBytes: Int { active.total + rowHeld.total + lru.total }
    /// What the cache holds plus what its loads hold now: ``totalBytes`` + ``loadingBytes``,
    /// the figure to set against the process's resident memory.
    public var accountedBytes: Int { totalBytes + loadingBytes }
    /// Bytes held for visible rows.
    public var activeBytes: Int { active.total }
    /// Bytes held until rows are released.
    public var rowHeldBytes: Int { rowHeld.total }
    /// Bitmap bytes the budget may evict.
    public var evictableBytes: Int { lru.bitmaps }
    /// Compressed bytes in the compressed LRU.
    public var compressedLRUBytes: Int { lru.compressed }
}
