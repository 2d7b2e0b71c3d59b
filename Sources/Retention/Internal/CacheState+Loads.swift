#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Imaging

/// What `appeared` must do after the lock is released.
enum AppearPlan<Key: Hashable & Sendable>: Sendable {
    case hit
    case alreadyVisible
    case pending
    case failed
    case start(LoadJob<Key>)
}

/// What `image(for:)` must do after the lock is released.
enum RequestPlan<Key: Hashable & Sendable>: Sendable {
    case done(Result<Bitmap, any Error>)
    case wait
    case start(LoadJob<Key>)
}

/// What a finished load did, for the caller to report after the lock is released.
struct LoadSettlement<Key: Hashable & Sendable>: Sendable {
    /// Callers of `image(for:)` to resume with the result.
    var waiters: [CheckedContinuation<Bitmap, any Error>] = []
    /// False when the load had been cancelled (its result was thrown away).
    var delivered = false
    /// What to write to the disk tier, off the caller's thread; nil for nothing.
    var diskWrites: DiskWrites<Key>?
}

/// Loads: starting, coalescing, cancelling and completing them. Every method runs with the
/// lock held (see `CacheState`); the read and decode themselves run outside it.
extension CacheState {
    /// A row appeared: its representations become active; a missing bitmap starts a load
    /// unless one is in flight or the key's last load failed. With `deferStart` (`scheduled`
    /// mode) the load is only registered, to be started by `_takeWaitingJob`. O(1) plus
    /// evictions.
    mutating func _appear(_ key: Key, deferStart: Bool) -> AppearPlan<Key> {
        let i = _slot(for: key)
        if slots[Int(i)].visible {
            slots[Int(i)].visibleRows &+= 1
            return .alreadyVisible
        }
        slots[Int(i)].visibleRows = 1
        visibleCount += 1
        _settle(i)
        if slots[Int(i)].bitmap != nil {
            _recordLookup(hit: true)
            _enforceBudgets()
            return .hit
        }
        _recordLookup(hit: false)
        if slots[Int(i)].failure != nil { return .failed }
        if slots[Int(i)].load != nil {
            metrics.coalescedRequests += 1
            _updatePriority(i)
            return .pending
        }
        if deferStart {
            _registerLoad(i, waitingForStart: true)
            return .pending
        }
        return .start(_startLoad(i))
    }

    /// Sets slot `i`'s load's priority from who wants it: an override given for its key, else
    /// `high` while a row shows it, `normal` for an `image(for:)` caller, `low` for a prefetch
    /// alone. O(1).
    mutating func _updatePriority(_ i: Int32) {
        guard let load = slots[Int(i)].load else { return }
        let priority: LoadPriority
        if !priorityOverrides.isEmpty, let key = keys[Int(i)], let given = priorityOverrides[key] {
            priority = given
        } else if slots[Int(i)].visible {
            priority = .high
        } else if !load.waiters.isEmpty {
            priority = .normal
        } else {
            priority = .low
        }
        load.ticket.priority = priority
    }

    /// ``ImageCache/setPriority(_:for:)``: overrides (or, with nil, stops overriding) the
    /// priority of `key`'s load in flight. Returns false when no load of `key` is in flight.
    /// O(1).
    mutating func _setPriority(_ priority: LoadPriority?, for key: Key) -> Bool {
        guard let i = index[key], slots[Int(i)].load != nil else { return false }
        priorityOverrides[key] = priority
        _updatePriority(i)
        return true
    }

    /// Registers and starts a load for slot `i`. O(1).
    mutating func _startLoad(_ i: Int32) -> LoadJob<Key> {
        _registerLoad(i, waitingForStart: false)
        return _job(i)
    }

    /// Marks slot `i` as loading, with a fresh ticket. O(1).
    private mutating func _registerLoad(_ i: Int32, waitingForStart: Bool) {
        nextLoadID &+= 1
        metrics.loads += 1
        loadsInFlight += 1
        slots[Int(i)].load = InFlight(ticket: LoadTicket(id: nextLoadID))
        slots[Int(i)].loadWaitingForStart = waitingForStart
        _updatePriority(i)
    }

