import SystemIO

/// The one error of the system layer (a path, the operation and why, in one line), under the
/// name this product's API uses, so a user of Imaging names it without another module: SystemIO,
/// where it lives, is not a product. The same type in every product that throws it.
public typealias SystemError = SystemIO.SystemError
