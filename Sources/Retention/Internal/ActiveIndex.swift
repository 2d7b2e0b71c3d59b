import Imaging
import SystemIO

/// The bitmaps of visible rows: the read side of the cache's hottest call. A hit on a visible
/// row (``ImageCache/cachedImage(for:)``, once per visible row per frame, from every thread of a
/// server) takes a ``BigReaderLock`` shared, whose readers write only a slot of their own
/// thread, and never the cache's lock, so threads hitting at once do not pass a cache line
/// between them: one lock for every lookup collapsed 90× at 8 threads, and a readers-writer
/// lock in one word (every reader writing it) held 2 threads to 1.15× one thread's hits.
///
/// Why only visible rows: their bitmaps are *active*, never evicted and in no LRU, so a hit on
/// one changes nothing but a hit counter (counted in the reader's slot, as it leaves); the
/// cache's lock orders everything else (a hidden row's hit moves it in the LRU, a miss counts a
/// placeholder). A lookup that misses here goes to the cache's lock and runs exactly as
/// before, so the policy, and every lab answer, is unchanged. Caffeine reads without a lock
/// through a concurrent table; Swift's `Dictionary` is not one, so readers here exclude the
/// writer instead, and the writer (the cache, under its own lock, as a row appears or
/// disappears) waits for the readers inside.
///
/// Kept by ``CacheState`` under the cache's lock (lock order: the cache's, then this one's):
/// a bitmap enters when its hold becomes active and leaves when it stops being active.
///
/// `@unchecked Sendable`: `bitmaps` is read only under `lock` shared and written only under
/// it exclusive. For the same reason it is `@exclusivity(unchecked)`: the lock orders every
/// access, so the runtime's dynamic exclusivity check (a thread-local access set entered and
/// left on every read, about a tenth of a hit's time in a profile) would prove nothing.
@usableFromInline
final class ActiveIndex<Key: Hashable & Sendable>: @unchecked Sendable {
    @usableFromInline let lock: BigReaderLock
    @usableFromInline @exclusivity(unchecked) var bitmaps: [Key: Bitmap] = [:]

    /// An empty index whose lock has slots for `cores` cores. O(slots).
    init(cores: Int = Machine.onlineCores) {
        lock = BigReaderLock(cores: cores)
    }

    /// The visible row's bitmap for `key`, counting a hit; nil when the key is not a visible
    /// row with a bitmap. One hash, two atomic adds on the thread's own slot, one dictionary
    /// lookup; no allocation.
    @inlinable
    func lookup(_ key: Key) -> Bitmap? {
        let slot = lock.lockShared()
        let bitmap = bitmaps[key]
        lock.unlockShared(slot, counting: bitmap != nil)
        return bitmap
    }

    /// `key`'s bitmap became active. Called under the cache's lock. O(slots) for the lock,
    /// O(1) amortized for the table.
    func insert(_ key: Key, _ bitmap: Bitmap) {
        lock.lockExclusive()
        bitmaps[key] = bitmap
        lock.unlockExclusive()
    }

    /// `key`'s bitmap is no longer active. Called under the cache's lock. O(slots).
    func remove(_ key: Key) {
        lock.lockExclusive()
        bitmaps.removeValue(forKey: key)
        lock.unlockExclusive()
    }

    /// Hits served here since the cache was made. O(slots).
    var hits: Int { lock.counted }

    /// Every key with its bitmap, for the invariant checks. O(entries).
    var contents: [Key: Bitmap] {
        let slot = lock.lockShared()
        defer { lock.unlockShared(slot, counting: false) }
        return bitmaps
    }
}
