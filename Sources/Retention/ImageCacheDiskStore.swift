#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import DiskCache

/// The store an `ImageCache`'s disk tier keeps its entries in (the source's bytes and the
/// thumbnails it made, under string keys): `DiskStore` is one, and a user may give another
/// (a store of their own, or a fake in tests), as Nuke takes any `DataCaching`.
///
/// The tier calls it from the threads that load (a lookup: ``contains(_:)``, ``data(for:)``,
/// ``remove(_:)`` of an entry that does not decode) and from its one writer thread
/// (``store(_:for:)``, ``trim(to:)``) at the same time, never under the cache's lock, so an
/// implementation must be safe to call from several threads; its costs are the cache's disk
/// costs (a lookup runs on a loading thread, before the decode).
public protocol ImageCacheDiskStore: AnyObject, Sendable {
    /// The most bytes the store keeps; a tier's budget must fit it. O(1).
    var limit: Int { get }
    /// The bytes the store keeps now, against ``limit``. O(1).
    var usage: Int { get }
    /// Whether the store writes, and if not, why (`ImageCache.diskWriteState` reports it). O(1).
    var writeState: DiskStore.WriteState { get }
    /// True when an entry is stored under `key`, without reading it.
    func contains(_ key: String) -> Bool
    /// The bytes stored under `key`; nil for a miss or an entry that fails its own check.
    func data(for key: String) -> Data?
    /// Stores `data` under `key`, replacing what was there; throws when it cannot (a full disk,
    /// a store that does not write), which the tier counts and goes on.
    func store(_ data: Data, for key: String) throws(DiskStoreError)
    /// Removes the entry under `key` (the tier removes one that did not decode); true when one
    /// was there.
    @discardableResult func remove(_ key: String) -> Bool
    /// Evicts entries, least recently used first, until at most `size` bytes remain (the tier
    /// trims to its budget when that is below ``limit``); returns the number removed.
    @discardableResult func trim(to size: ByteSize) -> Int
}

/// `DiskStore` is the disk tier's store as shipped: crash-safe, size-bounded, one owner per
/// folder. Its generic `store(_:for:)` serves ``ImageCacheDiskStore/store(_:for:)``.
extension DiskStore: ImageCacheDiskStore {}
