import CPNG
import SystemIO

/// A thumbnail's source too large for the whole-image inflate (its filtered image over
/// `DecodeOptions.thumbnailInflateBytes`), streamed by the fast path instead: ISA-L (zlib for a
/// stream whose first block is fixed-Huffman) inflates two rows at a time from the IDAT chunks
/// as they are read, and the fast path's SIMD kernels unfilter and expand them, so memory is a
/// few rows, never the image.
///
/// Chunks are checked as they are met, so the file may turn out not to be the fast path's
/// half-way (a CRC, a zlib error, data that ends early or runs on): `read` and `finish` then
/// say so, the rows handed out stand for nothing, and the thumbnailer starts again through
/// libpng, whose answer stands, as it does for every file the fast path declines. Owns the
/// rows' state, not the file's descriptor (the reader's, alive for the run). Not Sendable:
/// one run, one thread (with `DecodeOptions.thumbnailHelperThread`, CPNG's helper thread
/// inflates behind it, started and joined inside CPNG).
final class StreamedRows {
    private let data: UnsafePointer<UInt8>?
    private let size: Int
    private let descriptor: Int32
    private let limits: rtn_png_fast_limits
    private let verifyAdler32: Bool
    private let helperThread: Bool
    private let rowBytes: Int
    private var rows: OpaquePointer?
    /// The helper thread's ring of filtered rows, in bytes (0: no helper).
    private var ringBytes = 0

    /// The ring a helper thread inflates into: about 1 MiB of filtered rows, enough that
    /// neither thread waits for the other on a photo's uneven rows.
    static let ringBytesWanted = 1 << 20

    private init(data: UnsafePointer<UInt8>?, size: Int, descriptor: Int32, limits: rtn_png_fast_limits, options: DecodeOptions, rowBytes: Int) {
        self.data = data
        self.size = size
        self.descriptor = descriptor
        self.limits = limits
        self.verifyAdler32 = options.verifyAdler32
        self.helperThread = options.thumbnailHelperThread
        self.rowBytes = rowBytes
    }

    deinit { rtn_png_stream_rows_close(rows) }

    /// Bytes the streaming state holds: five rows (two filtered, the row above, two unfiltered),
    /// the inflater's state and window (at most 88 KiB), for a file the 64 KiB read buffer
    /// and, once `open` started a helper thread, its ring of filtered rows.
    var workingBytes: Int { 5 * (rowBytes + 16) + 88 * 1024 + (descriptor >= 0 ? 64 * 1024 : 0) + ringBytes }

    /// True when ISA-L inflates the rows (false: zlib), once `open` said yes.
    var inflatesWithISAL: Bool { rows.map { rtn_png_stream_rows_inflater($0) == 1 } ?? false }

    /// True once `open` started a helper thread that inflates the rows.
    var inflatesOnHelperThread: Bool { ringBytes > 0 }

    /// True when the header `plan`'s filtered image is over `allowance` (so that the
    /// whole-image inflate was not tried) and within `limits`.
    private static func wanted(_ plan: rtn_png_fast_plan, limits: DecodeLimits, allowance: Int) -> Bool {
        plan.filtered_bytes > allowance && (try? limits.check(width: Int(plan.width), height: Int(plan.height))) != nil
    }

    /// For the PNG in `bytes` (alive for the run): nil unless its header is the fast path's
    /// and its filtered image is over `options.thumbnailInflateBytes`; the Adler-32 checked when
    /// `options` ask libpng to. Reads the 33-byte header.
    static func prepare(bytes: UnsafeRawBufferPointer, limits: DecodeLimits, options: DecodeOptions) -> StreamedRows? {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        var plan = rtn_png_fast_plan()
        guard rtn_png_fast_header(base, bytes.count, &plan) == RTN_PNG_OK.rawValue, wanted(plan, limits: limits, allowance: options.thumbnailInflateBytes) else { return nil }
        return StreamedRows(data: base, size: bytes.count, descriptor: -1, limits: limits.fastPathLimits, options: options,
                            rowBytes: plan.row_bytes)
    }

    /// For the file open as `descriptor` (kept open by the run's reader): as above. One
    /// `pread` of the header; the descriptor's offset stays at 0 for libpng.
    static func prepare(descriptor: borrowing FileDescriptor, limits: DecodeLimits, options: DecodeOptions) throws(ImagingError) -> StreamedRows? {
        var plan = rtn_png_fast_plan()
        guard try FastPathInput.header(descriptor, plan: &plan), wanted(plan, limits: limits, allowance: options.thumbnailInflateBytes) else { return nil }
        return StreamedRows(data: nil, size: 0, descriptor: descriptor.rawValue, limits: limits.fastPathLimits, options: options,
                            rowBytes: plan.row_bytes)
    }

    /// Reads the chunks before the image data and readies the inflater, rows to come `pixelBytes` a
    /// pixel as `WholeImageRows.open` hands them: false when the fast path declines. The
    /// chunks' CRCs up to the first IDAT. With `DecodeOptions.thumbnailHelperThread`, starts
    /// the thread that inflates the rows into a ring of about `ringBytes` (where it cannot, the
    /// rows come from this thread).
    func open(pixelBytes: Int, rgba: UnsafeMutablePointer<UInt8>?, ringBytes: Int = StreamedRows.ringBytesWanted) -> Bool {
        var limits = limits
        var reason: UnsafePointer<CChar>?
        rows = rtn_png_stream_rows_open(data, size, descriptor, &limits, verifyAdler32 ? 1 : 0, Int32(pixelBytes), rgba, &reason)
        if let rows, helperThread { self.ringBytes = rtn_png_stream_rows_pipeline(rows, ringBytes) }
        return rows != nil
    }

    /// The next `count` rows into `destination`, `bytesPerRow` apart: false when the fast
    /// path declines half-way (start again through libpng). An inflate and an unfilter a row.
    func read(into destination: UnsafeMutablePointer<UInt8>, bytesPerRow: Int, count: Int) -> Bool {
        guard let rows else { return false }
        return rtn_png_stream_rows_read(rows, destination, bytesPerRow, UInt32(count)) == RTN_PNG_OK.rawValue
    }

    /// After the last row: true when the data ends where the image does and the chunks after
    /// it are the fast path's (false: start again through libpng). Reads the rest of the file.
    func finish() -> Bool {
        guard let rows else { return false }
        return rtn_png_stream_rows_finish(rows) == RTN_PNG_OK.rawValue
    }
}