    /// The job for slot `i`'s registered load, using the compressed bytes stored now. O(1).
    private mutating func _job(_ i: Int32) -> LoadJob<Key> {
        let compressed = slots[Int(i)].compressed
        if compressed != nil {
            metrics.compressedHits += 1
        } else {
            metrics.compressedMisses += 1
        }
        return LoadJob(key: keys[Int(i)]!, ticket: slots[Int(i)].load!.ticket, compressed: compressed)
    }

    /// The job of slot `i`'s load if it still waits for its start (`scheduled` mode), now
    /// marked started; nil otherwise. O(1).
    mutating func _takeWaitingJob(_ i: Int32) -> LoadJob<Key>? {
        guard slots[Int(i)].load != nil, slots[Int(i)].loadWaitingForStart else { return nil }
        slots[Int(i)].loadWaitingForStart = false
        return _job(i)
    }

    /// `startLoad(_:)`: the job of `key`'s load waiting for its start, now started. O(1).
    mutating func _takeWaitingJob(_ key: Key) -> LoadJob<Key>? {
        guard let i = index[key] else { return nil }
        return _takeWaitingJob(i)
    }

    /// Cancels slot `i`'s load when no visible row, prefetch or waiter wants it any more.
    mutating func _cancelLoadIfUnrequested(_ i: Int32) {
        guard let load = slots[Int(i)].load, load.waiters.isEmpty,
              !slots[Int(i)].visible, !slots[Int(i)].prefetching else { return }
        load.ticket.cancel()
        slots[Int(i)].load = nil
        if !priorityOverrides.isEmpty, let key = keys[Int(i)] { priorityOverrides[key] = nil }
        loadsInFlight -= 1
        metrics.cancelledLoads += 1
    }

    /// Records a finished load. Its reads are counted; a cancelled (or superseded) load's
    /// result is discarded; a success is stored where the policy wants it and its new bytes
    /// handed to the disk tier; a failure is recorded for the key. O(1) plus evictions and
    /// waiters.
    mutating func _complete(_ job: LoadJob<Key>, _ outcome: LoadOutcome, _ io: LoadIO) -> LoadSettlement<Key> {
        metrics.add(io)
        guard let i = index[job.key], let load = slots[Int(i)].load, load.ticket === job.ticket else {
            return LoadSettlement()
        }
        slots[Int(i)].load = nil
        slots[Int(i)].prefetching = false
        if !priorityOverrides.isEmpty { priorityOverrides[job.key] = nil }
        loadsInFlight -= 1
        metrics.readTime += outcome.readDuration
        var diskWrites: DiskWrites<Key>?
        switch outcome.result {
        case .success(let bitmap):
            metrics.decodes += 1
            metrics.decodeTime += outcome.decodeDuration
            if let data = outcome.readData { _installCompressed(i, data) }
            _installBitmap(i, bitmap)
            _enforceBudgets()
            diskWrites = _diskWrites(job.key, outcome, bitmap)
        case .failure(let failure):
            switch failure {
            case .decode: metrics.failedDecodes += 1
            case .read: metrics.failedReads += 1
            }
            slots[Int(i)].failure = failure.error
        }
        _removeIfUnused(i)
        return LoadSettlement(waiters: Array(load.waiters.values), delivered: true, diskWrites: diskWrites)
    }

    /// What the disk tier should write after a successful load (``CacheDiskTier/admit(_:tier:origin:readData:thumbnail:pending:keysPending:)``,
    /// the tier's pure rule), counting what it drops and marking what it admits pending. O(1).
    private mutating func _diskWrites(_ key: Key, _ outcome: LoadOutcome, _ bitmap: Bitmap) -> DiskWrites<Key>? {
        guard let tier = policy.disk else { return nil }
        let pending = diskWritesPending[key] ?? 0
        switch CacheDiskTier<Key>.admit(key, tier: tier, origin: outcome.origin, readData: outcome.readData,
                                        thumbnail: outcome.madeThumbnail ? bitmap : nil, pending: pending, keysPending: diskWritesPending.count) {
        case .nothing:
            return nil
        case .dropped(let entries):
            metrics.diskWritesDropped += entries
            return nil
        case .write(let writes):
            diskWritesPending[key] = pending | writes.marks
            return writes
        }
    }

