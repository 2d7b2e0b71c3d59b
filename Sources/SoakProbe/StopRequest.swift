import SystemIO

/// A request to stop long work, set from a signal handler (SIGINT, SIGTERM) and polled by the
/// work, under the name this product's API uses: SystemIO, where it lives, is not a product.
/// The same type in every product that takes one.
public typealias StopRequest = SystemIO.StopRequest
