import DiskCache

/// A number of bytes: DiskCache's `ByteSize`, the one unit of size of every library product
/// (budgets here, a store's limit there), named here as before so `Retention.ByteSize` keeps
/// working.
public typealias ByteSize = DiskCache.ByteSize
