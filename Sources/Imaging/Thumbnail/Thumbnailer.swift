#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Makes small bitmaps from large PNGs with bounded memory: rows are decoded in small
/// batches and area-averaged as they arrive, so the peak is the output plus a few rows and,
/// for a file inflated whole (`DecodeOptions.thumbnailInflateBytes`, 32 MiB by default), its
/// filtered image; never the full RGBA image but for interlaced files.
///
/// - `fast`: area averaging (a box over the exact source area, fractional at the edges)
///   straight to the output size.
/// - `good` (default): area averaging to about twice the output size when the reduction is
///   3x or more, then Lanczos-3 to the exact size.
///
/// Color is premultiplied by alpha while resampling, so transparent pixels lend no color to
/// their neighbours. Resampling happens on the stored (gamma-encoded) values, as
/// vipsthumbnail does by default; `linearLight` resamples in linear light instead. Interlaced
/// (Adam7) files cannot stream: they are decoded whole, and the stats say so. The image
/// cache's `thumbnail(maxPixelSize:)` representation is made by `init(maxPixelSize:)`.
///
/// Cost: the decode's inflate and unfilter (libdeflate and the fast path's SIMD kernels for a
/// file inflated whole; ISA-L (or zlib) two rows at a time and the same kernels, on two threads
/// with `DecodeOptions.thumbnailHelperThread`, for a larger file the fast
/// path takes; libpng streaming otherwise, about twice the CPU) plus, per source
/// pixel, one conversion and one multiply-add; memory is the output bitmap plus a few source
/// and intermediate rows (`ThumbnailStats.peakWorkingBytes`), the filtered image for a file
/// inflated whole, or the full RGBA image for interlaced files.
public struct Thumbnailer: Sendable, Hashable {
    /// How the image is fitted to the box.
    public enum Mode: String, Sendable, CaseIterable {
        /// The largest size inside the box with the image's aspect ratio; never enlarges.
        case fit
        /// Covers the box, then the centre is cropped to it; never enlarges.
        case fill
        /// Exactly the box, stretched (enlarges when the box is bigger).
        case exact
    }

    /// How output samples are computed.
    public enum Quality: String, Sendable, CaseIterable {
        /// Area averaging only: the quickest, slightly soft.
        case fast
        /// Area averaging, then Lanczos-3 to the exact size: sharper, a little more work.
        case good
    }

    /// Box width in pixels (at least 1).
    public var width: Int
    /// Box height in pixels (at least 1).
    public var height: Int
    /// How the image is fitted to the box. Default `.fit`.
    public var mode: Mode
    /// Resampling quality. Default `.good`.
    public var quality: Quality
    /// Resample in linear light (sRGB decoded through a table, encoded back through a
    /// 4096-step table). Default false: stored values, like vipsthumbnail.
    public var linearLight: Bool
    /// Caps checked against the header (and against the output size) before any work.
    public var limits: DecodeLimits
    /// How strictly the data is checked while decoding (default: chunk CRCs, not the Adler-32).
    public var options: DecodeOptions

    /// A thumbnailer for a `width`×`height` box. Validated when used: a side below 1 makes
    /// `thumbnail` throw `.invalidArgument`.
    public init(width: Int, height: Int, mode: Mode = .fit, quality: Quality = .good, linearLight: Bool = false,
                limits: DecodeLimits = .default, options: DecodeOptions = .default) {
        self.width = width
        self.height = height
        self.mode = mode
        self.quality = quality
        self.linearLight = linearLight
        self.limits = limits
        self.options = options
    }

    /// A thumbnailer that fits images inside `maxPixelSize`×`maxPixelSize` (never enlarging),
    /// like ImageIO's maximum pixel size option.
    public init(maxPixelSize: Int, quality: Quality = .good, linearLight: Bool = false, limits: DecodeLimits = .default,
                options: DecodeOptions = .default) {
        self.init(width: maxPixelSize, height: maxPixelSize, mode: .fit, quality: quality, linearLight: linearLight, limits: limits, options: options)
    }

    /// The thumbnail of the PNG in `data`, its pixels from `allocator`. Throws what
    /// `PNGDecoder` throws, `.limitExceeded` before any work, `.invalidArgument` for a bad box.
    /// A whole-image inflate's buffer is mapped for this call and unmapped when it returns.
    public func thumbnail(_ data: Data, allocator: BitmapAllocator = .system) throws(ImagingError) -> Thumbnail {
        try thumbnail(data, allocator: allocator, reusing: ThumbnailScratch(keeps: false))
    }

