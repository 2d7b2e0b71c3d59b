import Synchronization

/// The store's counters: `Atomic`s, so every lookup and write counts without a lock, and
/// reading them all is O(1). Only counted, never waited on (write failures by `errno` are
/// counted in the store's state, under its lock).
final class Counters: Sendable {
    let hits = Atomic<Int>(0)
    let misses = Atomic<Int>(0)
    let writes = Atomic<Int>(0)
    let refusedWhilePaused = Atomic<Int>(0)
    let corrupt = Atomic<Int>(0)
    let temporaryFilesRemoved = Atomic<Int>(0)
    let evictedForSize = Atomic<Int>(0)
    let evictedByTrim = Atomic<Int>(0)
    let evictedForDiskFull = Atomic<Int>(0)

    func add(_ counter: borrowing Atomic<Int>, _ amount: Int = 1) {
        counter.add(amount, ordering: .relaxed)
    }

    func evicted(_ count: Int, _ reason: DiskStoreMetrics.EvictionReason) {
        guard count > 0 else { return }
        switch reason {
        case .size: add(evictedForSize, count)
        case .trim: add(evictedByTrim, count)
        case .diskFull: add(evictedForDiskFull, count)
        }
    }

    /// The counters as metrics (sizes and index state are filled in by the store).
    func metrics() -> DiskStoreMetrics {
        var m = DiskStoreMetrics()
        m.hits = hits.load(ordering: .relaxed)
        m.misses = misses.load(ordering: .relaxed)
        m.writes = writes.load(ordering: .relaxed)
        m.writesRefusedWhilePaused = refusedWhilePaused.load(ordering: .relaxed)
        m.corruptEntries = corrupt.load(ordering: .relaxed)
        m.temporaryFilesRemoved = temporaryFilesRemoved.load(ordering: .relaxed)
        for reason in DiskStoreMetrics.EvictionReason.allCases {
            let value: Int
            switch reason {
            case .size: value = evictedForSize.load(ordering: .relaxed)
            case .trim: value = evictedByTrim.load(ordering: .relaxed)
            case .diskFull: value = evictedForDiskFull.load(ordering: .relaxed)
            }
            if value > 0 { m.evictions[reason] = value }
        }
        return m
    }
}
