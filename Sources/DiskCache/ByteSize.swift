import SystemIO

/// A number of bytes (`.megabytes(150)`, `ByteSize("64MB")`): the one unit of size of every
/// library product (a store's limit here, budgets in Retention, soak limits in SoakProbe),
/// named here so a user of DiskCache names it without another module: SystemIO, where it lives,
/// is not a product. The same type in every product; it was declared here before 0.3.
public typealias ByteSize = SystemIO.ByteSize
