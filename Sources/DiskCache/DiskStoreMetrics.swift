/// What a ``DiskStore`` has done since it opened. Reading ``DiskStore/metrics`` is O(1): every
/// counter is an atomic, and the sizes come from the index's running totals.
public struct DiskStoreMetrics: Sendable, Equatable {
    /// Lookups that returned an entry.
    public var hits = 0
    /// Lookups that returned nil: no file, another key's file (a hash collision), or a damaged file.
    public var misses = 0
    /// Entries stored.
    public var writes = 0
    /// Failed writes by `errno` (`ENOSPC`, `EDQUOT`, `EIO` …): the temporary file is removed
    /// each time.
    public var writeFailures: [Int32: Int] = [:]
    /// Writes refused while paused after a full disk, before any file was touched.
    public var writesRefusedWhilePaused = 0
    /// Entries evicted, by why.
    public var evictions: [EvictionReason: Int] = [:]
    /// Damaged entries found (by lookups or ``DiskStore/verify()``) and removed.
    public var corruptEntries = 0
    /// Temporary files of killed writers removed when ownership was taken.
    public var temporaryFilesRemoved = 0
    /// How the index was made at open.
    public var indexState: IndexState = .loading
    /// Nanoseconds from the start of `init` to its return (lookups can run from then on).
    public var openNanoseconds = 0
    /// Nanoseconds from the start of `init` until the index was complete (nil while loading).
    public var indexNanoseconds: Int?
    /// Allocated bytes of the entries, the index snapshot and the lock file, as the store
    /// counts them (`st_blocks × 512`).
    public var bytes = 0
    /// Entries in the index.
    public var entries = 0
    /// True while writes are paused after a full disk.
    public var writesPaused = false

    /// Why an entry left the store other than by ``DiskStore/remove(_:)`` or ``DiskStore/clear()``.
    public enum EvictionReason: String, Sendable, Hashable, CaseIterable {
        /// The store passed about 95 % of its limit on a write and evicted down to about 90 %.
        case size
        /// ``DiskStore/trim(to:)-(ByteSize)`` asked for a smaller size.
        case trim
        /// The file system ran out of space.
        case diskFull
    }

    /// Where the index came from.
    public enum IndexState: String, Sendable, Equatable {
        /// Still being read or rebuilt in the background; lookups already work.
        case loading
        /// Loaded from a snapshot written at the last close, checked and current.
        case fresh
        /// Rebuilt from a listing of the entries folder: the snapshot was missing, stale
        /// (the last owner did not close) or damaged.
        case rebuilt
        /// A read-only store keeps no index.
        case none
    }

    /// A metrics value with every counter at zero. O(1).
    public init() {}
}
