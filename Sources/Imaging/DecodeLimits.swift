/// Caps checked against a PNG header before any pixel memory is taken.
///
/// The defaults stop a decompression bomb (a small file whose header claims a huge image)
/// and still decode any real photograph: 32768 px per side, 268 megapixels (a 16384×16384
/// panorama), 1 GiB of RGBA8 output. Checking costs a few comparisons.
public struct DecodeLimits: Sendable, Hashable {
    /// Which cap a header exceeded.
    public enum Limit: String, Sendable, Hashable, CaseIterable {
        /// `maxWidth`.
        case width
        /// `maxHeight`.
        case height
        /// `maxPixels`.
        case pixels
        /// `maxDecodedBytes`.
        case decodedBytes

        /// The word used in error messages ("width", "pixel count", "decoded size").
        public var noun: String {
            switch self {
            case .width: return "width"
            case .height: return "height"
            case .pixels: return "pixel count"
            case .decodedBytes: return "decoded size in bytes"
            }
        }
    }

    /// Largest accepted width in pixels.
    public var maxWidth: Int
    /// Largest accepted height in pixels.
    public var maxHeight: Int
    /// Largest accepted width × height.
    public var maxPixels: Int
    /// Largest accepted decoded RGBA8 size in bytes (width × height × 4).
    public var maxDecodedBytes: Int
    /// Largest number of ancillary chunks libpng keeps (png_set_chunk_cache_max).
    public var maxAncillaryChunks: Int
    /// Largest decompressed size of one ancillary chunk libpng accepts (png_set_chunk_malloc_max).
    public var maxChunkBytes: Int
    /// Largest PNG file read, in bytes; a longer file (or a device that never ends) is refused
    /// with `.io(…tooLarge…)` before its bytes are taken. Default 1 GiB.
    public var maxFileBytes: Int

    /// Creates limits; every argument has the documented default.
    public init(
        maxWidth: Int = 32_768, maxHeight: Int = 32_768, maxPixels: Int = 268_435_456,
        maxDecodedBytes: Int = 1 << 30, maxAncillaryChunks: Int = 1_000,
        maxChunkBytes: Int = 8_000_000, maxFileBytes: Int = 1 << 30
    ) {
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        self.maxPixels = maxPixels
        self.maxDecodedBytes = maxDecodedBytes
        self.maxAncillaryChunks = maxAncillaryChunks
        self.maxChunkBytes = maxChunkBytes
        self.maxFileBytes = maxFileBytes
    }

    /// The default limits (see the type's documentation).
    public static let `default` = DecodeLimits()

    /// Throws `.limitExceeded` for the first cap that `width`×`height` exceeds. O(1).
    public func check(width: Int, height: Int) throws(ImagingError) {
        if width > maxWidth { throw .limitExceeded(limit: .width, value: width, cap: maxWidth) }
        if height > maxHeight { throw .limitExceeded(limit: .height, value: height, cap: maxHeight) }
        let pixels = width.multipliedReportingOverflow(by: height)
        if pixels.overflow || pixels.partialValue > maxPixels {
            throw .limitExceeded(limit: .pixels, value: pixels.overflow ? Int.max : pixels.partialValue, cap: maxPixels)
        }
        let bytes = pixels.partialValue.multipliedReportingOverflow(by: 4)
        if bytes.overflow || bytes.partialValue > maxDecodedBytes {
            throw .limitExceeded(limit: .decodedBytes, value: bytes.overflow ? Int.max : bytes.partialValue, cap: maxDecodedBytes)
        }
    }
}
