import CPNG

/// The first, streaming stage: area-averages decoded RGBA8 rows, as they arrive, onto the
/// intermediate grid (or straight onto the output in `fast` quality).
///
/// Each output sample is the mean over the exact source rectangle it covers; source pixels
/// cut by the rectangle's edges count by the fraction inside. Per source row: one pass over
/// its pixels with precomputed per-column spans and weights (`rtn_thumb_reduce_rgba8`, no
/// allocation, no branch per pixel), then one multiply-add per intermediate sample for each of
/// the (at most two) intermediate rows the source row overlaps. Memory: one horizontal row and
/// two accumulator rows of intermediate width, plus the tables.
struct AreaAccumulator {
    /// How decoded pixels become premultiplied samples.
    enum Source {
        /// Opaque, stored values: the bytes as they are.
        case opaque
        /// With alpha, stored values: color multiplied by alpha / 255.
        case premultiplied
        /// Linear light through this sRGB → linear table (256 entries), then premultiplied.
        case linear(UnsafeMutablePointer<Float>)
    }

    private let columns: FilterTable
    private var vertical: VerticalAccumulator
    private let pixels: rtn_thumb_pixels
    private let toLinear: UnsafePointer<Float>?
    private let row: UnsafeMutablePointer<Float>

    /// An accumulator from `x` and `y` (source → intermediate) reading pixels as `source`.
    init(x: AxisMap, y: AxisMap, source: Source, memory: WorkingMemory) throws(ImagingError) {
        columns = try FilterTable(x, kernel: .area, memory: memory)
        let rows = try FilterTable(y, kernel: .area, memory: memory)
        vertical = try VerticalAccumulator(table: rows, width: x.outputSize, memory: memory)
        row = try memory.allocate(Float.self, count: 4 * x.outputSize)
        switch source {
        case .opaque: (pixels, toLinear) = (RTN_THUMB_OPAQUE, nil)
        case .premultiplied: (pixels, toLinear) = (RTN_THUMB_PREMULTIPLY, nil)
        case .linear(let table): (pixels, toLinear) = (RTN_THUMB_LINEAR, UnsafePointer(table))
        }
    }

    /// True once every intermediate row has been handed on.
    var isComplete: Bool { vertical.nextOutput == vertical.table.outputSize }

    /// Adds source row `y` (RGBA8, rows in order) and hands completed intermediate rows
    /// (4 floats per sample) to `emit`. Rows outside the source window (a crop) cost nothing.
    mutating func push(_ pixels: UnsafePointer<UInt8>, row y: Int, emit: (UnsafePointer<Float>) -> Void) {
        guard vertical.needs(y) else { return }
        rtn_thumb_reduce_rgba8(pixels, columns.taps, self.pixels, toLinear, row)
        vertical.push(row, inputRow: y, emit: emit)
    }
}
