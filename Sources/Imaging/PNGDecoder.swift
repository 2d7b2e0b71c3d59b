import CPNG
import SystemIO

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decodes PNG to RGBA8 bitmaps: a whole-image fast path on libdeflate, with libpng behind it.
///
/// Every color type, bit depth 1–16, palette, tRNS and Adam7 decode to RGBA8 straight alpha.
/// Pixels are the samples as stored — no gamma or color-space conversion — and 16-bit samples
/// scale to 8 bits with rounding. Limits are checked from the header before any pixel memory
/// is taken. Corrupt or hostile input throws `ImagingError`; it never crashes and never leaks.
///
/// Every chunk's CRC-32 is checked; the image data's Adler-32 is skipped unless `options`
/// says `verifyAdler32` (see `DecodeOptions`).
///
/// Two decoders, one answer. An 8-bit (or 1, 2 or 4-bit palette), non-interlaced file whose
/// chunks the fast path checks and takes is inflated whole by libdeflate into the bitmap
/// itself, then unfiltered and expanded in place; every other file, and any file the fast path declines part-way, is
/// decoded by libpng, whose pixels or error then stand. The fast path gives libpng's bytes
/// (the tests compare both on every corpus and on fuzzed files); `DecodeOptions.path` can force
/// libpng. docs/libraries.md lists which files take which path. One known leniency: a zlib
/// stream whose fault zlib rejects but libdeflate takes (literal/length symbols 286–287,
/// distance symbols 30–31, a code-length repeat past the last code, a one-codeword code) in a
/// deflate block after the first, with CRCs and the Adler-32 matching, decodes on the fast path
/// and throws `corrupt` on libpng; in the first block zlib checks it first.
///
/// Cost: libpng's path is one pass over the data with memory for the bitmap
/// (`width × height × 4`) plus libpng's state and a row buffer, the file streamed through a
/// small stdio buffer. The fast path's inflate is 3–10× zlib's on flat images; it takes the
/// bitmap plus one byte a row, and a copy of the compressed bytes while it inflates when they
/// are split over several IDAT chunks. A file read from a path is read whole into the bitmap's
/// own tail (at most 256 KiB past it), where the inflate overwrites it, and those pages go back
/// to the kernel when the decode ends. Before the fast path's inflate zlib reads the first deflate
/// block's header (a fixed cost), or inflates the whole stream once when that block has fixed
/// Huffman codes (small or flat images).
public struct PNGDecoder: Sendable, Hashable {
    /// The caps checked before pixel memory is taken.
    public var limits: DecodeLimits
    /// How strictly the data is checked (default: chunk CRCs, not the Adler-32) and which
    /// decoder decodes it (default: the fast path where it can).
    public var options: DecodeOptions

    /// A decoder with `limits` (the defaults stop decompression bombs) and `options`.
    public init(limits: DecodeLimits = .default, options: DecodeOptions = .default) {
        self.limits = limits
        self.options = options
    }

    /// Decodes the PNG in `data` into a bitmap from `allocator`.
    public func decode(_ data: Data, allocator: BitmapAllocator = .system) throws(ImagingError) -> Bitmap {
        try data.withBytes { (raw: UnsafeRawBufferPointer) throws(ImagingError) -> Bitmap in
            try decode(bytes: raw, allocator: allocator)
        }
    }

    /// Decodes the PNG in `bytes` (valid for the duration of the call).
    public func decode(bytes: UnsafeRawBufferPointer, allocator: BitmapAllocator = .system) throws(ImagingError) -> Bitmap {
        try decodeReportingPath(bytes: bytes, allocator: allocator).bitmap
    }

    /// Decodes the PNG file at `path`: read whole into the bitmap's tail when the fast path can
    /// take it, streamed from disk by libpng otherwise.
    public func decode(contentsOf path: String, allocator: BitmapAllocator = .system) throws(ImagingError) -> Bitmap {
        try decodeReportingPath(contentsOf: path, allocator: allocator).bitmap
    }

