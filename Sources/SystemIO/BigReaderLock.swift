internal import CProcessShim
import Synchronization

/// A readers-writer lock whose readers write only a slot of their own thread: for state read
/// by every thread on the hottest path and written rarely (the visible rows a cache serves
/// hits from).
///
/// A readers-writer lock that keeps its readers in one atomic word makes every read write the
/// one cache line every other reader writes too: hits on 2 cores ran 1.15× one thread's, where a frozen
/// dictionary with no lock ran 1.9×. Here each thread enters through its own slot (the thread's
/// number, ``CProcessShim``'s `rtn_thread_index`, modulo the slots), a 128-byte line no other
/// thread writes while there are no more threads than slots; a writer raises one flag that every
/// reader only reads, then waits for each slot to empty. The Linux kernel's "big reader" locks
/// had this shape. A reader also counts an event (a hit) in its slot as it leaves, in the same
/// atomic add, so counting costs no second shared line.
///
/// Costs: a read is two atomic adds on the thread's own line and one load of the shared flag;
/// a write sets the flag and reads every slot (O(slots)), and blocks every reader while it
/// holds the lock. Memory: 128 bytes a slot, slots the next power of two at or above 4 ×
/// cores (at least 8, at most 256), plus one line for the flag.
///
/// Each slot's word holds the readers inside (low 16 bits) and the events counted (the high 48
/// bits, wrapping): ``counted`` folds each slot's count into a running total, so the total
/// stays exact as long as it is read once per 2^48 events of a slot (days at a hundred million a
/// second). Orderings: a reader's entry and the writer's flag are sequentially consistent (each
/// sees the other's store, Dekker's pattern), a reader's exit releases what it read and the
/// writer's unlock releases what it wrote; ThreadSanitizer sees them.
///
/// `@unchecked Sendable`: the slots and the flag are `Atomic`s in memory this object allocates
/// and frees; the fold of the counts is behind a ``Lock`` (a mutex: read rarely, by
/// metrics).
public final class BigReaderLock: @unchecked Sendable {
    /// Bytes between two slots: two cache lines, so a neighbour's prefetch does not pull in a
    /// slot another thread writes.
    @inlinable static var stride: Int { 128 }
    /// A reader inside, in a slot's word.
    @inlinable static var reader: Int { 1 }
    /// One counted event, in a slot's word.
    @inlinable static var event: Int { 1 << 16 }

    /// The flag's line, then the slots'.
    @usableFromInline let memory: UnsafeMutableRawPointer
    /// Slots - 1: a thread's number masked by it is its slot.
    @usableFromInline let mask: Int
    /// The running total of counted events, and each slot's count when last folded.
    let folded: Lock<(total: Int, last: [UInt])>

    /// A lock with slots for `cores` cores (the machine's by default). O(slots).
    public init(cores: Int = Machine.onlineCores) {
        var slots = 8
        while slots < 4 * cores && slots < 256 { slots *= 2 }
        mask = slots - 1
        memory = UnsafeMutableRawPointer.allocate(byteCount: (slots + 1) * Self.stride, alignment: Self.stride)
        for index in 0...slots {
            (memory + index * Self.stride).bindMemory(to: Atomic<Int>.self, capacity: 1).initialize(to: Atomic(0))
        }
        folded = Lock((0, [UInt](repeating: 0, count: slots)))
    }

    deinit {
        memory.deallocate()
    }

    /// The writer's flag: 1 while a writer holds or waits for the lock.
    @inlinable var flag: UnsafeMutablePointer<Atomic<Int>> {
        memory.assumingMemoryBound(to: Atomic<Int>.self)
    }

    /// Slot `index`'s word.
    @inlinable func word(_ index: Int) -> UnsafeMutablePointer<Atomic<Int>> {
        (memory + (index + 1) * Self.stride).assumingMemoryBound(to: Atomic<Int>.self)
    }

    /// The calling thread's slot. One thread-local read.
    @usableFromInline static func currentThread() -> Int { Int(rtn_thread_index()) }

    /// Takes the lock shared, alongside every other reader, waiting only for a writer; returns
    /// the slot to give ``unlockShared(_:counting:)``. One atomic add on the thread's own line
    /// and one load of the flag when no writer holds it.
    @inlinable @inline(__always)
    public func lockShared() -> Int {
        let slot = Self.currentThread() & mask
        let word = self.word(slot)
        while true {
            word.pointee.wrappingAdd(Self.reader, ordering: .sequentiallyConsistent)
            if flag.pointee.load(ordering: .sequentiallyConsistent) == 0 { return slot }
            word.pointee.wrappingSubtract(Self.reader, ordering: .releasing)
            waitForWriter()
        }
    }

    /// Releases a shared hold taken in `slot`, counting one event when `counting` is true
    /// (in the same atomic add). One atomic add on the thread's own line.
    @inlinable @inline(__always)
    public func unlockShared(_ slot: Int, counting: Bool) {
        word(slot).pointee.wrappingAdd(counting ? Self.event - Self.reader : -Self.reader, ordering: .releasing)
    }

    /// Takes the lock exclusively: raises the flag (one writer at a time), then waits for each
    /// slot's readers to leave. O(slots); new readers wait until ``unlockExclusive()``.
    public func lockExclusive() {
        var spins = 0
        while !flag.pointee.compareExchange(expected: 0, desired: 1, ordering: .sequentiallyConsistent).exchanged {
            Self.backOff(&spins)
        }
        for slot in 0...mask {
            spins = 0
            while word(slot).pointee.load(ordering: .sequentiallyConsistent) & (Self.event - 1) != 0 {
                Self.backOff(&spins)
            }
        }
    }

    /// Releases the exclusive hold. O(1).
    public func unlockExclusive() {
        flag.pointee.store(0, ordering: .releasing)
    }

    /// Waits until no writer holds the flag (a reader that found one). Not inlined: the slow
    /// path.
    @usableFromInline
    func waitForWriter() {
        var spins = 0
        while flag.pointee.load(ordering: .relaxed) != 0 { Self.backOff(&spins) }
    }

    /// Spins 64 times, then yields the core on each call after, so a holder that was preempted
    /// runs again.
    static func backOff(_ spins: inout Int) {
        spins += 1
        if spins > 64 { Pause.yield() }
    }

    /// Events counted by ``unlockShared(_:counting:)`` since the lock was made, exact while it
    /// is read at least once per 2^48 events of a slot. O(slots), one mutex.
    public var counted: Int {
        folded.withLock { state in
            for slot in 0...mask {
                let now = UInt(bitPattern: word(slot).pointee.load(ordering: .relaxed)) >> 16
                let delta = (now &- state.last[slot]) & ((1 << 48) - 1)
                state.last[slot] = now
                state.total &+= Int(delta)
            }
            return state.total
        }
    }
}
