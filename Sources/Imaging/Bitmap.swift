
/// A decoded image: RGBA8, straight alpha, rows packed without padding.
///
/// Storage is exactly `byteCount = width × height × 4` bytes as far as accounting goes
/// (`reservedBytes` says what the allocator really set aside, page- or class-rounded).
/// Pixels are written only while the bitmap is being created (by a decoder, a thumbnailer or
/// the `initializingWith` closure) and never after, so a published bitmap is immutable and
/// safe to share between threads. Memory is released deterministically when the last
/// reference goes away, through the allocator that provided it.
public final class Bitmap: @unchecked Sendable {
    // @unchecked: the pixel pointer is written only before `init` returns (or by the
    // module-internal decoders before the bitmap is handed out) and is read-only afterwards.

    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Bytes from one row to the next: `width × 4`.
    public let bytesPerRow: Int
    /// The allocator that provided the memory and will take it back.
    public let allocator: BitmapAllocator
    let memory: PixelMemory

    /// Exact pixel bytes: `bytesPerRow × height`. This is the figure caches account with.
    public var byteCount: Int { bytesPerRow * height }
    /// Bytes the allocator reserved (page-rounded for `pageMapped`, size-class for `pooled`).
    public var reservedBytes: Int { memory.reservedBytes }

    /// Allocates an uninitialized bitmap for a decoder that writes every byte. `capacity`, when
    /// larger than `byteCount`, asks for that many bytes instead (the fast decode path inflates
    /// one byte a row more than the pixels, and stages compressed bytes past them); only
    /// `byteCount` of them are the bitmap's, and `reservedBytes` says what was taken.
    init(uninitializedWidth width: Int, height: Int, allocator: BitmapAllocator, capacity: Int = 0) throws(ImagingError) {
        guard width > 0, height > 0 else {
            throw .invalidArgument("bitmap size must be positive, got \(width)x\(height)")
        }
        let rowBytes = width.multipliedReportingOverflow(by: 4)
        let total = rowBytes.partialValue.multipliedReportingOverflow(by: height)
        guard !rowBytes.overflow, !total.overflow else { throw .outOfMemory(bytes: Int.max) }
        self.width = width
        self.height = height
        self.bytesPerRow = rowBytes.partialValue
        self.allocator = allocator
        self.memory = try allocator.allocate(byteCount: max(total.partialValue, capacity))
    }

    /// Creates a bitmap filled with `fill` (transparent black by default). Every byte is
    /// written, so the memory is resident when this returns. Costs O(width × height).
    public convenience init(width: Int, height: Int, allocator: BitmapAllocator = .system, fill: RGBA = RGBA(0, 0, 0, 0)) throws(ImagingError) {
        try self.init(uninitializedWidth: width, height: height, allocator: allocator)
        let pixels = memory.base.bindMemory(to: UInt32.self, capacity: width * height)
        let value = UInt32(fill.r) | UInt32(fill.g) << 8 | UInt32(fill.b) << 16 | UInt32(fill.a) << 24
        pixels.update(repeating: UInt32(littleEndian: value), count: width * height)
    }

    /// Creates a bitmap whose pixels `body` writes through the buffer it is given
    /// (`bytesPerRow × height` bytes). The memory is zero-filled first, so it is resident
    /// whatever `body` writes. Costs O(width × height) plus `body`.
    public convenience init(width: Int, height: Int, allocator: BitmapAllocator = .system,
                            initializingWith body: (UnsafeMutableRawBufferPointer, _ bytesPerRow: Int) throws -> Void) throws {
        try self.init(width: width, height: height, allocator: allocator)
        try body(UnsafeMutableRawBufferPointer(start: memory.base, count: byteCount), bytesPerRow)
    }

    deinit {
        allocator.release(memory)
    }

    /// The pixel at column `x`, row `y` (from the top left). Traps when out of bounds. O(1).
    public func pixel(x: Int, y: Int) -> RGBA {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(width)x\(height)")
        let p = memory.base.assumingMemoryBound(to: UInt8.self) + y * bytesPerRow + x * 4
        return RGBA(p[0], p[1], p[2], p[3])
    }

    /// Calls `body` with the pixel bytes (read-only), row after row. O(1) plus `body`.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: memory.base, count: byteCount))
    }

    /// Writable pixels, for this module's decoders before the bitmap is published.
    var mutableBase: UnsafeMutableRawPointer { memory.base }

    /// True when both bitmaps have the same size and the same pixel bytes. O(byteCount).
    public func hasSamePixels(as other: Bitmap) -> Bool {
        guard width == other.width, height == other.height else { return false }
        return memcmp(memory.base, other.memory.base, byteCount) == 0
    }
}

import Glibc
