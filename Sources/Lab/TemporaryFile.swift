import SystemIO

/// A file with a unique name, removed when the value goes away unless committed, as
/// `Comparison.calibrate` returns the measured cost table's: SystemIO's type, named here
/// because SystemIO is not a product.
public typealias TemporaryFile = SystemIO.TemporaryFile
