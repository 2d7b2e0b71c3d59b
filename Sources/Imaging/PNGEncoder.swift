import CPNG
import SystemIO
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Encodes RGBA8 bitmaps as PNG, with libpng and zlib or with CPNG's own fast encoder.
///
/// Encoding then decoding gives back identical pixels in every color mode that can represent
/// the bitmap. Cost: with ``Compression/zlib`` (the default) one pass of zlib over the image at
/// `compressionLevel` and `strategy`; with ``Compression/fast`` one pass of run-length and
/// Huffman coding, several times less CPU than zlib's run-length strategy for files of about
/// the same size (docs/results.md, section encoder); plus a copy of the image in the target
/// layout for `grayscale` and `palette`. The output grows in a buffer that doubles (zlib) or
/// takes at most the image's size (fast).
public struct PNGEncoder: Sendable, Hashable {
    /// The row filter libpng applies before compression.
    public enum Filter: String, Sendable, Hashable, CaseIterable {
        /// No filter (fastest, largest for photos).
        case none
        /// Difference to the left pixel.
        case sub
        /// Difference to the pixel above.
        case up
        /// Difference to the mean of left and above.
        case average
        /// Paeth predictor.
        case paeth
        /// libpng chooses per row among all five (best for photos; the default).
        case adaptive

        var code: rtn_png_filter {
            switch self {
            case .none: return RTN_PNG_FILTER_NONE
            case .sub: return RTN_PNG_FILTER_SUB
            case .up: return RTN_PNG_FILTER_UP
            case .average: return RTN_PNG_FILTER_AVERAGE
            case .paeth: return RTN_PNG_FILTER_PAETH
            case .adaptive: return RTN_PNG_FILTER_ADAPTIVE
            }
        }
    }

    /// How zlib looks for repeats.
    public enum Strategy: String, Sendable, Hashable, CaseIterable {
        /// libpng's default search, as deep as `compressionLevel` says (the default).
        case standard
        /// Only runs of the byte just before (zlib's Z_RLE); any level but 0 compresses alike.
        /// On filtered photos about 4x less CPU than `standard` at level 6 for files about 1 %
        /// larger; smooth or synthetic images can grow by half.
        case rle
    }

    /// The PNG color type written.
    public enum ColorMode: String, Sendable, Hashable, CaseIterable {
        /// RGB when every pixel is opaque, RGBA otherwise (one scan of the alpha bytes).
        case automatic
        /// Color type 6, 8 bits.
        case rgba
        /// Color type 2, 8 bits; alpha is dropped.
        case rgb
        /// Color type 0, 8 bits, from the red channel; throws unless every pixel is gray and opaque.
        case grayscale
        /// Color type 3, 8 bits, with tRNS when needed; throws when there are over 256 colors.
        case palette
    }

    /// Which compressor writes the image data.
    public enum Compression: String, Sendable, Hashable, CaseIterable {
        /// CPNG's own encoder (no libpng, no zlib): rows filtered as `filter` says, then only
        /// runs (of the byte or the pixel before) and literals, with a Huffman table per block of
        /// about 128 KiB. About 3x less encode CPU than zlib's run-length strategy on thumbnails, for
        /// files within a few percent of its size. `compressionLevel` and `strategy` do not
        /// apply; an interlaced image is written by zlib.
        case fast
        /// libpng and zlib at `compressionLevel` and `strategy` (the default).
        case zlib
    }

    /// zlib level 0 (store) – 9 (smallest). Default 6, zlib's own default.
    public var compressionLevel: Int
    /// Row filter. Default `.adaptive`.
    public var filter: Filter
    /// Color type. Default `.automatic`.
    public var colorMode: ColorMode
    /// Writes Adam7-interlaced files when true. Default false.
    public var interlaced: Bool
    /// How zlib looks for repeats. Default `.standard`.
    public var strategy: Strategy
    /// Which compressor writes the image data. Default `.zlib`.
    public var compression: Compression

    /// An encoder; every argument has the documented default.
    public init(compressionLevel: Int = 6, filter: Filter = .adaptive, colorMode: ColorMode = .automatic, interlaced: Bool = false, strategy: Strategy = .standard) {
        self.compressionLevel = compressionLevel
        self.filter = filter
        self.colorMode = colorMode
        self.interlaced = interlaced
        self.strategy = strategy
        self.compression = .zlib
    }

    /// An encoder with the compressor `compression`; every other argument has the documented
    /// default (`compressionLevel` and `strategy` apply to `.zlib` only). O(1).
    public init(compression: Compression, compressionLevel: Int = 6, filter: Filter = .adaptive, colorMode: ColorMode = .automatic,
                interlaced: Bool = false, strategy: Strategy = .standard) {
        self.init(compressionLevel: compressionLevel, filter: filter, colorMode: colorMode, interlaced: interlaced, strategy: strategy)
        self.compression = compression
    }

