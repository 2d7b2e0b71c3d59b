import DiskCache

/// DiskCache's store of files under string keys, the disk tier's default, named here so a user
/// of `Retention` alone can make one and name its `WriteState` when writing an
/// `ImageCacheDiskStore` of their own. The same type as `DiskCache.DiskStore`.
public typealias DiskStore = DiskCache.DiskStore
