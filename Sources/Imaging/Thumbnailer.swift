// TEMPORARY stand-in; replaced by the real streaming Thumbnailer on merge.
//
// Same public API as the thumbnail issue's `Thumbnailer`, so the cache's
// `thumbnail(maxPixelSize:)` representation compiles against it. This version decodes the whole
// image and then box-averages it, so its peak memory is the full bitmap plus the thumbnail.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Makes a bitmap no larger than `maxPixelSize` on its longer side from PNG data.
///
/// Cost (this stand-in): a full decode (`width × height × 4` bytes, freed before returning)
/// plus one pass over the pixels; the result is `outWidth × outHeight × 4` bytes.
public struct Thumbnailer: Sendable {
    /// How carefully pixels are resampled.
    public enum Quality: Sendable, Hashable {
        /// Area average only.
        case fast
        /// Area average, then a higher-quality pass (the stand-in treats it as `fast`).
        case good
    }

    /// Longest side of the output, in pixels (at least 1).
    public let maxPixelSize: Int
    /// Resampling quality.
    public let quality: Quality

    /// A thumbnailer whose output fits in `maxPixelSize` × `maxPixelSize`. O(1).
    public init(maxPixelSize: Int, quality: Quality = .good) {
        self.maxPixelSize = maxPixelSize
        self.quality = quality
    }

    /// Decodes `data` and scales it to fit `maxPixelSize` (never up), keeping the aspect
    /// ratio; sizes round to nearest, at least 1. Output memory comes from `allocator`.
    public func thumbnail(_ data: Data, allocator: BitmapAllocator = .system) throws(ImagingError) -> Thumbnail {
        guard maxPixelSize > 0 else {
            throw .invalidArgument("maxPixelSize must be positive, got \(maxPixelSize)")
        }
        let full = try PNGDecoder().decode(data, allocator: .system)
        let longer = max(full.width, full.height)
        guard longer > maxPixelSize else {
            let copy = try Bitmap(uninitializedWidth: full.width, height: full.height, allocator: allocator)
            copy.mutableBase.copyMemory(from: full.mutableBase, byteCount: full.byteCount)
            return Thumbnail(bitmap: copy, stats: ThumbnailStats())
        }
        let scale = Double(maxPixelSize) / Double(longer)
        let outWidth = max(1, Int((Double(full.width) * scale).rounded()))
        let outHeight = max(1, Int((Double(full.height) * scale).rounded()))
        let output = try Bitmap(uninitializedWidth: outWidth, height: outHeight, allocator: allocator)
        Self.boxAverage(from: full, into: output)
        return Thumbnail(bitmap: output, stats: ThumbnailStats())
    }

    /// Averages each output pixel's source box, colour weighted by alpha.
    private static func boxAverage(from source: Bitmap, into output: Bitmap) {
        let src = UnsafeRawPointer(source.mutableBase).assumingMemoryBound(to: UInt8.self)
        let dst = output.mutableBase.assumingMemoryBound(to: UInt8.self)
        for oy in 0..<output.height {
            let y0 = oy * source.height / output.height
            let y1 = max(y0 + 1, (oy + 1) * source.height / output.height)
            for ox in 0..<output.width {
                let x0 = ox * source.width / output.width
                let x1 = max(x0 + 1, (ox + 1) * source.width / output.width)
                var r = 0, g = 0, b = 0, a = 0
                for y in y0..<y1 {
                    var p = src + y * source.bytesPerRow + x0 * 4
                    for _ in x0..<x1 {
                        let alpha = Int(p[3])
                        r += Int(p[0]) * alpha
                        g += Int(p[1]) * alpha
                        b += Int(p[2]) * alpha
                        a += alpha
                        p += 4
                    }
                }
                let count = (y1 - y0) * (x1 - x0)
                let q = dst + oy * output.bytesPerRow + ox * 4
                if a > 0 {
                    q[0] = UInt8((r + a / 2) / a)
                    q[1] = UInt8((g + a / 2) / a)
                    q[2] = UInt8((b + a / 2) / a)
                } else {
                    q[0] = 0
                    q[1] = 0
                    q[2] = 0
                }
                q[3] = UInt8((a + count / 2) / count)
            }
        }
    }
}

/// A thumbnail and how it was made.
public struct Thumbnail: Sendable {
    /// The scaled image.
    public let bitmap: Bitmap
    /// Figures about the work done (empty in the stand-in).
    public let stats: ThumbnailStats
}

/// Figures about one thumbnail's work (empty in the stand-in).
public struct ThumbnailStats: Sendable, Hashable {}
