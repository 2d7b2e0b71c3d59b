import Imaging
import Synchronization
import SystemIO

/// The bitmaps of visible rows, striped by key hash over shards that each have their own lock:
/// the read side of the cache's hottest call. A hit on a visible row (``ImageCache/cachedImage(for:)``,
/// once per visible row per frame, from every thread of a server) takes one shard's lock and
/// never the cache's, so threads looking up different keys rarely meet, where one lock for
/// every lookup collapsed 90× at 8 threads.
///
/// Why only visible rows: their bitmaps are *active*, never evicted and in no LRU, so a hit on
/// one changes nothing but a hit counter; the cache's lock orders everything else (a hidden
/// row's hit moves it in the LRU, a miss counts a placeholder). A lookup that misses here goes
/// to the cache's lock and runs exactly as before, so the policy, and every lab answer, is
/// unchanged. Guava's `LocalCache` stripes its table the same way; Caffeine's lock-free reads
/// would need a concurrent table Swift's `Dictionary` is not.
///
/// Kept by ``CacheState`` under the cache's lock (lock order: the cache's, then a shard's):
/// a bitmap enters when its hold becomes active and leaves when it stops being active.
@usableFromInline
final class ActiveIndex<Key: Hashable & Sendable>: Sendable {
    /// One stripe: its visible rows' bitmaps behind a readers-writer lock (SystemIO's
    /// `ReadWriteLock`, one atomic word: hits only read, so threads hitting one stripe never
    /// wait for each other, and a reader preempted while holding it stalls no other reader; a
    /// `Mutex` here collapsed with more threads than cores), and the hits it served (an
    /// atomic, since readers share the lock). A class of its own, padded, so shards do not
    /// share a line.
    ///
    /// `@unchecked Sendable`: `bitmaps` is read only under `lock` shared and written only under
    /// it exclusive.
    @usableFromInline
    final class Shard: @unchecked Sendable {
        @usableFromInline let lock = ReadWriteLock()
        @usableFromInline var bitmaps: [Key: Bitmap] = [:]
        @usableFromInline let hits = Atomic<Int>(0)
        /// Padding past the counter, so two shards allocated side by side never share a line.
        let padding: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)

        @usableFromInline init() {}
    }

    @usableFromInline let shards: [Shard]
    @usableFromInline let mask: Int

    /// Shards enough for the machine's cores: the next power of two at or above 8 × cores,
    /// at least 16 (a shard is a lock and an empty dictionary: about 200 bytes). O(shards).
    init(cores: Int = Machine.onlineCores) {
        var count = 16
        while count < 8 * cores && count < 1024 { count *= 2 }
        shards = (0..<count).map { _ in Shard() }
        mask = count - 1
    }

    /// The visible row's bitmap for `key`, counting a hit; nil when the key is not a visible
    /// row with a bitmap. One hash, one shared hold of a stripe's lock, one dictionary lookup,
    /// one atomic add on a hit; no allocation.
    @inlinable
    func lookup(_ key: Key) -> Bitmap? {
        let shard = shards[key.hashValue & mask]
        shard.lock.lockShared()
        let bitmap = shard.bitmaps[key]
        shard.lock.unlockShared()
        if bitmap != nil { shard.hits.wrappingAdd(1, ordering: .relaxed) }
        return bitmap
    }

    /// `key`'s bitmap became active. Called under the cache's lock. O(1) amortized.
    func insert(_ key: Key, _ bitmap: Bitmap) {
        let shard = shards[key.hashValue & mask]
        shard.lock.lockExclusive()
        shard.bitmaps[key] = bitmap
        shard.lock.unlockExclusive()
    }

    /// `key`'s bitmap is no longer active. Called under the cache's lock. O(1).
    func remove(_ key: Key) {
        let shard = shards[key.hashValue & mask]
        shard.lock.lockExclusive()
        shard.bitmaps.removeValue(forKey: key)
        shard.lock.unlockExclusive()
    }

    /// Hits served here since the cache was made. O(shards).
    var hits: Int { shards.reduce(0) { $0 + $1.hits.load(ordering: .relaxed) } }

    /// Every key with its bitmap, for the invariant checks. O(entries).
    var contents: [Key: Bitmap] {
        shards.reduce(into: [:]) { all, shard in
            shard.lock.lockShared()
            all.merge(shard.bitmaps) { a, _ in a }
            shard.lock.unlockShared()
        }
    }
}
