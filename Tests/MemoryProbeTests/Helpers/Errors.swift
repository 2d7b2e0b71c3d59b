import MemoryProbe

/// The description of the error `body` throws, or nil when it does not throw.
/// (Closure literals infer `throws(any Error)`, hence the cast.)
func errorText<T>(_ body: () throws -> T) -> String? {
    thrownError(body).map(\.description)
}

/// The ``MemoryProbeError`` `body` throws, or nil when it does not throw; any other error
/// type is a test failure.
func thrownError<T>(_ body: () throws -> T) -> MemoryProbeError? {
    do {
        _ = try body()
        return nil
    } catch let error as MemoryProbeError {
        return error
    } catch {
        preconditionFailure("expected a MemoryProbeError, got \(error)")
    }
}
