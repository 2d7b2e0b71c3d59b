import DiskCache
import SystemIO
import Imaging
import Synchronization

/// A thread-safe image cache for list rows: per key it keeps a decoded bitmap or a thumbnail
/// and/or the compressed PNG bytes, and decides what to keep when rows appear, disappear,
/// are released, or memory runs short, following its ``RetentionPolicy``.
///
/// - Visible rows' bitmaps are *active* and never evicted (Glide's active resources). What a
///   row keeps after it disappears is the policy's choice: kept until released, released,
///   or evictable in an LRU bounded by a byte budget (optionally `budget − active`, Fresco).
/// - Loads are coalesced: one read and one decode per key however many rows, prefetches and
///   `image(for:)` callers want it; a load is cancelled when its last requester goes away.
/// - With a disk tier (the policy's ``RetentionPolicy/disk`` and a `DiskStore`), a memory
///   miss looks on disk before the source: an encoded thumbnail first (when the tier keeps
///   them), then the source's bytes. What a load fetched from the source, and the thumbnail it
///   made, are written by one writer thread, never the caller's; one key is never written twice
///   at once. An entry that does not decode is removed and read as a miss; a full or failing
///   disk costs writes, never an image.
/// - Cost of a stored bitmap: `bytesPerRow × height`; of compressed bytes: `data.count`.
///   Bookkeeping per entry is about ``bookkeepingBytesPerEntry`` bytes on top.
///
/// Why a lock and not an actor: the lifecycle calls come synchronously from a list's frame
/// callbacks (`onAppear`, a simulator's frame loop) and must take effect before they return,
/// without hopping executors; and `cachedImage(for:)` is called per visible row per frame, so
/// it must cost about a dictionary lookup — one uncontended lock acquisition, no allocation,
/// no suspension. All state sits in one `Lock` (SystemIO's `Mutex`, wrapped so ThreadSanitizer
/// sees its ordering): a dictionary of slots plus two intrusive LRU lists, see `CacheState`.
/// Reads of the source and decodes never run while it is held, and bitmaps dropped under it are
/// freed after it is released. The visible rows' bitmaps are also in an index striped over
/// many locks (`ActiveIndex`), which serves `cachedImage(for:)`'s visible-row hits without the
/// cache's lock, so lookups from many threads scale with cores.
public final class ImageCache<Key: Hashable & Sendable>: Sendable {
    /// What the cache keeps and when.
    public let policy: RetentionPolicy
    /// Where compressed bytes come from.
    public let source: ImageSource<Key>
    /// Where appearing rows' images are decoded.
    public let mode: DisplayMode
    /// Where bitmap memory comes from (made from the policy unless given).
    public let allocator: BitmapAllocator
    /// Caps checked before a decode takes pixel memory.
    public let decodeLimits: DecodeLimits
    /// The disk tier's store (``Configuration/diskStore``), of whatever kind was given, when
    /// the policy keeps one; `diskStore as? DiskStore` when you need the `DiskStore`. O(1).
    public var diskStore: (any ImageCacheDiskStore)? { diskTier?.store }
    /// ``diskStore`` when it is a `DiskStore`: a second name for the store, deprecated. O(1).
    @available(*, deprecated, message: "use diskStore (diskStore as? DiskStore where a DiskStore is needed)")
    public var disk: DiskStore? { diskStore as? DiskStore }

    /// The most keys whose disk writes may wait for the writer at once: 64. A load finishing
    /// beyond that writes nothing (``CacheMetrics/diskWritesDropped``), so bytes waiting to be
    /// written (held outside ``usage`` until written) stay bounded.
    public static var maximumPendingDiskWrites: Int { 64 }

