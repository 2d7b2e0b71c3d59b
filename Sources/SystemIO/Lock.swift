import Synchronization

/// The package's one lock: a `Synchronization.Mutex` around a value, whose ordering
/// ThreadSanitizer can see. Every type with shared mutable state keeps it in a `Lock` (or in an
/// `Atomic` for a counter), held for short critical sections only.
///
/// On Linux, `Synchronization.Mutex` hands a contended lock over in the kernel
/// (`FUTEX_LOCK_PI`), so the next owner performs no atomic operation TSan observes and TSan
/// reports the protected state as racing (reproduced with a `Mutex<[Int: Int]>` counter and
/// four threads). Each critical section here starts with an acquiring load and ends with a
/// releasing store of one byte, which gives TSan the happens-before edge the kernel provides.
/// On x86-64 and arm64 both are plain loads and stores, inside the lock's cache line traffic
/// anyway: no measurable cost over the `Mutex` alone.
public struct Lock<Value>: ~Copyable, Sendable {
    @usableFromInline let mutex: Mutex<Value>
    @usableFromInline let edge = Atomic<UInt8>(0)

    /// A lock around `value`. O(1).
    @inlinable
    public init(_ value: consuming sending Value) {
        mutex = Mutex(value)
    }

    /// Runs `body` with exclusive access to the value and returns what it returns. Inlined,
    /// so callers pay for the `Mutex` and two plain memory accesses, not for a generic call.
    @inlinable @inline(__always)
    public borrowing func withLock<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            _ = edge.load(ordering: .acquiring)
            defer { edge.store(0, ordering: .releasing) }
            return try body(&value)
        }
    }

    /// Runs `body` with exclusive access when the lock is free at once, and returns what it
    /// returns; nil, without waiting, when another thread holds it. O(1) besides `body`.
    @inlinable @inline(__always)
    public borrowing func withLockIfAvailable<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result? {
        try mutex.withLockIfAvailable { (value: inout sending Value) throws(E) -> sending Result in
            _ = edge.load(ordering: .acquiring)
            defer { edge.store(0, ordering: .releasing) }
            return try body(&value)
        }
    }
}
