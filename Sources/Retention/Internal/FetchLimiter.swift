import SystemIO

/// At most `limit` fetches of an asynchronous ``ImageSource`` at once (a URL session's
/// connections per host), the rest waiting in a ``LoadQueue``: a freed slot goes to the most
/// urgent waiting load (its ticket's ``LoadPriority``, read when the slot frees, so
/// `setPriority` reorders the waiting fetches as it does the waiting decodes), first come among
/// equals. A waiter whose task is cancelled leaves at once. Its state sits in a `Lock` (a count
/// and a queue of continuations, touched for short steps from any task), not an actor:
/// `release` is called from the end of a fetch and must hand the slot over without a hop.
final class FetchLimiter: Sendable {
    private struct Waiter {
        let id: UInt64
        let ticket: LoadTicket
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var free: Int
        var waiting = LoadQueue<Waiter>()
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
    /// ``release()``), false when the task was cancelled first. O(1), plus O(waiters) on
    /// cancellation.
    func acquire(for ticket: LoadTicket) async -> Bool {
        let id = state.withLock { s -> UInt64 in
            s.nextID &+= 1
            return s.nextID
        }
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
                    s.waiting.append(Waiter(id: id, ticket: ticket, continuation: continuation))
                    return nil
                }
                if let granted { continuation.resume(returning: granted) }
            }
        } onCancel: {
            let waiter = state.withLock { s in s.waiting.removeFirst { $0.id == id } }
            waiter?.continuation.resume(returning: false)
        }
    }

    /// Gives a slot back: to the most urgent waiter whose load is not cancelled (a cancelled
    /// one leaves by its task's cancellation), or to the pool. O(waiters): one scan.
    func release() {
        let next = state.withLock { s -> CheckedContinuation<Bool, Never>? in
            guard let waiter = s.waiting.popMostUrgent(priority: { $0.ticket.priority }, where: { !$0.ticket.isCancelled }) else {
                s.free += 1
                return nil
            }
            return waiter.continuation
        }
        next?.resume(returning: true)
    }
}
