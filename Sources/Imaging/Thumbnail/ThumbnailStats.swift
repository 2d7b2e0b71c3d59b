import FoundationEssentials

/// What one thumbnail cost.
public struct ThumbnailStats: Sendable, Hashable {
    /// Width of the source image.
    public var sourceWidth: Int
    /// Height of the source image.
    public var sourceHeight: Int
    /// Width of the grid between area averaging and the filter stage (the output width
    /// when there is no filter stage on that axis; the source width when area averaging
    /// does not reduce it).
    public var intermediateWidth: Int
    /// Height of that grid.
    public var intermediateHeight: Int
    /// True when rows were decoded in batches as they were needed; false for interlaced
    /// files, which are decoded whole first, and for a source inflated whole by the fast path
    /// (`DecodeOptions.thumbnailInflateBytes`).
    public var streamed: Bool
    /// Bytes of the buffers the thumbnailer held at its peak: the output bitmap, source row
    /// batches (or the whole image when not streamed), accumulator rows and tables. libpng's
    /// own state (zlib's 32 KiB window and two rows) is not included.
    public var peakWorkingBytes: Int
    /// True when the rows streamed from the fast path (ISA-L or zlib and the SIMD unfilter) rather than
    /// from libpng: a source over the whole-inflate allowance (the tests count them).
    var streamedByFastPath = false
    /// True when those streamed rows were inflated on a helper thread
    /// (`DecodeOptions.thumbnailHelperThread`) while this one unfiltered and resampled them.
    var inflatedOnHelperThread = false
    /// True when those streamed rows were inflated by ISA-L (false: zlib).
    var inflatedByISAL = false

    /// Stats from their parts.
    public init(sourceWidth: Int, sourceHeight: Int, intermediateWidth: Int, intermediateHeight: Int, streamed: Bool, peakWorkingBytes: Int) {
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.intermediateWidth = intermediateWidth
        self.intermediateHeight = intermediateHeight
        self.streamed = streamed
        self.peakWorkingBytes = peakWorkingBytes
    }
}
