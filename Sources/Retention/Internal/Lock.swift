import Synchronization

/// A `Mutex` whose ordering ThreadSanitizer can see.
///
/// On Linux, `Synchronization.Mutex` hands a contended lock over in the kernel
/// (`FUTEX_LOCK_PI`), so the next owner performs no atomic operation TSan observes and TSan
/// reports the protected state as racing (reproduced with a `Mutex<[Int: Int]>` counter and
/// four threads). Each critical section here starts with an acquiring load and ends with a
/// releasing store of one byte, which gives TSan the happens-before edge the kernel provides.
/// On x86-64 and arm64 both are plain loads and stores, inside the lock's cache line traffic
/// anyway: no measurable cost.
struct Lock<Value>: ~Copyable, Sendable {
    private let mutex: Mutex<Value>
    private let edge = Atomic<UInt8>(0)

    init(_ value: consuming sending Value) {
        mutex = Mutex(value)
    }

    /// Runs `body` with exclusive access to the value. Always inlined, so callers pay for
    /// the `Mutex` and two plain memory accesses, not for a generic call.
    @inline(__always)
    borrowing func withLock<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            _ = edge.load(ordering: .acquiring)
            defer { edge.store(0, ordering: .releasing) }
            return try body(&value)
        }
    }
}
