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
        try await request(key, fetchTimeout: nil)
    }

    /// ``image(for:)``, with `fetchTimeout` bounding the fetch of an asynchronous source
    /// instead of the cache's ``fetchTimeout`` (a per-request override, as a URL request's
    /// `timeoutInterval`): counted from when the fetch holds a slot, not while it waits for
    /// one. Requests coalesce, so the load's fetch gets the shortest timeout its requests gave
    /// before it began; a fetch already running keeps its own. A timed-out fetch throws
    /// ``ImageCacheError/fetchTimedOut(key:after:)`` to every requester of the load, and
    /// later calls throw it again until the row is released, as for any failed read.
    ///
    /// - Complexity: as ``image(for:)``, plus one timer task while a timed fetch runs.
    public func image(for key: Key, fetchTimeout: Duration) async throws -> Bitmap {
        try await request(key, fetchTimeout: fetchTimeout)
    }

    /// ``image(for:)`` and ``image(for:fetchTimeout:)``: registers the caller on the key's load
    /// (starting one when none is in flight) and waits for it.
    private func request(_ key: Key, fetchTimeout: Duration?) async throws -> Bitmap {
        // Called from inside one of this cache's fetches: never wait for the fetch's own chain,
        // and give its slot back while waiting, so nested fetches cannot hold every slot.
        if let scope = FetchScope.current, scope.limiter === fetches {
            if scope.keys.contains("\(key)") { throw ImageCacheError.fetchCycle(keys: scope.keys + ["\(key)"]) }
            let gaveBack = scope.releaseSlot()
            let result: Result<Bitmap, any Error>
            do { result = .success(try await waitForLoad(key, fetchTimeout: fetchTimeout)) } catch { result = .failure(error) }
            if gaveBack { await scope.reacquireSlot() }
            return try result.get()
        }
        return try await waitForLoad(key, fetchTimeout: fetchTimeout)
    }

    /// Registers the caller on the key's load (starting one when none is in flight) and waits
    /// for it.
    private func waitForLoad(_ key: Key, fetchTimeout: Duration?) async throws -> Bitmap {
        let id = waiterIDs.wrappingAdd(1, ordering: .relaxed).newValue
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Bitmap, any Error>) in
                let plan = locked { state -> RequestPlan<Key> in
                    // Checked under the lock, so either this sees the cancellation or
                    // `onCancel` (which takes the lock) sees the registered waiter.
                    if Task.isCancelled {
                        state.metrics.cancelledRequests += 1
                        return .done(.failure(CancellationError()))
                    }
                    return state._request(key, waiter: id, fetchTimeout: fetchTimeout, continuation)
                }
                switch plan {
                case .done(let result): continuation.resume(with: result)
                case .wait: break
                case .start(let job): submit(job, within: FetchScope.current)
                }
            }
        } onCancel: {
            let continuation = locked { $0._cancelWaiter(key, waiter: id) }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Blocks until no load is queued or running (and their completion hooks returned), and
    /// the disk tier's writer has written what they handed it. For tests and labs that drive
    /// `asynchronous` mode deterministically.
    @available(*, noasync, message: "use idle() from async code")
    public func waitForIdle() {
        workers.waitForIdle()
        // A write is queued by a load's completion, so the writer is waited for after them.
        diskTier?.writer.waitForIdle()
    }

    /// Suspends until no load is queued or running (and their completion hooks returned), and
    /// the disk tier's writer is idle.
    public func idle() async {
        await workers.idle()
        await diskTier?.writer.idle()
    }

    // MARK: - Running loads

    /// Queues `job` on the decode workers, at its ticket's priority. With an asynchronous
    /// source, a load that must fetch hands the fetch to a task of its own and frees the worker;
    /// `outer`, the fetch that asked for the load (if any), makes the chain its fetch belongs to.
    func submit(_ job: LoadJob<Key>, within outer: FetchScope? = nil) {
        workers.submit(ticket: job.ticket) { [self] in
            let (step, io) = runLoad(job, fetchLater: source.isAsynchronous)
            switch step {
            case .finished(let outcome): finish(job, outcome, io, onCallerThread: false)
            // An asynchronous source's load that reached the source stops before it, to fetch.
            case .fetch where !job.isCancelled: startFetch(job, io, within: outer)
            case .fetch, .cancelled: recordCancelled(io)
            }
        }
    }

    /// The fetch stage: a task waits for one of the ``fetchLimit`` slots (the most urgent
    /// waiting load gets the next one), fetches within the load's timeout, gives the slot back,
    /// and queues the bytes' decode on the workers at the load's priority. No decode worker
    /// waits meanwhile. Cancelling the load (its last requester went) cancels the task, whether
    /// it waits for a slot or fetches; what it read is counted either way, the source read from
    /// when the fetch holds its slot.
    private func startFetch(_ job: LoadJob<Key>, _ io: LoadIO, within outer: FetchScope?) {
        workers.beginOutsideWork()
        let task = Task { [self] in
            guard await fetches.acquire(for: job.ticket) else {
                // Cancelled before its turn: nothing was fetched, only the tiers before were read.
                recordCancelled(io)
                workers.endOutsideWork()
                return
            }
            // The fetch starts: the source read is counted here, whatever comes of it.
            var read = io
            read.sourceReads += 1
            let clock = ContinuousClock()
            let start = clock.now
            // The fetch runs in its scope: a nested image(for:) of this cache gives the slot back
            // while it waits, and one that would wait for its own chain is refused.
            let scope = FetchScope(limiter: fetches, key: "\(job.key)", ticket: job.ticket, outer: outer)
            let timeout = job.ticket.fetchTimeout ?? fetchTimeout
            let (result, timedOut) = await FetchScope.$current.withValue(scope) { [source] () async -> (Result<Data, any Error>, Bool) in
                if let timeout {
                    let timed = await TimedFetch.run(within: timeout) { try await source.fetch(job.key) }
                    if case .failure(let error) = timed, error is TimedFetch.Expired {
                        return (.failure(ImageCacheError.fetchTimedOut(key: "\(job.key)", after: timeout)), true)
                    }
                    return (timed, false)
                }
                do { return (.success(try await source.fetch(job.key)), false) } catch { return (.failure(error), false) }
            }
            _ = scope.releaseSlot()
            let waited = start.duration(to: clock.now)
            if timedOut { read.timedOutFetches = 1 }
            if job.isCancelled {
                recordCancelled(read)
            } else {
                // The fetched bytes wait for a decode worker: counted as loading until it starts.
                let waiting = (try? result.get())?.count ?? 0
                loadingBytes.add(waiting, ordering: .relaxed)
                workers.submit(ticket: job.ticket) { [self, read] in
                    loadingBytes.subtract(waiting, ordering: .relaxed)
                    guard !job.isCancelled else { return recordCancelled(read) }
                    finish(job, outcome(decoding: result, from: .source, readDuration: waited, cpuStart: ThreadCPUTime.now()), read,
                           onCallerThread: false)
                }
            }
            workers.endOutsideWork()
        }
        job.ticket.whenCancelled { task.cancel() }
    }

    /// The outcome of bytes read `from` memory or the source (a read's error, or the bytes
    /// decoded on this thread), its CPU time counted from `cpuStart`. O(pixels).
    private func outcome(decoding fetched: Result<Data, any Error>, from origin: LoadOrigin, readDuration: Duration,
                         cpuStart: Duration) -> LoadOutcome {
        switch fetched {
        case .failure(let error):
            return LoadOutcome(result: .failure(.read(error)), origin: origin, readDuration: readDuration,
                               cpuTime: ThreadCPUTime.now() - cpuStart)
        case .success(let data):
            // What the decode holds until its bitmap is stored: counted in `usage.loadingBytes`.
            let held = (origin == .memory ? 0 : data.count) + decodeWorkingBytes(data)
            loadingBytes.add(held, ordering: .relaxed)
            defer { loadingBytes.subtract(held, ordering: .relaxed) }
            let start = ThreadCPUTime.now()
            let result: Result<Bitmap, LoadFailure>
            do throws(ImagingError) { result = .success(try decode(data)) } catch { result = .failure(.decode(error)) }
            let now = ThreadCPUTime.now()
            return LoadOutcome(result: result, origin: origin, readData: origin == .memory ? nil : data,
                               madeThumbnail: policy.visible.isThumbnail, readDuration: readDuration,
                               decodeDuration: now - start, cpuTime: now - cpuStart)
        }
    }

    /// Runs `job` on the appearing thread (`synchronous` mode) and says what it cost.
    func runOnCallerThread(_ job: LoadJob<Key>) -> AppearOutcome {
        let (step, io) = runLoad(job)
        // Without `fetchLater` the load reads the source itself: it never stops to fetch.
        guard case .finished(let outcome) = step else {
            recordCancelled(io)
            return AppearOutcome(status: .pending)
        }
        finish(job, outcome, io, onCallerThread: true)
        let status: AppearOutcome.Status
        switch outcome.result {
        case .success: status = .decoded
        case .failure: status = .failed
        }
        return AppearOutcome(status: status, readDuration: outcome.readDuration, decodeDuration: outcome.decodeDuration,
                             cpuTime: outcome.cpuTime, origin: outcome.origin)
    }

    /// Counts the reads of a load cancelled part way (nothing else of it is kept).
    private func recordCancelled(_ io: LoadIO) {
        guard !io.isEmpty else { return }
        state.withLock { $0.metrics.add(io) }
    }

    /// Stores the outcome, resumes waiters, hands new bytes to the disk tier's writer and
    /// reports the completion.
    private func finish(_ job: LoadJob<Key>, _ outcome: LoadOutcome, _ io: LoadIO, onCallerThread: Bool) {
        let settlement = locked { $0._complete(job, outcome, io) }
        for waiter in settlement.waiters { waiter.resume(with: outcome.result.mapError { $0.error }) }
        if let writes = settlement.diskWrites, let diskTier { self.write(writes, diskTier) }
        guard settlement.delivered, let onLoadCompleted else { return }
        let bitmap = try? outcome.result.get()
        let error: (any Error)?
        if case .failure(let failure) = outcome.result { error = failure.error } else { error = nil }
        onLoadCompleted(LoadCompletion(
            key: job.key, byteCount: bitmap?.byteCount, error: error,
            readDuration: outcome.readDuration, decodeDuration: outcome.decodeDuration,
            origin: outcome.origin, onCallerThread: onCallerThread,
            cpuTime: outcome.cpuTime))
    }

    /// Queues `writes` on the disk tier's writer; the job counts what it did under the lock.
    private func write(_ writes: DiskWrites<Key>, _ diskTier: CacheDiskTier<Key>) {
        diskTier.writer.submit { [self] in
            let result = diskTier.write(writes)
            state.withLock { $0._diskWritten(writes, result) }
        }
    }

    /// Finds the bytes and decodes them: memory, then the disk tier (which looks for a stored
    /// thumbnail, then the source's bytes, and counts what it read), then the source, checking
    /// for cancellation before every read and decode. Returns where the load ended (finished,
    /// cancelled or, with `fetchLater`, stopped before an asynchronous source for the caller to
    /// fetch, the source read not yet counted) and the reads it made. Runs without the lock.
    func runLoad(_ job: LoadJob<Key>, fetchLater: Bool = false) -> (step: LoadStep, io: LoadIO) {
        let cpuStart = ThreadCPUTime.now()
        var io = LoadIO()
        var readDuration = Duration.zero
        if let cached = job.compressed {
            if job.isCancelled { return (.cancelled, io) }
            return (.finished(outcome(decoding: .success(cached), from: .memory, readDuration: .zero, cpuStart: cpuStart)), io)
        }
        if let diskTier {
            switch diskTier.find(job.key, io: &io, readDuration: &readDuration, isCancelled: { job.isCancelled },
                                 decodeSource: { try? decode($0) }) {
            case .bitmap(let bitmap, let origin, let sourceBytes, let decodeDuration):
                return (.finished(LoadOutcome(result: .success(bitmap), origin: origin, readData: sourceBytes,
                                              madeThumbnail: origin == .disk && policy.visible.isThumbnail,
                                              readDuration: readDuration, decodeDuration: decodeDuration,
                                              cpuTime: ThreadCPUTime.now() - cpuStart)), io)
            case .cancelled: return (.cancelled, io)
            case .missing: break
            }
        }
        if job.isCancelled { return (.cancelled, io) }
        if fetchLater { return (.fetch, io) }
        io.sourceReads += 1
        // Reads are timed in wall time (a source may wait on a network, which is no CPU work);
        // decodes are work, timed in this thread's CPU time.
        let clock = ContinuousClock()
        let start = clock.now
        // An asynchronous source's fetch is bounded by the load's timeout here too; it runs on
        // the fetch executor's thread, so this thread may be a cooperative one (see `DisplayMode`).
        let timeout = source.isAsynchronous ? job.ticket.fetchTimeout ?? fetchTimeout : nil
        var fetched = source.data(for: job.key, within: timeout)
        if case .failure(let error) = fetched, error is TimedFetch.Expired, let timeout {
            io.timedOutFetches = 1
            fetched = .failure(ImageCacheError.fetchTimedOut(key: "\(job.key)", after: timeout))
        }
        readDuration += start.duration(to: clock.now)
        if case .success = fetched, job.isCancelled { return (.cancelled, io) }
        return (.finished(outcome(decoding: fetched, from: .source, readDuration: readDuration, cpuStart: cpuStart)), io)
    }

    /// The memory a decode of `data` takes, from its header: the bitmap and the whole-image
    /// inflate's buffer (a thumbnail's inflate is capped by its allowance, and its bitmap is
    /// small); 0 when the header does not parse (the decode then fails at once). Saturating, never
    /// a trap. O(1): the header is read, not the image.
    private func decodeWorkingBytes(_ data: Data) -> Int {
        guard let info = try? ImageInfo(data: data, limits: decodeLimits) else { return 0 }
        let filtered = info.filteredByteCount
        if case .thumbnail(let size, _, _) = policy.visible {
            let side = max(1, min(size, 1 << 20))
            return min(filtered, DecodeOptions.defaultThumbnailInflateBytes) + min(side * side * 4, 1 << 40)
        }
        // Capped at 1 TiB, so that loads on every worker can add theirs without overflow.
        let total = filtered.addingReportingOverflow(info.decodedByteCount)
        return total.overflow ? 1 << 40 : min(total.partialValue, 1 << 40)
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
