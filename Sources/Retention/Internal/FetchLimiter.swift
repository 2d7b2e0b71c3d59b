import SystemIO

/// At most `limit` fetches of an asynchronous ``ImageSource`` at once, the rest waiting in
/// the order they came (a URL session's connections per host). A waiter whose task is
/// cancelled leaves at once. Its state sits in a `Lock` (a count and a queue of continuations,
/// touched for O(1) steps from any task), not an actor: `release` is called from the end of a
/// fetch and must hand the slot over without a hop.
final class FetchLimiter: Sendable {
    private struct State {
        var free: Int
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextID: UInt64 = 0
    }

    private let state: Lock<State>

    init(limit: Int) {
        precondition(limit > 0, "a fetch limit is at least 1, got \(limit)")
        state = Lock(State(free: limit))
    }

    /// Waits for a slot; true once it holds one (give it back with ``release()``), false when
    /// the task was cancelled first. O(1), plus O(waiters) on cancellation.
    func acquire() async -> Bool {
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
                    s.waiters.append((id, continuation))
                    return nil
                }
                if let granted { continuation.resume(returning: granted) }
            }
        } onCancel: {
            let waiter = state.withLock { s in s.waiters.firstIndex { $0.id == id }.map { s.waiters.remove(at: $0) } }
            waiter?.continuation.resume(returning: false)
        }
    }

    /// Gives a slot back: to the first waiter, or to the pool. O(waiters) at worst (the
    /// queue's front is removed).
    func release() {
        let next = state.withLock { s -> CheckedContinuation<Bool, Never>? in
            guard !s.waiters.isEmpty else {
                s.free += 1
                return nil
            }
            return s.waiters.removeFirst().continuation
        }
        next?.resume(returning: true)
    }
}
