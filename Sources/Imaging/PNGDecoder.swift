#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decodes PNG to RGBA8 bitmaps with libpng.
///
/// Every color type, bit depth 1–16, palette, tRNS and Adam7 decode to RGBA8 straight alpha.
/// Pixels are the samples as stored — no gamma or color-space conversion — and 16-bit samples
/// scale to 8 bits with rounding. Limits are checked from the header before any pixel memory
/// is taken. Corrupt or hostile input throws `ImagingError`; it never crashes and never leaks.
///
/// Every chunk's CRC-32 is checked; the image data's Adler-32 is skipped unless `options`
/// says `verifyAdler32` (see `DecodeOptions`).
///
/// Cost: one pass of libpng over the data; memory is the bitmap (`width × height × 4`) plus
/// libpng's state and a row buffer. Decoding from a path streams the file through a small
/// stdio buffer, so the compressed bytes are not held whole.
public struct PNGDecoder: Sendable, Hashable {
    /// The caps checked before pixel memory is taken.
    public var limits: DecodeLimits
    /// How strictly the data is checked (default: chunk CRCs, not the Adler-32).
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
        try decode(PNGReader(.memory(bytes), limits: limits, options: options), allocator: allocator)
    }

    /// Decodes the PNG file at `path`, streaming it from disk.
    public func decode(contentsOf path: String, allocator: BitmapAllocator = .system) throws(ImagingError) -> Bitmap {
        try decode(PNGReader(.file(path), limits: limits, options: options), allocator: allocator)
    }

    private func decode(_ reader: PNGReader, allocator: BitmapAllocator) throws(ImagingError) -> Bitmap {
        try limits.check(width: reader.width, height: reader.height)
        try reader.start()
        let bitmap = try Bitmap(uninitializedWidth: reader.width, height: reader.height, allocator: allocator)
        try reader.readImage(into: bitmap.mutableBase, bytesPerRow: bitmap.bytesPerRow)
        return bitmap
    }
}
