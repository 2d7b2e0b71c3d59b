import SystemIO

/// A child process run to its end with its output captured, whose `Outcome` Lab describes in
/// one line (`Outcome.failure(timeoutSeconds:cpuTimeoutSeconds:outputLimit:)`): SystemIO's
/// type, named here because SystemIO is not a product.
public typealias ChildProcess = SystemIO.ChildProcess
