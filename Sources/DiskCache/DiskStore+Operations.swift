import Dispatch
import SystemIO

extension DiskStore {
    /// Starts an operation: nil when ``close()`` began (the operation is refused), else
    /// whether this store owns the folder. Pair with ``leave()``. O(1): one lock.
    func enter() -> Bool? {
        state.withLock { s in
            guard !s.closing else { return nil }
            s.operations += 1
            return s.owning
        }
    }

    /// Ends an operation begun by ``enter()``; the last one to end wakes a waiting close.
    /// O(1): one lock.
    func leave() {
        state.withLock { s in
            s.operations -= 1
            if s.operations == 0 && !s.waiters.isEmpty { s.wakeWaiters() }
        }
    }

    /// Runs `body` as one operation: refused after close, waited for by close.
    func operation<R>(_ body: () throws(DiskStoreError) -> R) throws(DiskStoreError) -> R {
        guard enter() != nil else { throw .closed(folder: folder) }
        defer { leave() }
        return try body()
    }

    /// Blocks until `ready` holds of the state: checked under the lock, and when it does not
    /// hold, the thread parks on a semaphore of its own in `state.waiters` until a change wakes
    /// it to check again (see "Locks and waits" in DiskStore.swift). Never call with a lock held.
    func wait(until ready: (State) -> Bool) {
        while true {
            let parked: DispatchSemaphore? = state.withLock { s in
                if ready(s) { return nil }
                let semaphore = DispatchSemaphore(value: 0)
                s.waiters.append(semaphore)
                return semaphore
            }
            guard let parked else { return }
            parked.wait()
        }
    }

    /// For an operation that changes the folder: waits until the index has loaded; throws
    /// ``DiskStoreError/closed(folder:)`` when close began meanwhile.
    func waitForLoadedIndex() throws(DiskStoreError) {
        wait { !$0.loading || $0.closing }
        if state.withLock({ $0.loading }) { throw .closed(folder: folder) }
    }

    /// Counts a failed write by its errno. O(1): one lock.
    func countFailure(_ code: Int32) {
        state.withLock { $0.failures[code, default: 0] += 1 }
    }
}
