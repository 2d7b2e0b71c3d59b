import SystemIO

/// At most `limit` fetches of an asynchronous ``ImageSource`` at once (a URL session's
/// connections per host), the rest waiting in SystemIO's `UrgencyQueue`: a freed slot goes to the
/// most urgent waiting load (its ticket's ``LoadPriority``; a change while it waits reorders the
/// queue at once, as it does the waiting decodes), first come among equals, a cancelled one
/// skipped. A waiter whose task is cancelled leaves at once. Its state sits in a `Lock` (a count
/// and a queue of continuations, touched for short steps from any task), not an actor:
/// `release` is called from the end of a fetch and must hand the slot over without a hop.
final class FetchLimiter: Sendable {
    private struct Waiter {
        let ticket: LoadTicket
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var free: Int
        /// The waiters by their id, by their ticket's priority.
        var waiting = UrgencyQueue<UInt64, Waiter>()
        var nextID: UInt64 = 0
    }

    /// The most slots held at once.
    let limit: Int
    private let state: Lock<State>

    init(limit: Int) {
        precondition(limit > 0, "a fetch limit is at least 1, got \(limit)")
        self.limit = limit
        state = Lock(State(free: limit))
    }

    /// Fetches waiting for a slot, and slots held, now. O(1), one lock.
    var counts: (waiting: Int, inFlight: Int) {
        state.withLock { ($0.waiting.count, limit - $0.free) }
    }

    /// Waits for a slot for `ticket`'s load; true once it holds one (give it back with
    /// ``release()``), false when the task was cancelled first (or the load was, when a freed
    /// slot found it waiting). O(log waiters).
    func acquire(for ticket: LoadTicket) async -> Bool {
        let id = state.withLock { s -> UInt64 in
            s.nextID &+= 1
            return s.nextID
        }
        // Registered before the waiter queues: a change after it reorders the waiter (a change
        // before it is read when the waiter queues). Weak: a ticket must not keep the limiter.
        ticket.whenPriorityChanges { [weak self] in self?.reprioritize(id) }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let granted = state.withLock { s -> Bool? in
                    // Checked under the lock: either this sees the cancellation or `onCancel`
                    // (which takes the lock) sees the waiter.
                    if Task.isCancelled { return false }
                    if s.free > 0 {
                        s.free -= 1
                        return true
                    }
                    s.waiting.insert(Waiter(ticket: ticket, continuation: continuation), key: id, priority: ticket.priority.rawValue)
                    return nil
                }
                if let granted { continuation.resume(returning: granted) }
            }
        } onCancel: {
            let waiter = state.withLock { s in s.waiting.remove(id) }
            waiter?.continuation.resume(returning: false)
        }
    }

    /// Moves waiter `id` to its ticket's priority, read now under the lock (so the last change
    /// wins); nothing once it left. O(log waiters).
    private func reprioritize(_ id: UInt64) {
        state.withLock { s in
            guard let waiter = s.waiting.element(for: id) else { return }
            s.waiting.setPriority(waiter.ticket.priority.rawValue, of: id)
        }
    }

    /// Gives a slot back: to the most urgent waiter whose load is not cancelled, or to the pool.
    /// Waiters ahead of it whose load was cancelled leave with false (their task's cancellation,
    /// which would have sent them, then finds them gone). O(log waiters) per waiter taken.
    func release() {
        let (next, cancelled) = state.withLock { s -> (CheckedContinuation<Bool, Never>?, [CheckedContinuation<Bool, Never>]) in
            var cancelled: [CheckedContinuation<Bool, Never>] = []
            while let (_, waiter) = s.waiting.popFirst() {
                if waiter.ticket.isCancelled {
                    cancelled.append(waiter.continuation)
                    continue
                }
                return (waiter.continuation, cancelled)
            }
            s.free += 1
            return (nil, cancelled)
        }
        for continuation in cancelled { continuation.resume(returning: false) }
        next?.resume(returning: true)
    }
}
