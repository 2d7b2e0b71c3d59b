import CPNG
import SystemIO

/// A thumbnail's source inflated whole by the fast path (`DecodeOptions.thumbnailInflateBytes`):
/// the buffer it is inflated into, and the rows handed out from it a batch at a time.
///
/// Prepared before the run, when the fast path takes the file and its buffer fits the
/// allowance; the run counts the buffer as working memory, opens the rows in the form it wants
/// and, if the fast path declines then, streams through libpng as always. Owns the rows' state
/// and the buffer, which goes back to its `ThumbnailScratch` on deinit (unmapped there, or
/// kept for the next file). Not Sendable: one run, one thread.
final class WholeImageRows {
    private var plan: rtn_png_fast_plan
    private let data: UnsafePointer<UInt8>
    private let buffer: UnsafeMutablePointer<UInt8>
    /// The buffer's size in bytes: the filtered image plus at most 256 KiB of staged input.
    let capacity: Int
    /// The buffer's mapping: `capacity` rounded up to whole pages, or more when reused.
    private let mappedBytes: Int
    private let scratch: ThumbnailScratch
    private var rows: OpaquePointer?

    private init(plan: rtn_png_fast_plan, data: UnsafePointer<UInt8>, buffer: UnsafeMutablePointer<UInt8>, capacity: Int,
                 mappedBytes: Int, scratch: ThumbnailScratch) {
        self.plan = plan
        self.data = data
        self.buffer = buffer
        self.capacity = capacity
        self.mappedBytes = mappedBytes
        self.scratch = scratch
    }

    deinit {
        rtn_png_fast_rows_close(rows)
        scratch.giveBack(buffer, mappedBytes: mappedBytes)
    }

    /// For the PNG in `bytes` (alive for the run): nil when the fast path does not take it, it is over `limits`, or
    /// its buffer would exceed `allowance` bytes. A scan of the chunks, and the buffer from
    /// `scratch` (mapped, not yet touched, unless kept from a file before).
    static func prepare(bytes: UnsafeRawBufferPointer, limits: DecodeLimits, allowance: Int, scratch: ThumbnailScratch) -> WholeImageRows? {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        var plan = rtn_png_fast_plan()
        var fastLimits = limits.fastPathLimits
        guard rtn_png_fast_scan(base, bytes.count, &fastLimits, &plan) == RTN_PNG_OK.rawValue,
              (try? limits.check(width: Int(plan.width), height: Int(plan.height))) != nil else { return nil }
        rtn_png_fast_plan_for_rows(&plan)
        let capacity = rtn_png_fast_capacity(&plan, plan.idat_count > 1 ? plan.idat_bytes : 0)
        guard capacity > 0, capacity <= allowance, let (buffer, mappedBytes) = scratch.take(capacity) else { return nil }
        return WholeImageRows(plan: plan, data: base, buffer: buffer, capacity: capacity, mappedBytes: mappedBytes, scratch: scratch)
    }

    /// For the file open as `descriptor` (`size` bytes), read whole into the buffer's tail: nil
    /// as above, or when its chunks are not the fast path's (libpng then streams the file from
    /// the same descriptor, whose offset the reads leave at 0).
    static func prepare(descriptor: borrowing FileDescriptor, size: Int, limits: DecodeLimits, allowance: Int,
                        scratch: ThumbnailScratch) throws(ImagingError) -> WholeImageRows? {
        var plan = rtn_png_fast_plan()
        guard try FastPathInput.header(descriptor, plan: &plan),
              (try? limits.check(width: Int(plan.width), height: Int(plan.height))) != nil else { return nil }
        rtn_png_fast_plan_for_rows(&plan)
        let capacity = rtn_png_fast_capacity(&plan, size)
        guard capacity > 0, capacity <= allowance, let (buffer, mappedBytes) = scratch.take(capacity) else { return nil }
        let tail = buffer + (capacity - size)
        let filled: Int
        do {
            filled = try FastPathInput.read(descriptor, into: tail, count: size)
        } catch {
            scratch.giveBack(buffer, mappedBytes: mappedBytes)
            throw error
        }
        var fastLimits = limits.fastPathLimits
        guard rtn_png_fast_scan(tail, filled, &fastLimits, &plan) == RTN_PNG_OK.rawValue else {
            scratch.giveBack(buffer, mappedBytes: mappedBytes)
            return nil
        }
        rtn_png_fast_plan_for_rows(&plan)
        return WholeImageRows(plan: plan, data: tail, buffer: buffer, capacity: capacity, mappedBytes: mappedBytes, scratch: scratch)
    }

    /// Inflates the image and readies its rows, `pixelBytes` a pixel as the thumbnailer reads
    /// libpng's (1: palette indices or gray levels, `rgba` receiving their table; 3: RGB as
    /// stored; 4: RGBA8): false when the fast path declines. The inflate.
    func open(pixelBytes: Int, rgba: UnsafeMutablePointer<UInt8>?) -> Bool {
        rows = rtn_png_fast_rows_open(&plan, data, buffer, capacity, Int32(pixelBytes), rgba)
        return rows != nil
    }

    /// The next `count` rows into `destination`, `bytesPerRow` apart. An unfilter a row.
    func read(into destination: UnsafeMutablePointer<UInt8>, bytesPerRow: Int, count: Int) throws(ImagingError) {
        guard let rows, rtn_png_fast_rows_read(rows, destination, bytesPerRow, UInt32(count)) == RTN_PNG_OK.rawValue else {
            throw .invalidArgument("whole-image rows read out of order")
        }
    }
}