    /// As ``thumbnail(_:allocator:)``, the whole-image inflate's buffer taken from `scratch`
    /// and kept there for the next call: no fresh pages to fault in when it is large enough.
    public func thumbnail(_ data: Data, allocator: BitmapAllocator = .system, reusing scratch: ThumbnailScratch) throws(ImagingError) -> Thumbnail {
        try data.withBytes { (raw: UnsafeRawBufferPointer) throws(ImagingError) -> Thumbnail in
            let whole = inflatesWhole ? WholeImageRows.prepare(bytes: raw, limits: limits, allowance: options.thumbnailInflateBytes, scratch: scratch) : nil
            let stream = inflatesWhole && whole == nil ? StreamedRows.prepare(bytes: raw, limits: limits, options: options) : nil
            return try thumbnail(PNGReader(.memory(raw), limits: limits, options: options), allocator: allocator, whole: whole, stream: stream)
        }
    }

    /// The thumbnail of the PNG file at `path`. A file the fast path takes whose filtered image
    /// fits `DecodeOptions.thumbnailInflateBytes` (32 MiB by default) is read whole and inflated
    /// into one buffer, mapped for this call; any other streams from disk through a small
    /// buffer, so neither its compressed bytes nor its decoded image is ever held whole.
    public func thumbnail(contentsOf path: String, allocator: BitmapAllocator = .system) throws(ImagingError) -> Thumbnail {
        try thumbnail(contentsOf: path, allocator: allocator, reusing: ThumbnailScratch(keeps: false))
    }

    /// As ``thumbnail(contentsOf:allocator:)``, the whole-image inflate's buffer taken from
    /// `scratch` and kept there for the next call (a batch keeps one scratch per thread).
    public func thumbnail(contentsOf path: String, allocator: BitmapAllocator = .system, reusing scratch: ThumbnailScratch) throws(ImagingError) -> Thumbnail {
        guard inflatesWhole else {
            return try thumbnail(PNGReader(.file(path), limits: limits, options: options), allocator: allocator)
        }
        var size = 0
        let descriptor = try PNGReader.openChecked(path, limits: limits, size: &size)
        let whole = try WholeImageRows.prepare(descriptor: descriptor, size: size, limits: limits, allowance: options.thumbnailInflateBytes,
                                               scratch: scratch)
        let stream = whole == nil ? try StreamedRows.prepare(descriptor: descriptor, limits: limits, options: options) : nil
        return try thumbnail(PNGReader(.descriptor(descriptor.take(), path: path), limits: limits, options: options), allocator: allocator,
                             whole: whole, stream: stream)
    }

    /// True when the options allow a whole-image inflate.
    private var inflatesWhole: Bool { options.thumbnailInflateBytes > 0 && options.path == .automatic }

    /// The thumbnail from an open reader; `compactRows: false` makes palette, gray and RGB
    /// images go through libpng's RGBA8 expansion too, and `skipsZeroSpans: false` filters the
    /// zero (fully transparent) parts of rows as well (the tests compare each pair of paths).
    func thumbnail(_ reader: PNGReader, allocator: BitmapAllocator, compactRows: Bool = true,
                   skipsZeroSpans: Bool = true, whole: WholeImageRows? = nil, stream: StreamedRows? = nil) throws(ImagingError) -> Thumbnail {
        guard width >= 1, height >= 1 else {
            throw .invalidArgument("thumbnail box must be at least 1x1, got \(width)x\(height)")
        }
        try limits.check(width: reader.width, height: reader.height)
        let plan = geometry(sourceWidth: reader.width, sourceHeight: reader.height)
        try limits.check(width: plan.x.output, height: plan.y.output)
        var pipeline = ThumbnailPipeline(reader: reader, plan: plan, linearLight: linearLight, quality: quality)
        pipeline.compactRows = compactRows
        pipeline.skipsZeroSpans = skipsZeroSpans
        pipeline.whole = whole
        pipeline.stream = stream
        if let thumbnail = try pipeline.run(allocator: allocator) { return thumbnail }
        // The streamed rows were declined half-way: libpng reads the file from its start.
        pipeline.stream = nil
        guard let thumbnail = try pipeline.run(allocator: allocator) else { preconditionFailure("libpng's rows are never declined") }
        return thumbnail
    }
}
