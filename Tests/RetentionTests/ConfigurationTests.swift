import DiskCache
import Imaging
import SystemIO
import Testing
@testable import Retention

/// `ImageCache.Configuration` holds every setting the initializers took one by one: its defaults
/// are theirs, and the deprecated initializers still make the same cache.
struct ConfigurationTests {
    @Test("Configuration's defaults are the ones the parameter-by-parameter initializer had")
    func defaultsMatchTheOldInitializer() throws {
        let source = ImageSource<Int>.memory(Fixtures.images)
        let old = try oldInitializers.make(source: source)
        let new = try ImageCache(source: source, configuration: .default)
        #expect(new.policy == old.policy)
        #expect(new.mode == old.mode)
        // Each cache makes its own pool from the policy: the same kind and capacity, not the same pool.
        #expect(new.allocator.description == old.allocator.description)
        #expect(new.decodeLimits == old.decodeLimits)
        #expect(new.fetchLimit == old.fetchLimit)
        #expect(new.fetchTimeout == old.fetchTimeout)
        #expect(new.diskStore == nil && old.diskStore == nil)
        #expect(new.onLoadCompleted == nil && old.onLoadCompleted == nil)
        #expect(new.onEvicted == nil && old.onEvicted == nil)
        // The values themselves, so that a default changed on both sides is seen too.
        let defaults = ImageCache<Int>.Configuration.default
        #expect(defaults.policy == .decodedLRU)
        #expect(defaults.mode == .asynchronous(workers: 2))
        #expect(defaults.allocator == nil && new.allocator.description == RetentionPolicy.decodedLRU.makeAllocator().description)
        #expect(defaults.decodeLimits == .default)
        #expect(defaults.diskStore == nil && defaults.diskName == nil)
        #expect(defaults.fetchLimit == 6 && defaults.fetchLimit == ImageCache<Int>.defaultFetchLimit)
        #expect(defaults.fetchTimeout == nil)
        #expect(defaults.onLoadCompleted == nil && defaults.onEvicted == nil)
    }

    @Test("the deprecated initializers still make a working cache with every setting they are given")
    func deprecatedInitializersStillWork() throws {
        let disk = try TemporaryStore("configuration-old-init")
        let loads = Lock(0)
        let cache = try oldInitializers.make(source: ImageSource<Int>.memory(Fixtures.images), disk: disk.store) { _ in
            loads.withLock { $0 += 1 }
        }
        #expect(cache.policy.name == RetentionPolicy.decodedLRUDisk.name && cache.mode == .synchronous)
        #expect(cache.fetchLimit == 2 && cache.fetchTimeout == .seconds(3))
        #expect(cache.decodeLimits == DecodeLimits(maxPixels: 4_000_000))
        #expect(cache.diskStore === disk.store)
        #expect(cache.appeared(1).status == .decoded)
        #expect(cache.cachedImage(for: 1)?.width == Fixtures.width)
        #expect(loads.withLock { $0 } == 1)
        cache.waitForIdle()
        #expect(cache.metrics.diskWrites == 1, "the disk tier was given and named its key")
        // A fetch limit under 1 counts as 1, either way.
        let zero = try oldInitializers.make(source: ImageSource<Int>.memory(Fixtures.images), fetchLimit: 0)
        #expect(zero.fetchLimit == 1)
        #expect(try ImageCache(source: ImageSource<Int>.memory(Fixtures.images), configuration: .init(fetchLimit: 0)).fetchLimit == 1)
    }

    @Test("the deprecated initializers throw what the configuration's does")
    func deprecatedInitializersThrowTheSame() throws {
        let disk = try TemporaryStore("configuration-old-throws")
        #expect(throws: ImageCacheError.storeWithoutDiskTier(policy: RetentionPolicy.decodedLRU.name)) {
            _ = try oldInitializers.make(source: ImageSource<Int>.memory(Fixtures.images), disk: disk.store, policy: .decodedLRU)
        }
        #expect(throws: ImageCacheError.storeWithoutDiskTier(policy: RetentionPolicy.decodedLRU.name)) {
            _ = try ImageCache(source: ImageSource<Int>.memory(Fixtures.images), configuration: .init(diskStore: disk.store))
        }
    }
}

/// The deprecated initializers, called through a protocol whose requirements are not
/// deprecated, so that testing them leaves the build without deprecation warnings.
private protocol OldInitializerCalls {
    static func make(source: ImageSource<Int>) throws -> ImageCache<Int>
    static func make(source: ImageSource<Int>, fetchLimit: Int) throws -> ImageCache<Int>
    static func make(source: ImageSource<Int>, disk: DiskStore, policy: RetentionPolicy) throws -> ImageCache<Int>
    static func make(source: ImageSource<Int>, disk: DiskStore,
                     onLoadCompleted: @escaping @Sendable (LoadCompletion<Int>) -> Void) throws -> ImageCache<Int>
}

private enum OldInitializers: OldInitializerCalls {
    /// Every setting at its default: the initializer without `fetchTimeout`.
    @available(*, deprecated)
    static func make(source: ImageSource<Int>) throws -> ImageCache<Int> {
        try ImageCache(source: source)
    }

    @available(*, deprecated)
    static func make(source: ImageSource<Int>, fetchLimit: Int) throws -> ImageCache<Int> {
        try ImageCache(source: source, fetchLimit: fetchLimit)
    }

    @available(*, deprecated)
    static func make(source: ImageSource<Int>, disk: DiskStore, policy: RetentionPolicy) throws -> ImageCache<Int> {
        try ImageCache(source: source, policy: policy, disk: disk, fetchTimeout: nil)
    }

    /// Every setting given: the initializer with `fetchTimeout`.
    @available(*, deprecated)
    static func make(source: ImageSource<Int>, disk: DiskStore,
                     onLoadCompleted: @escaping @Sendable (LoadCompletion<Int>) -> Void) throws -> ImageCache<Int> {
        try ImageCache(source: source, policy: .decodedLRUDisk, mode: .synchronous,
                       allocator: RetentionPolicy.decodedLRUDisk.makeAllocator(), decodeLimits: DecodeLimits(maxPixels: 4_000_000),
                       disk: disk, fetchLimit: 2, fetchTimeout: .seconds(3), diskName: { "\($0)" },
                       onLoadCompleted: onLoadCompleted, onEvicted: { _ in })
    }
}

/// ``OldInitializers`` seen through its protocol.
private var oldInitializers: any OldInitializerCalls.Type { OldInitializers.self }
