#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Imaging
import SystemIO
import Synchronization

/// The identity and cancellation flag of one load. The slot keeps it while the load is in
/// flight; the worker polls the flag without taking the cache's lock.
final class LoadTicket: Sendable {
    let id: UInt64
    private let cancelled = Atomic<Bool>(false)
    /// The load's ``LoadPriority`` raw value: written under the cache's lock as requesters come
    /// and go, read by the decode workers when they choose the next job. An `Atomic`, since the
    /// workers read it under their own lock, not the cache's.
    private let priorityValue = Atomic<Int>(LoadPriority.normal.rawValue)

    init(id: UInt64) {
        self.id = id
    }

    /// What to tell when the priority changes: the queues the load waits in (its jobs on the
    /// decode workers, its fetch waiting for a slot), which then ask it again and reorder. A
    /// `Lock`: added to by the threads that queue the load, read by the one that changes the
    /// priority (under the cache's lock); the watchers run outside it.
    private let priorityWatchers = Lock<[@Sendable () -> Void]>([])

    /// How soon the load runs while it waits for a worker or a fetch slot. Setting a different
    /// one tells the queues the load waits in (``whenPriorityChanges(_:)``): O(log waiting) each.
    var priority: LoadPriority {
        get { LoadPriority(rawValue: priorityValue.load(ordering: .relaxed)) ?? .normal }
        set {
            guard priorityValue.exchange(newValue.rawValue, ordering: .relaxed) != newValue.rawValue else { return }
            for watcher in priorityWatchers.withLock({ $0 }) { watcher() }
        }
    }

    /// Runs `body` after every change of the priority from now on (a queue the load waits in
    /// asks the priority again). A change made before this call is not told: ask it once more
    /// after registering. O(1) amortized; a load registers a watcher per queue it enters.
    func whenPriorityChanges(_ body: @escaping @Sendable () -> Void) {
        priorityWatchers.withLock { $0.append(body) }
    }

    /// The fetch timeout an `image(for:fetchTimeout:)` request gave this load, overriding the
    /// cache's; the shortest given wins. A `Lock`: set under the cache's lock by requests, read
    /// by the fetch's task when the fetch begins.
    private let timeoutOverride = Lock<Duration?>(nil)

    /// The fetch timeout a request gave this load, or nil for the cache's. O(1).
    var fetchTimeout: Duration? { timeoutOverride.withLock { $0 } }

    /// Gives the load `timeout`, unless a request gave a shorter one. Takes effect for a fetch
    /// that has not begun. O(1).
    func limitFetch(to timeout: Duration) {
        timeoutOverride.withLock { current in current = min(current ?? timeout, timeout) }
    }

    /// What to stop when the load is cancelled: its fetch's task. A `Lock`, set by the
    /// thread that starts the fetch and taken by the one that cancels.
    private let onCancel = Lock<(@Sendable () -> Void)?>(nil)

    /// True once the load's last requester went away; its result will be discarded.
    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Marks the load cancelled (called under the cache's lock) and stops its fetch, if one
    /// runs (a task's `cancel`, which never blocks).
    func cancel() {
        cancelled.store(true, ordering: .releasing)
        onCancel.withLock { hook in
            defer { hook = nil }
            return hook
        }?()
    }

    /// Runs `body` when the load is cancelled, at once if it already was. O(1).
    func whenCancelled(_ body: @escaping @Sendable () -> Void) {
        let now = onCancel.withLock { hook -> Bool in
            if isCancelled { return true }
            hook = body
            return false
        }
        if now { body() }
    }
}

/// One load (read if needed, then decode) of one key, handed to a decode worker or run on the
/// appearing thread.
struct LoadJob<Key: Hashable & Sendable>: Sendable {
    let key: Key
    let ticket: LoadTicket
    /// The compressed bytes the cache already had (no source read needed), or nil.
    let compressed: Data?

    /// True once the load was cancelled.
    var isCancelled: Bool { ticket.isCancelled }
}

/// Why a load failed.
enum LoadFailure: Error {
    /// The decoder (or thumbnailer) rejected the bytes.
    case decode(ImagingError)
    /// The source could not provide the bytes.
    case read(any Error)

    /// The error `image(for:)` throws: the `ImagingError` or the source's own error.
    var error: any Error {
        switch self {
        case .decode(let error): return error
        case .read(let error): return error
        }
    }
}

/// What running a load produced.
struct LoadOutcome: Sendable {
    var result: Result<Bitmap, LoadFailure>
    /// Where the bytes came from.
    var origin: LoadOrigin
    /// Compressed bytes read from the disk tier or the source in this load (nil when they came
    /// from memory, when the disk gave a thumbnail, or the read failed).
    var readData: Data? = nil
    /// True when the bitmap was made by the thumbnailer in this load (so the disk tier may
    /// keep it encoded).
    var madeThumbnail = false
    var readDuration: Duration = .zero
    var decodeDuration: Duration = .zero
    /// CPU time the running thread spent reading and decoding (`ThreadCPUTime`).
    var cpuTime: Duration = .zero
}

/// Where a load's run on a thread ended (`ImageCache.runLoad`), beside the reads it made
/// (`LoadIO`), which are counted whatever the step.
enum LoadStep {
    /// The bytes were found and decoded, or a read or the decode failed: the load is done.
    case finished(LoadOutcome)
    /// The load was cancelled (its last requester went) before it finished: nothing is kept.
    case cancelled
    /// The load reached an asynchronous source and stopped before it: the caller fetches (and
    /// counts the source read when the fetch starts).
    case fetch
}

/// The reads one load made, counted into `CacheMetrics` whether or not it was cancelled.
struct LoadIO: Sendable {
    var sourceReads = 0
    var diskHits = 0
    var diskThumbnailHits = 0
    var diskMisses = 0
    var diskReadBytes = 0
    var diskCorruptEntries = 0
    /// 1 when the source's fetch timed out.
    var timedOutFetches = 0

    /// True when the load read nothing (its bytes were in memory, or it was cancelled first).
    var isEmpty: Bool { sourceReads == 0 && diskHits == 0 && diskMisses == 0 }
}

extension CacheMetrics {
    /// Adds one load's reads. O(1).
    mutating func add(_ io: LoadIO) {
        sourceReads += io.sourceReads
        diskHits += io.diskHits
        diskThumbnailHits += io.diskThumbnailHits
        diskMisses += io.diskMisses
        diskReadBytes += io.diskReadBytes
        diskCorruptEntries += io.diskCorruptEntries
        timedOutFetches += io.timedOutFetches
    }
}
