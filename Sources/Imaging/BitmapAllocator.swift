import Glibc

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

    /// The pool behind a `pooled` allocator, for its counters; nil otherwise.
    public var pool: BitmapPool? {
        if case .pooled(let pool) = kind { return pool }
        return nil
    }

    /// `system`, `pageMapped` or `pooled(capacity: N)`.
    public var description: String {
        switch kind {
        case .system: return "system"
        case .pageMapped: return "pageMapped"
        case .pooled(let pool): return "pooled(capacity: \(pool.capacity))"
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
    /// kind: always, but for a pool, whose size class must not change (a bitmap given back must
    /// serve the next request of its size; a size too large for any class is never allowed). O(1).
    func allowsCapacity(_ capacity: Int, forByteCount byteCount: Int) -> Bool {
        if case .pooled = kind {
            guard let wanted = BitmapPool.sizeClass(capacity), let own = BitmapPool.sizeClass(byteCount) else { return false }
            return wanted == own
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

/// mmap/munmap of anonymous private memory, in whole pages.
enum PageMapping {
    static let pageSize: Int = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// `bytes` rounded up to whole pages (at least one), or nil when that is past `Int.max`:
    /// overflow-checked, since a caller may ask for any size. O(1).
    static func roundUp(_ bytes: Int) -> Int? {
        let page = pageSize
        guard bytes > page else { return page }
        let end = bytes.addingReportingOverflow(page - 1)
        return end.overflow ? nil : end.partialValue / page * page
    }

    static func map(_ bytes: Int) throws(ImagingError) -> UnsafeMutableRawPointer {
        let pointer = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let pointer, pointer != MAP_FAILED else { throw .outOfMemory(bytes: bytes) }
        return pointer
    }

    static func unmap(_ pointer: UnsafeMutableRawPointer, _ bytes: Int) {
        munmap(pointer, bytes)
    }
}
