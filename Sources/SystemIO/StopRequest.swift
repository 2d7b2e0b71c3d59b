internal import CProcessShim
import Synchronization

/// A request to stop work and start no more, made from any thread: by a caller
/// (``request(signal:)``) or, for a request that observes signals, by SIGINT or SIGTERM
/// through ``StopSignals``. Holds the signal that asked, the first one winning. Lock-free:
/// an `Atomic`, read by the work's loops.
public final class StopRequest: Sendable {
    private let value = Atomic<Int32>(0)
    private let observesSignals: Bool

    /// A request not yet made; with `observingSignals`, a signal ``StopSignals`` recorded
    /// counts as one. O(1).
    public init(observingSignals: Bool = false) {
        observesSignals = observingSignals
    }

    /// Records that `signal` asked to stop (the first one wins). O(1).
    public func request(signal: Int32) {
        _ = value.compareExchange(expected: 0, desired: signal, ordering: .relaxed)
    }

    /// The signal that asked to stop, or nil. O(1).
    public var signal: Int32? {
        let own = value.load(ordering: .relaxed)
        if own != 0 { return own }
        return observesSignals ? StopSignals.received : nil
    }
}