    /// The writer finished `writes`: their pending marks go, and what they did is counted. O(1).
    mutating func _diskWritten(_ writes: DiskWrites<Key>, _ result: DiskWriteResult) {
        let left = (diskWritesPending[writes.key] ?? 0) & ~writes.marks
        diskWritesPending[writes.key] = left == 0 ? nil : left
        metrics.diskWrites += result.writes
        metrics.diskWriteBytes += result.bytes
        metrics.diskWriteFailures += result.failures
        metrics.diskWritesDropped += result.dropped
        metrics.diskWriteTime += result.cpuTime
    }

    /// `image(for:)`: a stored bitmap or recorded failure at once, else wait on the load in
    /// flight (coalesced) or start one; `fetchTimeout` (a request's own) bounds the load's
    /// fetch unless a shorter one was given. O(1).
    mutating func _request(_ key: Key, waiter id: UInt64, fetchTimeout: Duration?,
                           _ continuation: CheckedContinuation<Bitmap, any Error>) -> RequestPlan<Key> {
        if let i = index[key] {
            if let bitmap = slots[Int(i)].bitmap {
                _recordLookup(hit: true)
                if slots[Int(i)].bitmapHold == .lru { _moveToFront(.bitmap, i) }
                return .done(.success(bitmap))
            }
            _recordLookup(hit: false)
            if let failure = slots[Int(i)].failure { return .done(.failure(failure)) }
            if slots[Int(i)].load != nil {
                metrics.coalescedRequests += 1
                slots[Int(i)].load!.waiters[id] = continuation
                if let fetchTimeout { slots[Int(i)].load!.ticket.limitFetch(to: fetchTimeout) }
                _updatePriority(i)
                // A load still waiting for its scheduled start would keep this caller waiting.
                if let job = _takeWaitingJob(i) { return .start(job) }
                return .wait
            }
        } else {
            _recordLookup(hit: false)
        }
        let i = _slot(for: key)
        let job = _startLoad(i)
        slots[Int(i)].load!.waiters[id] = continuation
        if let fetchTimeout { job.ticket.limitFetch(to: fetchTimeout) }
        _updatePriority(i)
        return .start(job)
    }

    /// A waiting `image(for:)` was cancelled: its continuation (to resume with
    /// `CancellationError`, counted in `cancelledRequests`), and the load cancelled if nobody
    /// else wants it. Nil when the request had already been answered. O(1).
    mutating func _cancelWaiter(_ key: Key, waiter id: UInt64) -> CheckedContinuation<Bitmap, any Error>? {
        guard let i = index[key], let continuation = slots[Int(i)].load?.waiters.removeValue(forKey: id) else {
            return nil
        }
        metrics.cancelledRequests += 1
        _cancelLoadIfUnrequested(i)
        _updatePriority(i)
        _removeIfUnused(i)
        return continuation
    }

    /// Starts loads for keys that have no bitmap, no failure and no load yet; marks loads in
    /// flight as prefetched. O(keys).
    mutating func _prefetch<S: Sequence<Key>>(_ keys: S) -> [LoadJob<Key>] {
        var jobs: [LoadJob<Key>] = []
        for key in keys {
            let i = _slot(for: key)
            if slots[Int(i)].bitmap != nil || slots[Int(i)].failure != nil {
                _removeIfUnused(i)
                continue
            }
            slots[Int(i)].prefetching = true
            if slots[Int(i)].load != nil {
                metrics.coalescedRequests += 1
                if let job = _takeWaitingJob(i) { jobs.append(job) }
            } else {
                jobs.append(_startLoad(i))
            }
        }
        return jobs
    }

    /// Withdraws the prefetch request for keys; loads nobody else wants are cancelled. O(keys).
    mutating func _cancelPrefetch<S: Sequence<Key>>(_ keys: S) {
        for key in keys {
            guard let i = index[key], slots[Int(i)].prefetching else { continue }
            slots[Int(i)].prefetching = false
            _cancelLoadIfUnrequested(i)
            _removeIfUnused(i)
        }
    }
}