    /// `decode(bytes:)`, and why the fast path did not decode it (nil when it did).
    func decodeReportingPath(bytes: UnsafeRawBufferPointer, allocator: BitmapAllocator) throws(ImagingError) -> (bitmap: Bitmap, declined: String?) {
        guard options.path == .automatic else {
            return (try decode(PNGReader(.memory(bytes), limits: limits, options: options), allocator: allocator), "forced libpng")
        }
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            return (try decode(PNGReader(.memory(bytes), limits: limits, options: options), allocator: allocator), "no bytes")
        }
        var plan = rtn_png_fast_plan()
        var fastLimits = limits.fastPathLimits
        var declined: String?
        if rtn_png_fast_scan(base, bytes.count, &fastLimits, &plan) != RTN_PNG_OK.rawValue {
            declined = Self.reason(plan)
        } else if let (bitmap, capacity) = try fastBitmap(plan, staged: 0, allocator: allocator, declined: &declined) {
            if rtn_png_fast_decode(&plan, base, bitmap.mutableBase.assumingMemoryBound(to: UInt8.self), capacity) == RTN_PNG_OK.rawValue {
                return (bitmap, nil)
            }
            // Declined part-way: libpng decodes the file into the same bitmap.
            let reader = try PNGReader(.memory(bytes), limits: limits, options: options)
            try libpngDecode(reader, into: bitmap)
            return (bitmap, Self.reason(plan))
        }
        return (try decode(PNGReader(.memory(bytes), limits: limits, options: options), allocator: allocator), declined)
    }

    /// `decode(contentsOf:)`, and why the fast path did not decode it (nil when it did).
    func decodeReportingPath(contentsOf path: String, allocator: BitmapAllocator) throws(ImagingError) -> (bitmap: Bitmap, declined: String?) {
        guard options.path == .automatic else {
            return (try decode(PNGReader(.file(path), limits: limits, options: options), allocator: allocator), "forced libpng")
        }
        // The file is opened and checked once (a regular file within maxFileBytes); libpng, if
        // it decodes the file after all, reads the same descriptor.
        var size = 0
        let descriptor = try PNGReader.openChecked(path, limits: limits, size: &size)
        var plan = rtn_png_fast_plan()
        var declined: String?
        if try !FastPathInput.header(descriptor, plan: &plan) {
            declined = Self.reason(plan)
        } else if let (bitmap, capacity) = try fastBitmap(plan, staged: size, allocator: allocator, declined: &declined) {
            let buffer = bitmap.mutableBase.assumingMemoryBound(to: UInt8.self)
            let tail = buffer + (capacity - size)
            let filled = try FastPathInput.read(descriptor, into: tail, count: size)
            var fastLimits = limits.fastPathLimits
            if rtn_png_fast_scan(tail, filled, &fastLimits, &plan) == RTN_PNG_OK.rawValue,
               rtn_png_fast_decode(&plan, tail, buffer, capacity) == RTN_PNG_OK.rawValue {
                return (bitmap, nil)
            }
            let reader = try PNGReader(.descriptor(descriptor.take(), path: path), limits: limits, options: options)
            try libpngDecode(reader, into: bitmap)
            return (bitmap, Self.reason(plan))
        }
        let reader = try PNGReader(.descriptor(descriptor.take(), path: path), limits: limits, options: options)
        return (try decode(reader, allocator: allocator), declined)
    }

    /// Why the fast path alone would not decode `bytes` (nil when it would), without libpng
    /// behind it: for tests and for saying which files take which path. Costs a fast decode.
    func fastPathVerdict(bytes: UnsafeRawBufferPointer) throws(ImagingError) -> String? {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return "no bytes" }
        var plan = rtn_png_fast_plan()
        var fastLimits = limits.fastPathLimits
        var declined: String?
        guard rtn_png_fast_scan(base, bytes.count, &fastLimits, &plan) == RTN_PNG_OK.rawValue else { return Self.reason(plan) }
        guard let (bitmap, capacity) = try fastBitmap(plan, staged: 0, allocator: .system, declined: &declined) else {
            return declined
        }
        if rtn_png_fast_decode(&plan, base, bitmap.mutableBase.assumingMemoryBound(to: UInt8.self), capacity) == RTN_PNG_OK.rawValue {
            return nil
        }
        return Self.reason(plan)
    }

    /// The bitmap the fast path decodes `plan`'s image into, with room for `staged` bytes of
    /// compressed input at its end, and the bytes of it the decode may use (the allocator may
    /// have reserved more); nil (with `declined` set) when the image is over the limits
    /// (libpng then reports it, after the chunks it reads first), too large to stage, or the
    /// allocator's pool would need another size class.
    private func fastBitmap(_ plan: rtn_png_fast_plan, staged: Int, allocator: BitmapAllocator,
                            declined: inout String?) throws(ImagingError) -> (bitmap: Bitmap, capacity: Int)? {
        var plan = plan
        let width = Int(plan.width), height = Int(plan.height)
        do {
            try limits.check(width: width, height: height)
        } catch {
            declined = "over the decode limits"
            return nil
        }
        let capacity = rtn_png_fast_capacity(&plan, staged)
        guard capacity > 0 else {
            declined = "more compressed bytes than the image's size"
            return nil
        }
        guard allocator.allowsCapacity(capacity, forByteCount: width * height * 4) else {
            declined = "the pool's size class"
            return nil
        }
        return (try Bitmap(uninitializedWidth: width, height: height, allocator: allocator, capacity: capacity), capacity)
    }

    private static func reason(_ plan: rtn_png_fast_plan) -> String { FastPathInput.reason(plan) }

    private func decode(_ reader: PNGReader, allocator: BitmapAllocator) throws(ImagingError) -> Bitmap {
        try limits.check(width: reader.width, height: reader.height)
        try reader.start()
        let bitmap = try Bitmap(uninitializedWidth: reader.width, height: reader.height, allocator: allocator)
        try reader.readImage(into: bitmap.mutableBase, bytesPerRow: bitmap.bytesPerRow)
        return bitmap
    }

    /// libpng's decode into a bitmap the fast path allocated for the same header.
    private func libpngDecode(_ reader: PNGReader, into bitmap: Bitmap) throws(ImagingError) {
        try limits.check(width: reader.width, height: reader.height)
        try reader.start()
        try reader.readImage(into: bitmap.mutableBase, bytesPerRow: bitmap.bytesPerRow)
    }
}
