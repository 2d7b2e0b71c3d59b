import SystemIO

/// An open folder (a descriptor held, so its entries are reached without following a link
/// planted in its path), as `LabDiskStore.privateFolder(in:)` returns it: SystemIO's type,
/// named here because SystemIO is not a product.
public typealias Directory = SystemIO.Directory
