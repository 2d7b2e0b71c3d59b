#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A PNG's header facts, read without touching pixel data.
///
/// Reading costs the chunks before the first IDAT (a few hundred bytes for most files);
/// nothing proportional to the image is allocated.
public struct ImageInfo: Sendable, Hashable, Codable {
    /// PNG color types.
    public enum ColorType: String, Sendable, Hashable, Codable, CustomStringConvertible {
        /// Type 0.
        case grayscale
        /// Type 2.
        case rgb
        /// Type 3.
        case palette
        /// Type 4.
        case grayscaleAlpha = "grayscale+alpha"
        /// Type 6.
        case rgba

        init(code: Int32) {
            switch code {
            case 0: self = .grayscale
            case 2: self = .rgb
            case 3: self = .palette
            case 4: self = .grayscaleAlpha
            default: self = .rgba
            }
        }

        /// The name used in listings ("rgb", "palette", "grayscale+alpha").
        public var description: String { rawValue }
    }

    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Bits per sample (or per palette index): 1, 2, 4, 8 or 16.
    public var bitDepth: Int
    /// The stored color type.
    public var colorType: ColorType
    /// True for Adam7 interlacing.
    public var interlaced: Bool
    /// True when a tRNS chunk gives transparency to a type without an alpha channel.
    public var hasTransparencyChunk: Bool

    /// Bytes of the RGBA8 bitmap a full decode produces: width × height × 4, computed with
    /// overflow checks: `Int.max` when the product does not fit (a header may declare
    /// 2^31 − 1 × 2^31 − 1), never a trap. Check ``DecodeLimits/check(width:height:)`` before
    /// using it as an allocation size. O(1).
    public var decodedByteCount: Int {
        let pixels = width.multipliedReportingOverflow(by: height)
        let bytes = pixels.partialValue.multipliedReportingOverflow(by: 4)
        return pixels.overflow || bytes.overflow || width < 0 || height < 0 ? Int.max : bytes.partialValue
    }

    /// Bytes of the image once inflated, before unfiltering: `height × (1 + rowBytes)`, where a
    /// row holds `width` samples of the color type's channels at ``bitDepth`` bits (interlaced
    /// images take about the same). What a whole-image inflate's buffer holds on top of the
    /// bitmap. Overflow-checked: `Int.max` when it does not fit. O(1).
    public var filteredByteCount: Int {
        let channels: Int
        switch colorType {
        case .grayscale, .palette: channels = 1
        case .grayscaleAlpha: channels = 2
        case .rgb: channels = 3
        case .rgba: channels = 4
        }
        let bits = width.multipliedReportingOverflow(by: channels * max(bitDepth, 1))
        guard !bits.overflow, width >= 0, height >= 0 else { return Int.max }
        let total = height.multipliedReportingOverflow(by: 1 + (bits.partialValue + 7) / 8)
        return total.overflow ? Int.max : total.partialValue
    }

    /// Reads the header of the PNG in `data`.
    public init(data: Data, limits: DecodeLimits = .default) throws(ImagingError) {
        self = try data.withBytes { (raw: UnsafeRawBufferPointer) throws(ImagingError) -> ImageInfo in
            try ImageInfo(reader: PNGReader(.memory(raw), limits: limits))
        }
    }

    /// Reads the header of the PNG file at `path`, without reading the rest of the file.
    public init(contentsOf path: String, limits: DecodeLimits = .default) throws(ImagingError) {
        try self.init(reader: PNGReader(.file(path), limits: limits))
    }

    init(reader: PNGReader) {
        width = reader.width
        height = reader.height
        bitDepth = Int(reader.header.bit_depth)
        colorType = ColorType(code: reader.header.color_type)
        interlaced = reader.isInterlaced
        hasTransparencyChunk = reader.header.has_trns != 0
    }
}

extension Data {
    /// Runs `body` over the bytes with a typed error (Data's own API rethrows untyped).
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(ImagingError) -> R) throws(ImagingError) -> R {
        let result: Result<R, ImagingError> = self.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            do throws(ImagingError) { return .success(try body(raw)) } catch { return .failure(error) }
        }
        return try result.get()
    }
}
