import MemoryProbe
import SystemIO

/// Three figures a pipeline logs to see that its budget holds: what the cache may keep, what
/// it keeps (and what its loads and its allocator hold), and what the whole process keeps
/// resident, read from the kernel as MemoryProbe reads it. Made by
/// ``ImageCache/memoryReport()``.
///
/// The budget bounds evictable bitmaps only: visible rows, row-held bitmaps, compressed bytes
/// and loads in flight are on top of it (``RetentionPolicy/countActiveInBudget`` counts visible
/// rows in it). Everything else in the process (other caches, the app's own memory, freed
/// memory other allocations left in malloc's arenas) shows in ``processResidentBytes`` only.
public struct CacheMemoryReport: Sendable, Hashable, CustomStringConvertible {
    /// The policy's bitmap budget, in bytes.
    public var budgetBytes: Int
    /// What the cache holds: ``CacheUsage/totalBytes``.
    public var holdingBytes: Int
    /// What its loads in flight hold: ``CacheUsage/loadingBytes``.
    public var loadingBytes: Int
    /// Free bitmap buffers the cache's allocator keeps for reuse (a `bounded` or `pooled`
    /// pool's held bytes; 0 for `system` and `pageMapped`, whose freed memory is malloc's or
    /// the kernel's).
    public var allocatorHeldBytes: Int
    /// The process's resident memory now (`VmRSS`, from `/proc/self/statm`); nil when it could
    /// not be read (no `/proc`).
    public var processResidentBytes: Int?

    /// What the cache accounts for: holding + loading + allocator-held. O(1).
    public var attributedBytes: Int { holdingBytes + loadingBytes + allocatorHeldBytes }

    /// A report of the given figures. O(1).
    public init(budgetBytes: Int, holdingBytes: Int, loadingBytes: Int, allocatorHeldBytes: Int, processResidentBytes: Int?) {
        self.budgetBytes = budgetBytes
        self.holdingBytes = holdingBytes
        self.loadingBytes = loadingBytes
        self.allocatorHeldBytes = allocatorHeldBytes
        self.processResidentBytes = processResidentBytes
    }

    /// `budget 32.0 MB, holding 43.2 MB (loads 7.6 MB, allocator 4.2 MB free), process resident
    /// 61.0 MB`, in decimal MB.
    public var description: String {
        var text = "budget \(NumberText.size(budgetBytes)), holding \(NumberText.size(holdingBytes))"
        text += " (loads \(NumberText.size(loadingBytes)), allocator \(NumberText.size(allocatorHeldBytes)) free)"
        text += ", process resident " + (processResidentBytes.map { NumberText.size($0) } ?? "unknown")
        return text
    }
}

extension ImageCache {
    /// The budget, what the cache holds and attributes to itself, and the process's resident
    /// memory, now. Costs one lock (as ``usage``), the pool's lock, and one `pread` of
    /// `/proc/self/statm` (about 1 µs, no allocation after the first call in the process).
    public func memoryReport() -> CacheMemoryReport {
        let usage = self.usage
        return CacheMemoryReport(budgetBytes: policy.bitmapBudget.bytes, holdingBytes: usage.totalBytes,
                                 loadingBytes: usage.loadingBytes,
                                 allocatorHeldBytes: allocator.pool?.statistics.heldBytes ?? 0,
                                 processResidentBytes: try? ProcessMemory.residentBytes())
    }
}
