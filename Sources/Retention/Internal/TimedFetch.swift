#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SystemIO

/// A fetch raced against its timeout: the fetch and a timer run in tasks of their own, and the
/// first of the fetch's result, the timer or the caller's cancellation answers the caller,
/// once; the fetch's task is cancelled when it loses. The caller never waits for a fetch that
/// ignores cancellation, so a source that hangs gives its slot back at the timeout (its task
/// ends whenever the source returns). The timeout is wall time on `ContinuousClock`: a fetch
/// waits on a network, which is no CPU work.
final class TimedFetch: Sendable {
    /// The timer won: the fetch did not finish within its timeout.
    struct Expired: Error {}

    private struct State {
        var continuation: CheckedContinuation<Result<Data, any Error>, Never>?
        var tasks: [Task<Void, Never>] = []
        /// True once the caller was answered (or cancelled before it waited).
        var done = false
    }

    /// The continuation, the two tasks and whether it is settled: a `Lock`, since the fetch's
    /// task, the timer's and the caller's cancellation handler race to settle it.
    private let state = Lock(State())

    private init() {}

    /// The result of `fetch`, or a failure with ``Expired`` once `timeout` has passed first, or
    /// `CancellationError` when the calling task is cancelled first. Costs two tasks and a
    /// timer beyond the fetch.
    static func run(within timeout: Duration, _ fetch: @escaping @Sendable () async throws -> Data) async -> Result<Data, any Error> {
        let race = TimedFetch()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Data, any Error>, Never>) in
                // Checked under the lock: either this sees the cancellation or `onCancel` (which
                // takes the lock) sees the continuation.
                let waits = race.state.withLock { state -> Bool in
                    if state.done || Task.isCancelled { return false }
                    state.continuation = continuation
                    return true
                }
                guard waits else { return continuation.resume(returning: .failure(CancellationError())) }
                let fetching = Task {
                    let result: Result<Data, any Error>
                    do { result = .success(try await fetch()) } catch { result = .failure(error) }
                    race.settle(result)
                }
                let timer = Task {
                    guard (try? await Task.sleep(for: timeout, clock: ContinuousClock())) != nil else { return }
                    race.settle(.failure(Expired()))
                }
                let settled = race.state.withLock { state -> Bool in
                    state.tasks = [fetching, timer]
                    return state.done
                }
                // Settled before the tasks were recorded (a fetch that returned at once): stop the timer.
                if settled { fetching.cancel(); timer.cancel() }
            }
        } onCancel: {
            race.settle(.failure(CancellationError()))
        }
    }

    /// Answers the caller with `result` if nobody has yet, and cancels both tasks (the loser
    /// stops; the winner has ended). O(1).
    private func settle(_ result: Result<Data, any Error>) {
        let (continuation, tasks) = state.withLock { state -> (CheckedContinuation<Result<Data, any Error>, Never>?, [Task<Void, Never>]) in
            guard !state.done else { return (nil, []) }
            state.done = true
            defer { state.continuation = nil; state.tasks = [] }
            return (state.continuation, state.tasks)
        }
        for task in tasks { task.cancel() }
        continuation?.resume(returning: result)
    }
}
