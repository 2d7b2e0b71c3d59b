import SystemIO

/// The background fetch a task runs for a cache, set as a task-local around the source's
/// `fetch` (and inherited by the tasks it starts), so that a fetch which awaits the same cache's
/// ``ImageCache/image(for:)`` for another key can give its fetch slot back while it waits
/// (nested fetches then never hold every slot the inner ones need), and a fetch that would wait
/// for a load in its own chain (A's fetch awaits A, or A → B → A) is refused with
/// ``ImageCacheError/fetchCycle(keys:)`` instead of waiting for itself. Whether the slot is held
/// sits in a `Lock` (the fetch's task and the tasks it starts may touch it). O(1) per call.
final class FetchScope: Sendable {
    /// The fetch slots of the cache the fetch runs for (its identity tells caches apart).
    let limiter: FetchLimiter
    /// The keys of the chain of fetches this one belongs to, outermost first, as text.
    let keys: [String]
    /// The load's ticket, whose priority a slot taken again is queued by.
    let ticket: LoadTicket
    private let holdsSlot = Lock(true)

    /// The fetch the current task runs, if any.
    @TaskLocal static var current: FetchScope?

    /// A fetch of `key` holding a slot of `limiter`, inside the chain of `outer` when that is a
    /// fetch of the same cache. O(chain).
    init(limiter: FetchLimiter, key: String, ticket: LoadTicket, outer: FetchScope?) {
        self.limiter = limiter
        self.ticket = ticket
        keys = (outer.map { $0.limiter === limiter ? $0.keys : [] } ?? []) + [key]
    }

    /// Gives the slot back when this fetch holds it; true when it did. O(1).
    func releaseSlot() -> Bool {
        let held = holdsSlot.withLock { held -> Bool in
            defer { held = false }
            return held
        }
        if held { limiter.release() }
        return held
    }

    /// Waits for a slot again after ``releaseSlot()``; a cancelled load goes on without one.
    /// O(log waiters).
    func reacquireSlot() async {
        if await limiter.acquire(for: ticket) { holdsSlot.withLock { $0 = true } }
    }
}
