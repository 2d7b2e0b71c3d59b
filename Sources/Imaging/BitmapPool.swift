import SystemIO
import Synchronization

/// Free bitmap buffers kept for reuse by size class, capped in bytes (Glide's bitmap pool).
///
/// A *bounded* pool (``init(capacity:bounded:)``) also caps what it keeps by what is in use:
/// at most ``boundedSlackBytes`` plus an eighth of the bytes it has handed out and not had back,
/// so free buffers never add more than that to the process's resident memory, however small
/// the working set is (Fresco counts and caps its pools the same way).
///
/// Size classes are the byte count rounded up to a whole page and then to the next of four
/// steps per power of two (1, 1.25, 1.5, 1.75 × 2^k), so a buffer wastes at most 25 % and
/// images of nearly equal size share buffers. Buffers are page-mapped: when the pool drops one
/// (over capacity, or `trim()`), its memory leaves the process. Reused buffers are not zeroed.
///
/// Thread safety: the free lists and counters live in one `Lock` — a lock, not an actor,
/// because `take`/`give` run inside synchronous decode and deinit paths that cannot await.
public final class BitmapPool: Sendable, Hashable {
    /// Counters since the pool was created.
    public struct Statistics: Sendable, Hashable {
        /// Allocations served from a free buffer.
        public var hits = 0
        /// Allocations that mapped a new buffer.
        public var misses = 0
        /// Released buffers unmapped because keeping them would exceed the capacity.
        public var drops = 0
        /// Bytes of free buffers the pool holds now.
        public var heldBytes = 0
        /// Number of free buffers the pool holds now.
        public var heldBuffers = 0
        /// Bytes of buffers handed out and not given back yet (bitmaps alive).
        public var liveBytes = 0
    }

    struct State {
        var free: [Int: [PixelMemory]] = [:]
        var stats = Statistics()
    }

    /// Most bytes of free buffers kept.
    public let capacity: Int
    /// Whether free buffers are also capped by the bytes in use (``boundedSlackBytes`` plus an
    /// eighth of ``Statistics/liveBytes``).
    public let bounded: Bool
    private let state = Lock(State())

    /// What a bounded pool may keep whatever is in use: 6 MiB.
    public static let boundedSlackBytes = 6 << 20

    /// A pool keeping at most `capacity` bytes of free buffers. O(1).
    public convenience init(capacity: Int) {
        self.init(capacity: capacity, bounded: false)
    }

    /// A pool keeping at most `capacity` bytes of free buffers; `bounded`: and at most
    /// ``boundedSlackBytes`` plus an eighth of the bytes in use. O(1).
    public init(capacity: Int, bounded: Bool) {
        self.capacity = max(0, capacity)
        self.bounded = bounded
    }

    /// The most free bytes kept while `live` bytes are in use. O(1).
    func keepLimit(live: Int) -> Int {
        bounded ? min(capacity, Self.boundedSlackBytes + max(0, live) / 8) : capacity
    }

    deinit {
        state.withLock { state in
            for (size, buffers) in state.free {
                for buffer in buffers { PageMapping.unmap(buffer.base, size) }
            }
            state.free = [:]
        }
    }

    /// The pool's counters. O(1).
    public var statistics: Statistics { state.withLock { $0.stats } }

    /// Unmaps every free buffer, returning their memory to the kernel. O(buffers held).
    public func trim() {
        let dropped: [Int: [PixelMemory]] = state.withLock { state in
            let all = state.free
            state.free = [:]
            state.stats.heldBytes = 0
            state.stats.heldBuffers = 0
            return all
        }
        for (size, buffers) in dropped {
            for buffer in buffers { PageMapping.unmap(buffer.base, size) }
        }
    }

    /// The size class for a request of `byteCount` bytes, or nil when the class would be past
    /// `Int.max` (no memory could serve it): every step is overflow-checked. O(log byteCount).
    static func sizeClass(_ byteCount: Int) -> Int? {
        guard let pages = PageMapping.roundUp(byteCount) else { return nil }
        // The largest power of two at or below `pages` (at least 1).
        let power = 1 << (Int.bitWidth - 1 - pages.leadingZeroBitCount)
        let step = max(power / 4, PageMapping.pageSize)
        let end = pages.addingReportingOverflow(step - 1)
        return end.overflow ? nil : end.partialValue / step * step
    }

    func take(byteCount: Int) throws(ImagingError) -> PixelMemory {
        guard let size = BitmapPool.sizeClass(byteCount) else { throw .outOfMemory(bytes: byteCount) }
        let reused: PixelMemory? = state.withLock { state in
            if var list = state.free[size], let buffer = list.popLast() {
                state.free[size] = list.isEmpty ? nil : list
                state.stats.hits += 1
                state.stats.heldBytes -= size
                state.stats.heldBuffers -= 1
                state.stats.liveBytes += size
                return buffer
            }
            state.stats.misses += 1
            return nil
        }
        if let reused { return PixelMemory(base: reused.base, reservedBytes: size, reused: true) }
        let mapped = try PageMapping.map(size)
        // Counted live once mapped: a size no mapping could serve never reaches the counter.
        state.withLock { $0.stats.liveBytes += size }
        return PixelMemory(base: mapped, reservedBytes: size, reused: false)
    }

    func give(_ memory: PixelMemory) {
        let size = memory.reservedBytes
        let kept = state.withLock { state in
            state.stats.liveBytes -= size
            guard state.stats.heldBytes + size <= keepLimit(live: state.stats.liveBytes) else {
                state.stats.drops += 1
                return false
            }
            state.free[size, default: []].append(memory)
            state.stats.heldBytes += size
            state.stats.heldBuffers += 1
            return true
        }
        if !kept { PageMapping.unmap(memory.base, size) }
    }

    /// Pools are equal only to themselves.
    public static func == (lhs: BitmapPool, rhs: BitmapPool) -> Bool { lhs === rhs }
    /// Hashes the pool's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
