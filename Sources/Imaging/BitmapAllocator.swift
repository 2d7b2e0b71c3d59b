import Glibc
import SystemIO

/// Where a bitmap's pixel memory comes from, which decides whether freed memory leaves the
/// process.
///
/// - `system`: `malloc`/`free`. glibc serves large blocks with mmap but raises its mmap
///   threshold after such blocks are freed, so later bitmaps may come from the heap and stay
///   resident after `free` — the Linux cousin of the seed's `Image` finding.
/// - `pageMapped`: one `mmap`/`munmap` per bitmap, so freed memory leaves the process at once.
///   Costs a system call pair and page faults per bitmap; wastes < 4 KiB per bitmap.
/// - `pooled(capacity:)`: page-mapped buffers reused by size class (like Glide's bitmap pool),
///   holding at most `capacity` bytes of free buffers; see `BitmapPool`.
/// - `bounded(capacity:)`: a pool that also keeps no more than 6 MiB plus an eighth of the
///   bitmaps alive: freed memory either serves the next bitmap or leaves the process. A reused
///   buffer costs no page faults, so it is as cheap as `system` where `pageMapped` costs a
///   fifth more CPU per decode.
public struct BitmapAllocator: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case system
        case pageMapped
        case pooled(BitmapPool)
    }

    let kind: Kind

    private init(kind: Kind) {
        self.kind = kind
    }

    /// `malloc`/`free` (glibc's allocator decides what stays resident).
    public static let system = BitmapAllocator(kind: .system)
    /// `mmap`/`munmap` per bitmap: freed memory is returned to the kernel immediately.
    public static let pageMapped = BitmapAllocator(kind: .pageMapped)

    /// A new pool that keeps at most `capacity` bytes of free buffers for reuse.
    /// Each call creates a distinct pool; share the returned allocator to share the pool.
    public static func pooled(capacity: Int) -> BitmapAllocator {
        BitmapAllocator(kind: .pooled(BitmapPool(capacity: capacity)))
    }

    /// A new bounded pool: at most `capacity` bytes of free buffers, and never more than
    /// `BitmapPool.boundedSlackBytes` plus an eighth of the bytes its bitmaps hold. Each call
    /// creates a distinct pool.
    public static func bounded(capacity: Int) -> BitmapAllocator {
        BitmapAllocator(kind: .pooled(BitmapPool(capacity: capacity, bounded: true)))
    }

    /// The pool behind a `pooled` or `bounded` allocator, for its counters; nil otherwise.
    public var pool: BitmapPool? {
        if case .pooled(let pool) = kind { return pool }
        return nil
    }

    /// `system`, `pageMapped`, `pooled(capacity: N)` or `bounded(capacity: N)`.
    public var description: String {
        switch kind {
        case .system: return "system"
        case .pageMapped: return "pageMapped"
        case .pooled(let pool): return pool.bounded ? "bounded(capacity: \(pool.capacity))" : "pooled(capacity: \(pool.capacity))"
        }
    }

    /// Takes `byteCount` bytes of pixel memory. The memory is not written here: a decoder
    /// writes every byte, which makes it resident; `Bitmap(width:height:allocator:)` zero-fills.
    func allocate(byteCount: Int) throws(ImagingError) -> PixelMemory {
        switch kind {
        case .system:
            guard let pointer = malloc(max(byteCount, 1)) else { throw .outOfMemory(bytes: byteCount) }
            return PixelMemory(base: pointer, reservedBytes: byteCount, reused: false)
        case .pageMapped:
            guard let reserved = PageMapping.roundUp(byteCount) else { throw .outOfMemory(bytes: byteCount) }
            return PixelMemory(base: try PageMapping.map(reserved), reservedBytes: reserved, reused: false)
        case .pooled(let pool):
            return try pool.take(byteCount: byteCount)
        }
    }

    /// True when asking for `capacity` bytes instead of `byteCount` takes memory of the same
    /// kind: always, but for a `pooled` pool, whose size class must not change (a bitmap given
    /// back must serve the next request of its size); a `bounded` pool allows a larger class. A
    /// size too large for any class is never allowed. O(1).
    func allowsCapacity(_ capacity: Int, forByteCount byteCount: Int) -> Bool {
        if case .pooled(let pool) = kind {
            guard let wanted = BitmapPool.sizeClass(capacity), let own = BitmapPool.sizeClass(byteCount) else { return false }
            // A bounded pool takes the larger class: a buffer given back serves the next decode
            // of the same image size, and what it keeps is capped by what is alive anyway.
            return wanted == own || pool.bounded
        }
        return true
    }

    /// Gives back memory taken by `allocate`.
    func release(_ memory: PixelMemory) {
        switch kind {
        case .system: free(memory.base)
        case .pageMapped: PageMapping.unmap(memory.base, memory.reservedBytes)
        case .pooled(let pool): pool.give(memory)
        }
    }
}

/// A block of pixel memory and how many bytes were really reserved for it.
struct PixelMemory: @unchecked Sendable {
    // @unchecked: a raw pointer is not Sendable; the owner (Bitmap or BitmapPool's free list)
    // is the only holder, and ownership moves, it is never shared.
    let base: UnsafeMutableRawPointer
    let reservedBytes: Int
    /// True when a pool handed out a buffer it had before (its pages are already resident).
    let reused: Bool
}

extension PageMapping {
    /// Maps `bytes` (whole pages) of anonymous memory, or throws `.outOfMemory`. One `mmap`.
    static func map(_ bytes: Int) throws(ImagingError) -> UnsafeMutableRawPointer {
        guard let pointer = mapAnonymous(bytes) else { throw .outOfMemory(bytes: bytes) }
        return pointer
    }
}