    /// The cache's state (slots, LRU lists, loads, metrics), behind SystemIO's `BargingLock` (a
    /// glibc adaptive mutex) rather than `Lock` (`Synchronization.Mutex`): every thread's
    /// appear, disappear and miss takes it, and with more threads than cores the Mutex's
    /// priority-inheritance handoff made a 10 % mix of appearances collapse (0.11 million
    /// operations a second at 8 threads on 2 cores, against 4.8 at one), where a lock that a
    /// running thread may take keeps going (7.2).
    let state: BargingLock<CacheState<Key>>
    /// The visible rows' bitmaps, striped, for ``cachedImage(for:)``'s hits (kept by the state).
    @usableFromInline let activeIndex: ActiveIndex<Key>
    let workers: WorkerPool
    /// The fetch slots of an asynchronous source.
    let fetches: FetchLimiter
    /// The most fetches of an asynchronous ``source`` in flight at once; a synchronous source
    /// reads on the decode workers and ignores it. A fetch that awaits ``image(for:)`` of
    /// another key of the same cache gives its slot back while it waits, so nested fetches
    /// complete; one that would wait for its own chain throws
    /// ``ImageCacheError/fetchCycle(keys:)``. O(1).
    public let fetchLimit: Int
    /// The longest a fetch of an asynchronous ``source`` may hold its slot before its load fails
    /// with ``ImageCacheError/fetchTimedOut(key:after:)``; nil for no limit. O(1).
    public let fetchTimeout: Duration?
    let diskTier: CacheDiskTier<Key>?
    let onLoadCompleted: (@Sendable (LoadCompletion<Key>) -> Void)?
    let onEvicted: (@Sendable (EvictionEvent<Key>) -> Void)?
    let waiterIDs = Atomic<UInt64>(0)
    /// ``CacheUsage/loadingBytes``: added where a load gets bytes and before it decodes, taken
    /// off when the decode is done (an atomic: loads on every worker change it, without the lock).
    let loadingBytes = Atomic<Int>(0)

    /// A cache over `source` with the settings of `configuration` (each setting's default and
    /// meaning are ``Configuration``'s).
    ///
    /// A disk tier whose budget was left at its default takes the store's limit when that is
    /// smaller (``policy`` then shows the fitted budget). Throws ``ImageCacheError`` when a
    /// setting cannot apply: a disk tier without a store or a store without a tier, a tier
    /// keeping nothing or thumbnails of rows that hold decoded bitmaps, a zero budget, an
    /// explicit budget over the store's limit, a store whose limit is under `DiskStore.minimumLimitBytes`
    /// (64 KiB: ``ImageCacheError/zeroDiskBudget(policy:)``), a disk tier with no way to name keys. Costs O(1); the worker threads
    /// start with the first background load (the writer with the first write) and end with the cache.
    public init(source: ImageSource<Key>, configuration: Configuration) throws(ImageCacheError) {
        let disk = configuration.diskStore
        var policy = configuration.policy
        if let problem = policy.diskProblem { throw problem }
        let allocator = configuration.allocator ?? policy.makeAllocator()
        switch (policy.disk, disk) {
        case (nil, nil): diskTier = nil
        case (nil, .some): throw .storeWithoutDiskTier(policy: policy.name)
        case (.some, nil): throw .diskTierWithoutStore(policy: policy.name)
        case (.some(let tier), .some(let store)):
            // A store that could hold no image would fit the tier's budget to (nearly) nothing,
            // and every write would fail: refused, as a zero budget is.
            guard store.limit >= DiskStore.minimumLimitBytes else { throw .zeroDiskBudget(policy: policy.name) }
            guard let fitted = tier.fitted(toStoreLimit: store.limit) else {
                throw .diskBudgetOverStoreLimit(policy: policy.name, budget: tier.budget.bytes, limit: store.limit)
            }
            guard let name = configuration.diskName ?? Self.defaultDiskName else { throw .diskNameRequired(keyType: "\(Key.self)") }
            policy.disk = fitted
            diskTier = CacheDiskTier(store: store, tier: fitted, visible: policy.visible, decodeLimits: configuration.decodeLimits,
                                     allocator: allocator, name: name)
        }
        self.policy = policy
        self.source = source
        self.mode = configuration.mode
        self.allocator = allocator
        self.decodeLimits = configuration.decodeLimits
        self.onLoadCompleted = configuration.onLoadCompleted
        self.onEvicted = configuration.onEvicted
        let activeIndex = ActiveIndex<Key>()
        self.activeIndex = activeIndex
        self.state = BargingLock(CacheState(policy: policy, recordsEvictions: configuration.onEvicted != nil, activeIndex: activeIndex))
        self.workers = WorkerPool(limit: configuration.mode.workerCount)
        self.fetchLimit = max(1, configuration.fetchLimit)
        self.fetches = FetchLimiter(limit: max(1, configuration.fetchLimit))
        self.fetchTimeout = configuration.fetchTimeout
    }

