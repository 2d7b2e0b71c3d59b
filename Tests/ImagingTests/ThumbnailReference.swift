import Foundation
@testable import Imaging

/// The straightforward reference the thumbnailer is judged against: a full decode, then for
/// every output pixel the exact mean over the source rectangle it covers (fractional edge
/// pixels weighted by the part inside), premultiplied by alpha, in Double.
/// Deliberately written without any of the thumbnailer's code or tables.
struct ReferenceThumbnail {
    let width: Int
    let height: Int
    /// Straight-alpha RGBA per pixel, unrounded, 0...255.
    var samples: [Double]

    init(_ source: Bitmap, width: Int, height: Int) {
        self.width = width
        self.height = height
        samples = [Double](repeating: 0, count: width * height * 4)
        let sx = Double(source.width) / Double(width), sy = Double(source.height) / Double(height)
        source.withUnsafeBytes { raw in
            for j in 0..<height {
                let y0 = Double(j) * sy, y1 = Double(j + 1) * sy
                for i in 0..<width {
                    let x0 = Double(i) * sx, x1 = Double(i + 1) * sx
                    var sum = [0.0, 0.0, 0.0, 0.0]
                    for y in Int(y0.rounded(.down))..<min(source.height, Int(y1.rounded(.up))) {
                        let wy = min(Double(y + 1), y1) - max(Double(y), y0)
                        for x in Int(x0.rounded(.down))..<min(source.width, Int(x1.rounded(.up))) {
                            let w = wy * (min(Double(x + 1), x1) - max(Double(x), x0))
                            let o = y * source.bytesPerRow + x * 4
                            let a = Double(raw[o + 3])
                            for c in 0..<3 { sum[c] += w * Double(raw[o + c]) * a }
                            sum[3] += w * a
                        }
                    }
                    let o = (j * width + i) * 4
                    if sum[3] > 0 {
                        for c in 0..<3 { samples[o + c] = sum[c] / sum[3] }
                    }
                    samples[o + 3] = sum[3] / (sx * sy)
                }
            }
        }
    }

    /// Mean absolute difference per channel sample between `bitmap` and the reference,
    /// counting color only where the reference alpha is at least 1.
    func meanAbsoluteDifference(_ bitmap: Bitmap) -> Double {
        var total = 0.0, count = 0
        compare(bitmap) { difference in
            total += abs(difference)
            count += 1
        }
        return total / Double(max(1, count))
    }

    /// Peak signal-to-noise ratio in dB of `bitmap` against the reference.
    func psnr(_ bitmap: Bitmap) -> Double {
        var squares = 0.0, count = 0
        compare(bitmap) { difference in
            squares += difference * difference
            count += 1
        }
        let mse = squares / Double(max(1, count))
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    private func compare(_ bitmap: Bitmap, _ body: (Double) -> Void) {
        precondition(bitmap.width == width && bitmap.height == height)
        for y in 0..<height {
            for x in 0..<width {
                let p = bitmap.pixel(x: x, y: y)
                let o = (y * width + x) * 4
                let alpha = samples[o + 3]
                if alpha >= 1 {
                    body(Double(p.r) - samples[o])
                    body(Double(p.g) - samples[o + 1])
                    body(Double(p.b) - samples[o + 2])
                }
                body(Double(p.a) - alpha)
            }
        }
    }
}

/// An RGBA bitmap made by `pixel(x, y)`, encoded as PNG.
func makePNG(width: Int, height: Int, interlaced: Bool = false, _ pixel: (Int, Int) -> RGBA) throws -> Data {
    let bitmap = try Bitmap(width: width, height: height) { bytes, bytesPerRow in
        for y in 0..<height {
            for x in 0..<width {
                let p = pixel(x, y)
                let o = y * bytesPerRow + x * 4
                bytes[o] = p.r
                bytes[o + 1] = p.g
                bytes[o + 2] = p.b
                bytes[o + 3] = p.a
            }
        }
    }
    return try PNGEncoder(compressionLevel: 1, interlaced: interlaced).encode(bitmap)
}
