/// Where an ``ImageCache`` decodes the image of a row that appears without one.
public enum DisplayMode: Sendable, Hashable {
    /// On the caller's thread, before ``ImageCache/appeared(_:)`` returns — what a naive
    /// SwiftUI row does when it decodes in `body` or `onAppear`. The time taken is returned
    /// in ``AppearOutcome`` so a lab can charge it to the frame. Prefetches and
    /// `image(for:)` still use one background worker.
    ///
    /// With an asynchronous source (``ImageSource/init(fetch:)``) the caller's thread blocks
    /// for the fetch, whose task runs on a dedicated fetch thread, not on Swift's cooperative
    /// pool: `appeared` called from tasks (even more of them than the pool has threads) cannot
    /// starve the fetch it waits for. The cache's `fetchTimeout` bounds that wait; past it the
    /// fetch is cancelled and the row's load fails with ``ImageCacheError/fetchTimedOut(key:after:)``.
    case synchronous
    /// On a bounded pool of `workers` decode workers: `appeared` queues the load and returns
    /// at once; the row shows a placeholder until the load completes.
    case asynchronous(workers: Int)
    /// Like `asynchronous`, but the caller decides when each appearing row's load starts:
    /// `appeared` registers the load and returns at once, and the load waits until
    /// ``ImageCache/startLoad(_:)`` hands it to the workers — for a caller with its own
    /// scheduler (a priority queue, or the lab's virtual decode workers). A row that
    /// disappears before its load starts cancels it having cost nothing. Prefetches and
    /// `image(for:)` start their loads at once, and a waiting load they join starts then.
    case scheduled(workers: Int)

    /// Decode workers the cache starts: `workers`, or 1 for `synchronous` (prefetch and
    /// `image(for:)`). O(1).
    public var workerCount: Int {
        switch self {
        case .synchronous: return 1
        case .asynchronous(let workers), .scheduled(let workers): return max(1, workers)
        }
    }
}
