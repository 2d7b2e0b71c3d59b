/// What the soak records after each iteration: one CSV row.
public struct SoakSample: Sendable, Hashable, Codable {
    /// Iteration number, from 1 (warm-up iterations included).
    public var iteration: Int
    /// True for warm-up iterations (not part of the verdict).
    public var warmup: Bool
    /// Seconds since the soak started.
    public var elapsedSeconds: Double
    /// Resident bytes (statm's `resident`, VmRSS).
    public var residentBytes: Int
    /// Resident anonymous bytes: statm's `resident` minus `shared` (heap, stacks, anonymous
    /// mappings). The soak's verdict fits this figure: file-backed pages of the binary and its
    /// libraries are dropped and reloaded by the kernel's page cache, which is not growth.
    public var anonymousBytes: Int
    /// The cache's bytes plus row state.
    public var logicalBytes: Int
    /// Bytes rows hold: visible rows' images and keep-until-released bytes.
    public var rowHeldBytes: Int
    /// Evictable (LRU) bitmap bytes.
    public var evictableBytes: Int
    /// Cache entries.
    public var entries: Int
    /// glibc heap in use.
    public var heapInUseBytes: Int
    /// glibc heap free but held.
    public var heapFreeHeldBytes: Int
    /// Decodes during this iteration.
    public var decodes: Int
    /// Hitches during this iteration.
    public var hitches: Int
    /// Rows in the list now (grows with an infinite feed).
    public var rowsInList: Int
}
