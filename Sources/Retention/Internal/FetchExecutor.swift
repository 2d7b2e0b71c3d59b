#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import SystemIO

/// The task executor on which a thread that must *wait* for an asynchronous fetch runs it
/// (``ImageSource/data(for:)``, a `synchronous` cache's appearing row): one dedicated thread of
/// its own, so the waiting thread never waits for Swift's cooperative pool. Were the fetch's
/// task run on that pool, callers blocked on its threads (four `appeared` calls from a task
/// group on a two-core machine) would leave no thread to run the fetch: a deadlock.
///
/// The fetch's task prefers this executor (`Task(executorPreference:)`), so it and the child
/// tasks it makes resume here after each suspension (a sleep, a network wait). Jobs are short
/// slices of async code, so one thread serves every such fetch in the process; a fetch that
/// blocks its thread instead of suspending delays the others (its callers' timeouts still
/// apply, since the waiting thread times itself). The thread starts on the first fetch and lives
/// as long as the process. Each job costs one `WorkerPool` submission (a lock and a semaphore).
final class FetchExecutor: TaskExecutor {
    /// The process's one instance.
    static let shared = FetchExecutor()

    /// The dedicated thread: a one-thread `WorkerPool`, never shut down.
    private let thread = WorkerPool(threads: 1, name: "retention-fetch")

    private init() {}

    /// Runs `job` on the dedicated thread, after the jobs queued before it. O(log queued).
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        thread.submit { job.runSynchronously(on: executor) }
    }

    /// The bytes `fetch` returns, waited for on the calling thread, which blocks (it may be a
    /// cooperative thread: the fetch runs on ``shared``'s thread, not on the pool). With
    /// `timeout`, a fetch still running after it is cancelled and the wait ends with
    /// ``TimedFetch/Expired``; the fetch's task ends whenever the fetch returns. Costs one task
    /// and one semaphore beyond the fetch.
    static func wait(within timeout: Duration?, _ fetch: @escaping @Sendable () async throws -> Data) -> Result<Data, any Error> {
        // The fetch's result, set once by its task and read by the waiting thread: a `Lock`,
        // since the two run on different threads.
        let result = Lock<Result<Data, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let task = Task(executorPreference: shared) {
            let value: Result<Data, any Error>
            do { value = .success(try await fetch()) } catch { value = .failure(error) }
            result.withLock { $0 = value }
            done.signal()
        }
        if let timeout {
            guard done.wait(timeout: deadline(after: timeout)) == .success else {
                task.cancel()
                return .failure(TimedFetch.Expired())
            }
        } else {
            done.wait()
        }
        return result.withLock { $0! }
    }

    /// `DispatchTime.now() + duration`, clamped to `distantFuture` (a duration of years). O(1).
    private static func deadline(after duration: Duration) -> DispatchTime {
        let (seconds, attoseconds) = duration.components
        guard seconds < 1_000_000_000 else { return .distantFuture }
        let nanoseconds = max(0, seconds) * 1_000_000_000 + max(0, attoseconds / 1_000_000_000)
        return .now() + .nanoseconds(Int(nanoseconds))
    }
}