    /// A cache over `source` following `policy`: the settings given one by one, as
    /// ``Configuration``'s initializer takes them (each parameter is the property of that name;
    /// `disk` is ``Configuration/diskStore``).
    /// Deprecated: build a ``Configuration`` and call ``init(source:configuration:)``, which
    /// this calls. Throws and costs as that one does.
    @available(*, deprecated, message: "use init(source:configuration:) with an ImageCache.Configuration holding these settings")
    public convenience init(
        source: ImageSource<Key>,
        policy: RetentionPolicy = .decodedLRU,
        mode: DisplayMode = .asynchronous(workers: 2),
        allocator: BitmapAllocator? = nil,
        decodeLimits: DecodeLimits = .default,
        disk: (any ImageCacheDiskStore)? = nil,
        fetchLimit: Int = ImageCache.defaultFetchLimit,
        fetchTimeout: Duration?,
        diskName: (@Sendable (Key) -> String)? = nil,
        onLoadCompleted: (@Sendable (LoadCompletion<Key>) -> Void)? = nil,
        onEvicted: (@Sendable (EvictionEvent<Key>) -> Void)? = nil
    ) throws(ImageCacheError) {
        try self.init(source: source, configuration: Configuration(
            policy: policy, mode: mode, allocator: allocator, decodeLimits: decodeLimits, diskStore: disk,
            fetchLimit: fetchLimit, fetchTimeout: fetchTimeout, diskName: diskName, onLoadCompleted: onLoadCompleted, onEvicted: onEvicted))
    }

    /// A cache over `source` following `policy`, with no fetch timeout: the initializer above
    /// without `fetchTimeout`, which this calls. Deprecated: build a ``Configuration`` and call
    /// ``init(source:configuration:)``. Throws and costs as that one does. (Kept beside that
    /// initializer, not folded into it by a default `fetchTimeout`, since 0.1.0 had this
    /// signature; its parameters are those above but `fetchTimeout`.)
    @available(*, deprecated, message: "use init(source:configuration:) with an ImageCache.Configuration holding these settings")
    public convenience init(
        source: ImageSource<Key>, policy: RetentionPolicy = .decodedLRU, mode: DisplayMode = .asynchronous(workers: 2),
        allocator: BitmapAllocator? = nil, decodeLimits: DecodeLimits = .default, disk: (any ImageCacheDiskStore)? = nil,
        fetchLimit: Int = ImageCache.defaultFetchLimit, diskName: (@Sendable (Key) -> String)? = nil,
        onLoadCompleted: (@Sendable (LoadCompletion<Key>) -> Void)? = nil, onEvicted: (@Sendable (EvictionEvent<Key>) -> Void)? = nil
    ) throws(ImageCacheError) {
        try self.init(source: source, policy: policy, mode: mode, allocator: allocator, decodeLimits: decodeLimits, disk: disk,
                      fetchLimit: fetchLimit, fetchTimeout: nil, diskName: diskName, onLoadCompleted: onLoadCompleted,
                      onEvicted: onEvicted)
    }

    /// The default ``fetchLimit``: 6, the connections per host of a URL session.
    public static var defaultFetchLimit: Int { 6 }

    /// `Key`'s own ``DiskKeyConvertible/diskName``, when it has one. O(1).
    static var defaultDiskName: (@Sendable (Key) -> String)? {
        guard Key.self is any DiskKeyConvertible.Type else { return nil }
        return { key in (key as? any DiskKeyConvertible)?.diskName ?? "\(key)" }
    }

    deinit {
        workers.shutdown()
        diskTier?.writer.shutdown()
    }

    /// The stored bitmap for `key`, or nil; never loads. A hit refreshes the entry's LRU
    /// position; a miss for a visible row counts as a placeholder lookup.
    ///
    /// - Complexity: O(1), no allocation. A visible row's hit takes one of the striped locks of
    ///   the visible rows' index and one dictionary lookup, inlined into the caller (specialized
    ///   for its `Key`), never the cache's lock, so threads scale; anything else takes the
    ///   cache's lock, as every other call does.
    @inlinable
    public func cachedImage(for key: Key) -> Bitmap? {
        if let bitmap = activeIndex.lookup(key) { return bitmap }
        return lockedLookup(key)
    }

    /// ``cachedImage(for:)`` under the cache's lock: a hidden row's hit (refreshing its LRU
    /// position) or a miss (a placeholder lookup for a visible row). O(1).
    @usableFromInline
    func lockedLookup(_ key: Key) -> Bitmap? {
        state.withLock { $0._lookup(key) }
    }

