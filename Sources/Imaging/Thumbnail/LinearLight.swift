import CPNG
import Glibc

/// The sRGB transfer function as lookup tables, for resampling in linear light.
///
/// Samples are kept on a 0...255 scale in both spaces so the rest of the pipeline does not
/// care which one it runs in. Going back uses 4096 steps of linear light: enough that every
/// one of the 256 sRGB codes survives a round trip unchanged (the tests check it).
enum LinearLight {
    /// Entries in the linear → sRGB table.
    static let steps = 4096

    /// sRGB code (0–255) → linear light on a 0...255 scale.
    static func toLinear(_ code: Int) -> Double {
        let c = Double(code) / 255
        let linear = c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        return linear * 255
    }

    /// Linear light on a 0...1 scale → sRGB on a 0...1 scale.
    static func encode(_ linear: Double) -> Double {
        linear <= 0.0031308 ? linear * 12.92 : 1.055 * pow(linear, 1 / 2.4) - 0.055
    }

    /// Both tables in the run's working memory: 256 Floats and `steps` bytes (5 KiB).
    static func tables(_ memory: WorkingMemory) throws(ImagingError) -> (toLinear: UnsafeMutablePointer<Float>, fromLinear: UnsafeMutablePointer<UInt8>) {
        let forward = try memory.allocate(Float.self, count: 256)
        for code in 0..<256 { forward[code] = Float(toLinear(code)) }
        let backward = try memory.allocate(UInt8.self, count: steps)
        for i in 0..<steps {
            let value = encode(Double(i) / Double(steps - 1)) * 255
            backward[i] = UInt8(min(255, max(0, value.rounded())))
        }
        return (forward, backward)
    }
}

/// Turns premultiplied sample rows (4 floats a sample, 0...255 scale) into the output
/// bitmap's RGBA8 straight-alpha rows, top to bottom.
///
/// Un-premultiplies (a pixel whose alpha rounds to 0 becomes transparent black), clamps the
/// overshoot a Lanczos filter can produce, and in linear light maps back through the
/// 4096-step table (`rtn_thumb_write_row`). Costs a division and a few comparisons per output
/// pixel.
struct RowWriter {
    private let base: UnsafeMutablePointer<UInt8>
    private let width: Int
    private let bytesPerRow: Int
    private let fromLinear: UnsafeMutablePointer<UInt8>?
    /// Rows written so far.
    private(set) var rowsWritten = 0
    let height: Int

    init(bitmap: Bitmap, fromLinear: UnsafeMutablePointer<UInt8>?) {
        base = bitmap.mutableBase.assumingMemoryBound(to: UInt8.self)
        width = bitmap.width
        height = bitmap.height
        bytesPerRow = bitmap.bytesPerRow
        self.fromLinear = fromLinear
    }

    /// Writes the next output row from `row` (`width` samples), zero outside `nonzero`: those
    /// pixels are transparent black, written without reading them.
    mutating func write(_ row: UnsafePointer<Float>, nonzero: Range<Int>) {
        precondition(rowsWritten < height, "thumbnail pipeline produced more rows than the output has")
        let out = base + rowsWritten * bytesPerRow
        out.clearSamples(outside: nonzero, width: width)
        if !nonzero.isEmpty {
            let lo = nonzero.lowerBound
            rtn_thumb_write_row(row + 4 * lo, nonzero.count, fromLinear, LinearLight.steps, out + 4 * lo)
        }
        rowsWritten += 1
    }
}
