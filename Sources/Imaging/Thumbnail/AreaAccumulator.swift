/// How a decoded RGBA8 pixel becomes a premultiplied `SIMD4<Float>` sample (0...255 scale).
///
/// Three variants so the hot loop carries no per-pixel branch: the generic row functions
/// below are specialized for each one.
protocol PixelLoader {
    static func load(_ pixel: UnsafeRawPointer, _ toLinear: UnsafePointer<Float>) -> SIMD4<Float>
}

/// Opaque source in stored (gamma-encoded) values: the bytes as they are.
enum OpaquePixels: PixelLoader {
    @inline(__always)
    static func load(_ pixel: UnsafeRawPointer, _ toLinear: UnsafePointer<Float>) -> SIMD4<Float> {
        SIMD4<Float>(pixel.loadUnaligned(as: SIMD4<UInt8>.self))
    }
}

/// Source with alpha in stored values: color multiplied by alpha / 255.
enum PremultipliedPixels: PixelLoader {
    @inline(__always)
    static func load(_ pixel: UnsafeRawPointer, _ toLinear: UnsafePointer<Float>) -> SIMD4<Float> {
        let v = SIMD4<Float>(pixel.loadUnaligned(as: SIMD4<UInt8>.self))
        let f = v.w * (1 / 255)
        return v * SIMD4<Float>(f, f, f, 1)
    }
}

/// Any source in linear light: each color byte through the sRGB → linear table, then
/// multiplied by alpha / 255.
enum LinearPixels: PixelLoader {
    @inline(__always)
    static func load(_ pixel: UnsafeRawPointer, _ toLinear: UnsafePointer<Float>) -> SIMD4<Float> {
        let p = pixel.assumingMemoryBound(to: UInt8.self)
        let a = Float(p[3])
        let f = a * (1 / 255)
        return SIMD4<Float>(toLinear[Int(p[0])] * f, toLinear[Int(p[1])] * f, toLinear[Int(p[2])] * f, a)
    }
}

/// The first, streaming stage: area-averages decoded RGBA8 rows, as they arrive, onto the
/// intermediate grid (or straight onto the output in `fast` quality).
///
/// Each output sample is the mean over the exact source rectangle it covers; source pixels
/// cut by the rectangle's edges count by the fraction inside. Per source row: one pass over
/// its pixels with precomputed per-column spans and weights (no allocation, no branch per
/// pixel), then one multiply-add per intermediate sample for each of the (at most two)
/// intermediate rows the source row overlaps. Memory: one horizontal row and two
/// accumulator rows of intermediate width, plus the tables.
struct AreaAccumulator {
    enum Source {
        case opaque
        case premultiplied
        case linear(UnsafeMutablePointer<Float>)
    }

    private let columns: FilterTable
    private var vertical: VerticalAccumulator
    private let source: Source
    private let row: UnsafeMutablePointer<SIMD4<Float>>
    private let lutPlaceholder: UnsafeMutablePointer<Float>

    /// An accumulator from `x` and `y` (source → intermediate) reading pixels as `source`.
    init(x: AxisMap, y: AxisMap, source: Source, memory: WorkingMemory) throws(ImagingError) {
        columns = try FilterTable(x, kernel: .area, memory: memory)
        let rows = try FilterTable(y, kernel: .area, memory: memory)
        vertical = try VerticalAccumulator(table: rows, width: x.outputSize, memory: memory)
        row = try memory.allocate(SIMD4<Float>.self, count: x.outputSize)
        lutPlaceholder = try memory.allocate(Float.self, count: 1)
        self.source = source
    }

    /// True once every intermediate row has been handed on.
    var isComplete: Bool { vertical.nextOutput == vertical.table.outputSize }

    /// Adds source row `y` (RGBA8, rows in order) and hands completed intermediate rows to
    /// `emit`. Rows outside the source window (a crop) cost nothing.
    mutating func push(_ pixels: UnsafePointer<UInt8>, row y: Int, emit: (UnsafePointer<SIMD4<Float>>) -> Void) {
        guard vertical.needs(y) else { return }
        switch source {
        case .opaque: reduce(OpaquePixels.self, pixels, lut: lutPlaceholder)
        case .premultiplied: reduce(PremultipliedPixels.self, pixels, lut: lutPlaceholder)
        case .linear(let lut): reduce(LinearPixels.self, pixels, lut: lut)
        }
        vertical.push(row, inputRow: y, emit: emit)
    }

    /// The horizontal pass over one source row into `row`.
    @inline(__always)
    private func reduce<L: PixelLoader>(_: L.Type, _ pixels: UnsafePointer<UInt8>, lut: UnsafePointer<Float>) {
        let raw = UnsafeRawPointer(pixels)
        let stride = columns.stride
        for i in 0..<columns.outputSize {
            var p = raw + Int(columns.first[i]) * 4
            var w = columns.weights + i * stride
            var sum = SIMD4<Float>()
            for _ in 0..<Int(columns.count[i]) {
                sum += L.load(p, lut) * w.pointee
                p += 4
                w += 1
            }
            row[i] = sum
        }
    }
}
