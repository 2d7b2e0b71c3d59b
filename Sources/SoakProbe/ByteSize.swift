import SystemIO

/// A number of bytes (`.kilobytes(64)`): the one unit of size of every library product, here
/// the growth a ``SoakLimit`` accepts, named here so a user of SoakProbe names it without another
/// module. The same type as `Retention.ByteSize` and `DiskCache.ByteSize`.
public typealias ByteSize = SystemIO.ByteSize
