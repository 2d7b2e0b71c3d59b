import Imaging

extension ImageCache {
    /// Every setting of an ``ImageCache`` but its source, each with its default: what
    /// ``ImageCache/init(source:configuration:)`` takes (Nuke's `ImagePipeline.Configuration`).
    /// A value: build one, change what you need, and give it to as many caches as you like.
    ///
    /// ```swift
    /// var settings = ImageCache<URL>.Configuration(policy: .decodedLRUDisk)
    /// settings.diskStore = store
    /// settings.fetchTimeout = .seconds(15)
    /// let cache = try ImageCache(source: network, configuration: settings)
    /// ```
    ///
    /// Which settings go together is checked by the cache's initializer, not here (a disk tier
    /// needs a store, see ``ImageCache/init(source:configuration:)``). Copying one costs O(1).
    public struct Configuration: Sendable {
        /// What rows keep while visible and after they disappear, the budgets, and what the
        /// disk tier keeps. Default ``RetentionPolicy/decodedLRU``.
        public var policy: RetentionPolicy
        /// Where appearing rows decode. Default two asynchronous workers
        /// (`.asynchronous(workers: 2)`: fixed, so that experiments compare).
        public var mode: DisplayMode
        /// Where bitmap memory comes from; nil (the default) takes the policy's
        /// (``RetentionPolicy/makeAllocator()``). Give one to share a pool between caches.
        public var allocator: BitmapAllocator?
        /// Caps for every decode, full or thumbnail. Default `DecodeLimits.default`, which stops
        /// decompression bombs.
        public var decodeLimits: DecodeLimits
        /// The store of the policy's disk tier (a `DiskStore`, or any ``ImageCacheDiskStore``):
        /// required when the policy has a disk tier, refused when it has none. Default nil. The
        /// cache never closes it.
        public var diskStore: (any ImageCacheDiskStore)?
        /// The most fetches of an asynchronous source (``ImageSource/init(fetch:)``) at once,
        /// apart from the decode workers: default ``ImageCache/defaultFetchLimit`` (6, a URL
        /// session's connections per host); at least 1 (a smaller value counts as 1). A fetch
        /// that awaits this cache's `image(for:)` of another key gives its slot back while the
        /// nested load runs, and takes one again after.
        public var fetchLimit: Int
        /// The longest a fetch of an asynchronous source may take once it holds a slot (its wait
        /// for the slot not counted); past it the fetch is cancelled, its slot freed, and the
        /// load fails with ``ImageCacheError/fetchTimedOut(key:after:)`` (counted in
        /// ``CacheMetrics/timedOutFetches``). Default nil: no limit. A request may give its own
        /// (``ImageCache/image(for:fetchTimeout:)``). It bounds a `synchronous` mode row's fetch
        /// too (the appearing thread's wait). A synchronous source's reads are not timed.
        public var fetchTimeout: Duration?
        /// How a key is named in the disk tier's store (before the `source:` or thumbnail
        /// prefix, see ``RetentionPolicy/DiskTier/sourceKey(_:)``); must differ for keys of
        /// different images, and name the same image in every run. Default nil: `Key`'s own
        /// ``DiskKeyConvertible/diskName`` (`String` has one). Required with a disk tier unless
        /// `Key` is ``DiskKeyConvertible``: a row number names another image once the list
        /// changes, so `Int` keys need one.
        public var diskName: (@Sendable (Key) -> String)?
        /// Called after each load that finished (see ``LoadCompletion``), on the thread that ran
        /// it, outside the lock; keep it short. Default nil.
        public var onLoadCompleted: (@Sendable (LoadCompletion<Key>) -> Void)?
        /// Called for each representation a budget, a memory warning or a release took out
        /// (Glide's `onResourceRemoved`, Fresco's cache listener), on the thread whose call
        /// caused it, after the lock is released; keep it short. Default nil: nothing is
        /// recorded.
        public var onEvicted: (@Sendable (EvictionEvent<Key>) -> Void)?

        /// A configuration with each setting given or at its default (each property says its
        /// default). O(1).
        public init(
            policy: RetentionPolicy = .decodedLRU,
            mode: DisplayMode = .asynchronous(workers: 2),
            allocator: BitmapAllocator? = nil,
            decodeLimits: DecodeLimits = .default,
            diskStore: (any ImageCacheDiskStore)? = nil,
            fetchLimit: Int = ImageCache.defaultFetchLimit,
            fetchTimeout: Duration? = nil,
            diskName: (@Sendable (Key) -> String)? = nil,
            onLoadCompleted: (@Sendable (LoadCompletion<Key>) -> Void)? = nil,
            onEvicted: (@Sendable (EvictionEvent<Key>) -> Void)? = nil
        ) {
            self.policy = policy
            self.mode = mode
            self.allocator = allocator
            self.decodeLimits = decodeLimits
            self.diskStore = diskStore
            self.fetchLimit = fetchLimit
            self.fetchTimeout = fetchTimeout
            self.diskName = diskName
            self.onLoadCompleted = onLoadCompleted
            self.onEvicted = onEvicted
        }

        /// Every setting at its default: ``RetentionPolicy/decodedLRU``, two asynchronous
        /// decode workers, the policy's allocator, `DecodeLimits.default`, no disk tier, 6 fetch
        /// slots, no fetch timeout, no hooks. O(1).
        public static var `default`: Configuration { Configuration() }
    }
}