    /// Counters since creation, the fetches waiting and in flight now, and the disk tier's
    /// write state. O(slots): the cache's lock, the fetch slots' lock, a read of each thread
    /// slot of the visible rows' index (8, or 4 per core past two cores) and the disk tier's
    /// lock; no allocation.
    public var metrics: CacheMetrics {
        var metrics = state.withLock { $0.metrics }
        // Hits on visible rows served by the striped index, counted there.
        if policy.visible.isThumbnail { metrics.thumbnailHits += activeIndex.hits } else { metrics.decodedHits += activeIndex.hits }
        (metrics.fetchesWaiting, metrics.fetchesInFlight) = fetches.counts
        metrics.diskWriteState = diskStore?.writeState
        return metrics
    }

    /// Whether the disk tier writes, and if not, why (another process owns the store's folder,
    /// the folder cannot be written, writes paused on a full disk); nil without a disk tier.
    /// A tier that does not write still serves hits. For changes as they happen, give the
    /// store's `Options.onWriteStateChange`. O(1).
    public var diskWriteState: DiskStore.WriteState? { diskStore?.writeState }

    /// Bytes held now, by state and representation, and what loads in flight hold
    /// (``CacheUsage/loadingBytes``). O(1), one lock, no allocation.
    public var usage: CacheUsage {
        var usage = state.withLock { $0._usage }
        usage.loadingBytes = max(0, loadingBytes.load(ordering: .relaxed))
        return usage
    }

    /// True when `key`'s row is visible now (it appeared more times than it disappeared or was
    /// released). O(1): one lock and one dictionary lookup.
    @available(*, deprecated, message: "keep the visible keys in the list that calls appeared(_:) and disappeared(_:); removed in 0.3.0")
    public func isVisible(_ key: Key) -> Bool {
        state.withLock { state in state.index[key].map { state.slots[Int($0)].visible } ?? false }
    }

    /// Bookkeeping bytes per entry beyond its image bytes, estimated from memory layouts:
    /// one slot and one optional key in the slab, plus one dictionary bucket (key + 4-byte
    /// index) at the dictionary's maximum load factor of 3/4. Growth slack of the arrays and
    /// a pending load's waiter table are not included. O(1).
    public static var bookkeepingBytesPerEntry: Int {
        MemoryLayout<Slot>.stride + MemoryLayout<Key?>.stride
            + (MemoryLayout<Key>.stride + MemoryLayout<Int32>.stride) * 4 / 3
    }

    /// Runs `body` under the lock, then frees what it dropped and reports what it evicted
    /// (to `onEvicted`) after the lock is released.
    func locked<R: Sendable>(_ body: (inout CacheState<Key>) -> R) -> R {
        // No tuple result and no array work unless something was left: this runs
        // unspecialised for the key type, where each costs a metadata lookup inside the lock.
        var garbage = Garbage()
        var evicted: [EvictionEvent<Key>] = []
        let result = state.withLock { state in
            let result = body(&state)
            if state.hasLeftovers {
                garbage = state._takeGarbage()
                evicted = state._takeEvicted()
                state.hasLeftovers = false
            }
            return result
        }
        withExtendedLifetime(garbage) {}
        if let onEvicted, !evicted.isEmpty { for event in evicted { onEvicted(event) } }
        return result
    }

    /// Overrides the priority of `key`'s load while it waits for a fetch slot or a decode worker
    /// (Nuke's `ImageTask.priority`, Kingfisher's `downloadPriority`): both queues take their
    /// next load by it when a place frees. Nil hands it back to the cache,
    /// which sets `high` while a row shows the key, `normal` for an ``image(for:)`` caller and
    /// `low` for a prefetch alone. The override lasts until that load ends. Returns false when
    /// no load of `key` is in flight. O(1): one lock.
    @discardableResult
    public func setPriority(_ priority: LoadPriority?, for key: Key) -> Bool {
        state.withLock { $0._setPriority(priority, for: key) }
    }

    /// True when a load of `key` would have to read the source: no compressed bytes in memory
    /// and no entry for it in the disk tier (a stored thumbnail or the source's bytes). For a
    /// scheduler that plans fetches, such as the lab's virtual pipeline. O(1): one lock and up
    /// to two `fstatat`s.
    package func needsSource(_ key: Key) -> Bool {
        let inMemory = state.withLock { state in state.index[key].map { state.slots[Int($0)].compressed != nil } ?? false }
        guard !inMemory else { return false }
        return diskTier?.lacks(key) ?? true
    }

    /// The priority `key`'s load in flight has now, or nil when none is in flight. O(1).
    public func loadPriority(for key: Key) -> LoadPriority? {
        state.withLock { state in state.index[key].flatMap { state.slots[Int($0)].load?.ticket.priority } }
    }
}
