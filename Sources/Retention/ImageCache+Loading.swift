#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Imaging
import SystemIO

/// Loading: `image(for:)`, running loads on workers or the caller's thread, and waiting for
/// them. Reads and decodes always run outside the lock.
extension ImageCache {
    /// The bitmap for `key`: the stored one, or one loaded and decoded on a decode worker.
    ///
    /// Identical requests coalesce: concurrent callers (and a visible row or a prefetch) share
    /// one read and one decode. Cancelling the calling task throws `CancellationError` for
    /// this caller only; the shared load goes on while anyone else wants it, and is cancelled
    /// (leaving no entry) when the last requester goes away. A failed load throws the
    /// decoder's `ImagingError` (or the source's error), and later calls throw it again
    /// without retrying until the row is released. The result is stored as the policy says
    /// (for a row that is not visible, as if it had disappeared).
    ///
    /// - Complexity: O(1) on a hit; otherwise a read (plus the source's simulated latency)
    ///   and a decode on a worker.
    public func image(for key: Key) async throws -> Bitmap {
        let id = waiterIDs.wrappingAdd(1, ordering: .relaxed).newValue
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Bitmap, any Error>) in
                let plan = locked { store -> RequestPlan<Key> in
                    // Checked under the lock, so either this sees the cancellation or
                    // `onCancel` (which takes the lock) sees the registered waiter.
                    if Task.isCancelled { return .done(.failure(CancellationError())) }
                    return store._request(key, waiter: id, continuation)
                }
                switch plan {
                case .done(let result): continuation.resume(with: result)
                case .wait: break
                case .start(let job): submit(job)
                }
            }
        } onCancel: {
            let continuation = locked { $0._cancelWaiter(key, waiter: id) }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Blocks until no load is queued or running (and their completion hooks returned).
    /// For tests and labs that drive `asynchronous` mode deterministically.
    @available(*, noasync, message: "use idle() from async code")
    public func waitForIdle() {
        workers.waitForIdle()
    }

    /// Suspends until no load is queued or running (and their completion hooks returned).
    public func idle() async {
        await workers.idle()
    }

    // MARK: - Running loads

    /// Queues `job` on the decode workers.
    func submit(_ job: LoadJob<Key>) {
        workers.submit { [self] in
            guard let outcome = perform(job) else { return }
            finish(job, outcome, onCallerThread: false)
        }
    }

    /// Runs `job` on the appearing thread (`synchronous` mode) and says what it cost.
    func runOnCallerThread(_ job: LoadJob<Key>) -> AppearOutcome {
        guard let outcome = perform(job) else {
            return AppearOutcome(status: .pending)
        }
        finish(job, outcome, onCallerThread: true)
        let status: AppearOutcome.Status
        switch outcome.result {
        case .success: status = .decoded
        case .failure: status = .failed
        }
        return AppearOutcome(status: status, readDuration: outcome.readDuration, decodeDuration: outcome.decodeDuration,
                             cpuTime: outcome.cpuTime,
                             readFromSource: job.compressed == nil)
    }

    /// Stores the outcome, resumes waiters and reports the completion.
    private func finish(_ job: LoadJob<Key>, _ outcome: LoadOutcome, onCallerThread: Bool) {
        let settlement = locked { $0._complete(job, outcome) }
        for waiter in settlement.waiters { waiter.resume(with: outcome.result.mapError { $0.error }) }
        guard settlement.delivered, let onLoadCompleted else { return }
        let bitmap = try? outcome.result.get()
        let error: (any Error)?
        if case .failure(let failure) = outcome.result { error = failure.error } else { error = nil }
        onLoadCompleted(LoadCompletion(
            key: job.key, byteCount: bitmap?.byteCount, error: error,
            readDuration: outcome.readDuration, decodeDuration: outcome.decodeDuration,
            readFromSource: job.compressed == nil, onCallerThread: onCallerThread,
            cpuTime: outcome.cpuTime))
    }

    /// Reads (unless the bytes were cached) and decodes, checking for cancellation between
    /// steps; nil when the load was cancelled. Runs without the lock.
    func perform(_ job: LoadJob<Key>) -> LoadOutcome? {
        let clock = ContinuousClock()
        let cpuStart = ThreadCPUTime.now()
        var sourceData: Data?
        var readDuration = Duration.zero
        let data: Data
        if let cached = job.compressed {
            data = cached
        } else {
            if job.isCancelled { return nil }
            let start = clock.now
            do {
                data = try source.data(for: job.key)
            } catch {
                return LoadOutcome(result: .failure(.read(error)), readDuration: start.duration(to: clock.now),
                                   cpuTime: ThreadCPUTime.now() - cpuStart)
            }
            readDuration = start.duration(to: clock.now)
            sourceData = data
        }
        if job.isCancelled { return nil }
        let start = clock.now
        let result: Result<Bitmap, LoadFailure>
        do throws(ImagingError) {
            result = .success(try decode(data))
        } catch {
            result = .failure(.decode(error))
        }
        return LoadOutcome(result: result, sourceData: sourceData, readDuration: readDuration,
                           decodeDuration: start.duration(to: clock.now), cpuTime: ThreadCPUTime.now() - cpuStart)
    }

    /// A full decode, or a thumbnail by `Imaging.Thumbnailer` for `thumbnail` policies; the
    /// cache's `decodeLimits` bound both.
    private func decode(_ data: Data) throws(ImagingError) -> Bitmap {
        if let thumbnailer = policy.visible.thumbnailer(limits: decodeLimits) {
            return try thumbnailer.thumbnail(data, allocator: allocator).bitmap
        }
        return try PNGDecoder(limits: decodeLimits).decode(data, allocator: allocator)
    }
}
