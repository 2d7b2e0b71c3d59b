/// Where an ``ImageCache`` decodes the image of a row that appears without one.
public enum DisplayMode: Sendable, Hashable {
    /// On the caller's thread, before ``ImageCache/appeared(_:)`` returns — what a naive
    /// SwiftUI row does when it decodes in `body` or `onAppear`. The time taken is returned
    /// in ``AppearOutcome`` so a lab can charge it to the frame. Prefetches and
    /// `image(for:)` still use one background worker.
    case synchronous
    /// On a bounded pool of `workers` decode workers: `appeared` queues the load and returns
    /// at once; the row shows a placeholder until the load completes.
    case asynchronous(workers: Int)

    /// Decode workers the cache starts: `workers`, or 1 for `synchronous` (prefetch and
    /// `image(for:)`).
    public var workerCount: Int {
        switch self {
        case .synchronous: return 1
        case .asynchronous(let workers): return max(1, workers)
        }
    }
}
