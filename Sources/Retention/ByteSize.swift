import SystemIO

/// A number of bytes (`.megabytes(32)`): the one unit of size of every library product
/// (budgets here, a store's limit in DiskCache, soak limits in SoakProbe), named here so
/// `Retention.ByteSize` keeps working. The same type in every product.
public typealias ByteSize = SystemIO.ByteSize
