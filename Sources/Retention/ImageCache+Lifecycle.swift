import MemoryProbe

/// The lifecycle API a list calls: rows appearing, disappearing and being released, the
/// container going away, memory warnings and prefetching. Each call is synchronous and
/// takes effect before it returns.
extension ImageCache {
    /// A row showing `key` appeared.
    ///
    /// Visibility is counted per key: when several rows show one key (a repeated avatar),
    /// each appearance counts, and the entry stays active until as many disappearances (or
    /// releases of rows that had not disappeared) have come; a second appearance returns
    /// `.alreadyVisible`. ``containerDestroyed()`` ends every count.
    ///
    /// Its stored representations become active (never evicted while it is visible). If it
    /// has no bitmap, a load starts — unless one is in flight (the row joins it) or the key's
    /// last load failed (no retry until ``released(_:)``). In `synchronous` mode the load
    /// runs here, on the caller's thread, and the outcome says how long it took; in
    /// `asynchronous` mode it is queued and this returns at once; in `scheduled` mode it is
    /// registered and waits for ``startLoad(_:)``.
    ///
    /// In `synchronous` mode with an asynchronous source, the caller blocks while the fetch
    /// runs on the cache's dedicated fetch thread (never on the cooperative pool, so calling
    /// from tasks cannot deadlock), for at most ``fetchTimeout``: past it the row's load fails
    /// with ``ImageCacheError/fetchTimedOut(key:after:)`` and the outcome is `.failed`.
    ///
    /// - Complexity: O(1) plus evictions, plus a read (or a fetch, bounded by ``fetchTimeout``)
    ///   and a decode in `synchronous` mode.
    @discardableResult
    public func appeared(_ key: Key) -> AppearOutcome {
        let deferStart: Bool
        if case .scheduled = mode { deferStart = true } else { deferStart = false }
        switch locked({ $0._appear(key, deferStart: deferStart) }) {
        case .hit: return AppearOutcome(status: .hit)
        case .alreadyVisible: return AppearOutcome(status: .alreadyVisible)
        case .pending: return AppearOutcome(status: .pending)
        case .failed: return AppearOutcome(status: .failed)
        case .start(let job):
            switch mode {
            case .synchronous:
                return runOnCallerThread(job)
            case .asynchronous, .scheduled:
                submit(job)
                return AppearOutcome(status: .pending)
            }
        }
    }

    /// Starts `key`'s load that an appearance registered in `scheduled` mode: hands it to
    /// the decode workers. Returns false when no load of `key` waits for its start (it was
    /// started, cancelled because the row disappeared, or the mode is not `scheduled`).
    ///
    /// - Complexity: O(1) here; the read and decode run on a worker.
    @discardableResult
    public func startLoad(_ key: Key) -> Bool {
        guard let job = locked({ $0._takeWaitingJob(key) }) else { return false }
        submit(job)
        return true
    }

    /// A row showing `key` disappeared (left the laid-out region).
    ///
    /// While another row still shows `key` (see ``appeared(_:)``), nothing changes.
    /// Its bitmap is kept, released or made evictable as the policy says; compressed bytes
    /// follow the compressed tier. A load still in flight that no prefetch or `image(for:)`
    /// caller wants is cancelled and leaves no entry.
    ///
    /// - Complexity: O(1) plus evictions.
    public func disappeared(_ key: Key) {
        locked { $0._disappear(key) }
    }

    /// A row showing `key` was released by its container (its state is gone).
    ///
    /// A released row that had not disappeared counts as disappearing; while other rows still
    /// show `key`, nothing else changes. Representations held until release are per key, not
    /// per row: the first release of a key that no row shows drops them.
    /// What the row held until release (`keepUntilReleased`) is dropped; LRU contents stay.
    /// A recorded load failure is forgotten, so the next appearance retries. A visible row is
    /// treated as disappearing first.
    ///
    /// - Complexity: O(1) plus evictions.
    public func released(_ key: Key) {
        locked { $0._release(key) }
    }

    /// The list was destroyed: every row is released. Afterwards no bytes are active or
    /// row-held; the LRUs (app-level caches, like Nuke's or Glide's, that outlive one list)
    /// keep what fits their budgets.
    ///
    /// - Complexity: O(entries).
    public func containerDestroyed() {
        locked { $0._containerDestroyed() }
    }

    /// Gives memory back: `moderate` trims each LRU to at most half its budget, `critical`
    /// empties both. Visible rows keep their images, and row-held bytes stay (they belong to
    /// the rows' state, as SwiftUI's `@State` does not shrink on a warning).
    ///
    /// `MemoryWarningLevel` and `MemoryPressureSource`, which sends one when the cgroup's or the
    /// machine's memory runs short, are MemoryProbe's: code that names them imports MemoryProbe.
    ///
    /// - Complexity: O(evicted entries).
    public func memoryWarning(_ level: MemoryWarningLevel) {
        locked { $0._memoryWarning(level) }
    }

    /// Starts background loads for `keys` that have no bitmap, no load in flight and no
    /// recorded failure (Nuke's prefetcher). A prefetched image of a row that is not visible is
    /// stored as if the row had disappeared (so `release` policies keep nothing but compressed
    /// bytes their tier keeps).
    ///
    /// - Complexity: O(keys) here; the loads run on the decode workers.
    public func prefetch<S: Sequence<Key>>(_ keys: S) {
        let jobs = locked { $0._prefetch(keys) }
        for job in jobs { submit(job) }
    }

    /// Withdraws prefetch requests for `keys`; loads nobody else wants are cancelled.
    ///
    /// - Complexity: O(keys).
    public func cancelPrefetch<S: Sequence<Key>>(_ keys: S) {
        locked { $0._cancelPrefetch(keys) }
    }
}