    /// Encodes `bitmap` and returns the PNG bytes.
    public func encode(_ bitmap: Bitmap) throws(ImagingError) -> Data {
        guard (0...9).contains(compressionLevel) else {
            throw .invalidArgument("compression level must be 0-9, got \(compressionLevel)")
        }
        var params = rtn_png_encode_params()
        params.width = UInt32(bitmap.width)
        params.height = UInt32(bitmap.height)
        params.level = Int32(compressionLevel)
        params.filter = filter.code
        params.interlaced = interlaced ? 1 : 0
        params.run_length = strategy == .rle ? 1 : 0
        params.bit_depth = 8
        let mode = colorMode == .automatic ? (PixelScan.isOpaque(bitmap) ? .rgb : .rgba) : colorMode
        switch mode {
        case .rgba, .automatic:
            params.color_type = 6
            params.stride = bitmap.bytesPerRow
            return try run(&params, pixels: UnsafeRawPointer(bitmap.mutableBase))
        case .rgb:
            params.color_type = 2
            params.strip_filler = 1
            params.stride = bitmap.bytesPerRow
            return try run(&params, pixels: UnsafeRawPointer(bitmap.mutableBase))
        case .grayscale:
            guard let gray = PixelScan.grayPlane(bitmap) else {
                throw .invalidArgument("grayscale encoding needs opaque pixels with equal red, green and blue")
            }
            params.color_type = 0
            params.stride = bitmap.width
            return try run(&params, pixels: gray)
        case .palette:
            guard let indexed = PixelScan.palettize(bitmap) else {
                throw .invalidArgument("palette encoding needs at most 256 distinct colors")
            }
            params.color_type = 3
            params.stride = bitmap.width
            let palette = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: indexed.palette.count)
            let alpha = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: indexed.alpha.count)
            defer {
                palette.deallocate()
                alpha.deallocate()
            }
            _ = palette.initialize(from: indexed.palette)
            _ = alpha.initialize(from: indexed.alpha)
            params.palette = UnsafePointer(palette.baseAddress)
            params.palette_count = Int32(indexed.palette.count / 3)
            if indexed.alpha.contains(where: { $0 != 255 }) {
                params.trns_alpha = UnsafePointer(alpha.baseAddress)
                params.trns_count = Int32(indexed.alpha.count)
            }
            return try run(&params, pixels: indexed.indices)
        }
    }

    /// Encodes `bitmap` and writes it to `path` with `FileIO.replace`: a temporary file in the
    /// same folder, then `rename`, so an interrupted write never leaves a half-written file (a
    /// FIFO or device is written in place). Returns the number of bytes written.
    @discardableResult
    public func write(_ bitmap: Bitmap, to path: String) throws(ImagingError) -> Int {
        let data = try encode(bitmap)
        do { try FileIO.replace(path, with: data) } catch { throw .io(error) }
        return data.count
    }

    private func run(_ params: inout rtn_png_encode_params, pixels: [UInt8]) throws(ImagingError) -> Data {
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: pixels.count)
        defer { copy.deallocate() }
        _ = copy.initialize(from: pixels)
        return try run(&params, pixels: UnsafeRawPointer(copy.baseAddress!))
    }

    private func run(_ params: inout rtn_png_encode_params, pixels: UnsafeRawPointer) throws(ImagingError) -> Data {
        params.pixels = pixels.assumingMemoryBound(to: UInt8.self)
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var error = rtn_png_error()
        // The fast encoder writes 8-bit rows that are not interlaced, every PNGEncoder row.
        let status = compression == .fast && !interlaced
            ? rtn_png_encode_fast(&params, &output, &size, &error)
            : rtn_png_encode(&params, &output, &size, &error)
        guard status == RTN_PNG_OK, let output else {
            throw PNGReader.translate(error, input: .memory(UnsafeRawBufferPointer(start: nil, count: 0)))
        }
        defer { rtn_png_free(output) }
        return Data(bytes: output, count: size)
    }
}

/// Scans over bitmap pixels used by the encoder.
enum PixelScan {
    /// True when every alpha byte is 255. O(pixels), stops at the first translucent pixel.
    static func isOpaque(_ bitmap: Bitmap) -> Bool {
        bitmap.withUnsafeBytes { raw in
            var i = 3
            while i < raw.count {
                if raw[i] != 255 { return false }
                i += 4
            }
            return true
        }
    }

    /// The red plane when every pixel is opaque gray; nil otherwise.
    static func grayPlane(_ bitmap: Bitmap) -> [UInt8]? {
        bitmap.withUnsafeBytes { raw -> [UInt8]? in
            var plane = [UInt8](repeating: 0, count: bitmap.width * bitmap.height)
            for i in 0..<plane.count {
                let r = raw[i * 4], g = raw[i * 4 + 1], b = raw[i * 4 + 2], a = raw[i * 4 + 3]
                guard r == g, g == b, a == 255 else { return nil }
                plane[i] = r
            }
            return plane
        }
    }

    /// Palette (RGB triples), alpha per entry and one index per pixel; nil over 256 colors.
    static func palettize(_ bitmap: Bitmap) -> (palette: [UInt8], alpha: [UInt8], indices: [UInt8])? {
        bitmap.withUnsafeBytes { raw -> (palette: [UInt8], alpha: [UInt8], indices: [UInt8])? in
            var lookup: [UInt32: UInt8] = [:]
            var palette: [UInt8] = []
            var alpha: [UInt8] = []
            var indices = [UInt8](repeating: 0, count: bitmap.width * bitmap.height)
            for i in 0..<indices.count {
                let key = raw.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)
                if let index = lookup[key] {
                    indices[i] = index
                    continue
                }
                guard lookup.count < 256 else { return nil }
                let index = UInt8(lookup.count)
                lookup[key] = index
                palette += [raw[i * 4], raw[i * 4 + 1], raw[i * 4 + 2]]
                alpha.append(raw[i * 4 + 3])
                indices[i] = index
            }
            return (palette, alpha, indices)
        }
    }
}
