import DiskCache

/// Why a disk store refused or failed a write (`ImageCacheDiskStore.store(_:for:)` throws it),
/// named here so a user of `Retention` alone can implement that protocol. The same type as
/// `DiskCache.DiskStoreError`.
public typealias DiskStoreError = DiskCache.DiskStoreError
